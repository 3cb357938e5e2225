#include <algorithm>
#include <iostream>
#include <memory>
#include <nlohmann/json.hpp>

#include "cli/commands.hpp"
#include "core/error.hpp"
#include "gpu/doctor.hpp"

namespace assay::cli {

namespace {

void print_table(const gpu::DoctorReport& r) {
  const auto& d = r.device;
  std::cout << "assay doctor: " << d.name << " (device " << d.index << ", " << d.uuid << ")\n";
  std::size_t width = 5;
  for (const auto& c : r.checks) width = std::max(width, c.name.size());
  for (const auto& c : r.checks)
    std::cout << "  " << c.name << std::string(width - c.name.size() + 2, ' ') << gpu::verdict_name(c.verdict)
              << "  " << c.detail << "\n";
  const auto count = [&](gpu::Verdict v) {
    return std::count_if(r.checks.begin(), r.checks.end(), [&](const auto& c) { return c.verdict == v; });
  };
  std::cout << "verdict: " << gpu::verdict_name(gpu::overall_verdict(r.checks)) << " (" << count(gpu::Verdict::fail)
            << " fail, " << count(gpu::Verdict::warn) << " warn, " << count(gpu::Verdict::pass) << " pass)\n";
}

nlohmann::json to_json(const gpu::DoctorReport& r) {
  nlohmann::json checks = nlohmann::json::array();
  for (const auto& c : r.checks)
    checks.push_back({{"name", c.name}, {"verdict", gpu::verdict_name(c.verdict)}, {"detail", c.detail}});
  return {{"device", {{"index", r.device.index}, {"name", r.device.name}, {"uuid", r.device.uuid}}},
          {"verdict", gpu::verdict_name(gpu::overall_verdict(r.checks))},
          {"exit_code", gpu::doctor_exit_code(r.checks)},
          {"checks", checks}};
}

}  // namespace

Action add_doctor_command(CLI::App& app) {
  struct Flags {
    int device = 0;
    bool json = false;
  };
  auto flags = std::make_shared<Flags>();
  app.add_option("--device", flags->device, "CUDA device index (default 0)");
  app.add_flag("--json", flags->json, "print the checks as JSON instead of the table");
  return [flags]() -> int {
    gpu::DoctorReport report;
    try {
      report = gpu::run_doctor(flags->device);
    } catch (const SkipError& e) {
      if (flags->json) std::cout << nlohmann::json{{"verdict", "skipped"}, {"reason", e.what()}}.dump(1) << "\n";
      std::cerr << "skipped: " << e.what() << "\n";
      return static_cast<int>(ExitCode::skipped);
    } catch (const Error& e) {
      // A script reading --json gets a document for every exit: the error and its code too.
      if (flags->json)
        std::cout << nlohmann::json{{"verdict", "error"}, {"reason", e.what()}, {"exit_code", static_cast<int>(e.code())}}
                         .dump(1)
                  << "\n";
      throw;
    }
    if (flags->json) std::cout << to_json(report).dump(1) << "\n";
    else print_table(report);
    return gpu::doctor_exit_code(report.checks);
  };
}

}  // namespace assay::cli
