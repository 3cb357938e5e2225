#include "runner/profile.hpp"

#include <unistd.h>

#include <cstdlib>
#include <regex>
#include <sstream>
#include <stdexcept>

#include "backends/subprocess.hpp"
#include "core/error.hpp"
#include "backends/backend.hpp"
#include "tune/profile_summary.hpp"

namespace assay::runner {

std::string find_ncu() {
  if (const char* env = std::getenv("ASSAY_NCU"); env && *env) {
    if (::access(env, X_OK) != 0) throw InputError("ASSAY_NCU=" + std::string(env) + ": not an executable file");
    return env;
  }
  if (const char* path = std::getenv("PATH")) {
    std::stringstream ss(path);
    for (std::string dir; std::getline(ss, dir, ':');)
      if (!dir.empty() && ::access((dir + "/ncu").c_str(), X_OK) == 0) return dir + "/ncu";
  }
  if (::access("/usr/local/cuda/bin/ncu", X_OK) == 0) return "/usr/local/cuda/bin/ncu";
  return {};
}

std::string ncu_tool_name(const std::string& ncu) {
  SubprocessLimits limits;
  limits.timeout_s = 60;
  const auto r = run_subprocess({ncu, "--version"}, "", limits);
  std::smatch m;
  static const std::regex version(R"(Version ([0-9][0-9.]*))");
  if (r.started && std::regex_search(r.out, m, version)) return "ncu " + m[1].str();
  return "ncu (version unknown)";
}

std::vector<std::string> ncu_command(const ProfileOptions& p, const std::string& log_path) {
  std::string metrics;
  for (const auto& m : p.metrics->metric_list()) metrics += (metrics.empty() ? "" : ",") + m;
  return {p.ncu,
          "--profile-from-start", "off",   // only the case's window
          "--target-processes", "all",     // an adapter's process too
          "--clock-control", p.clock_control,
          "--cache-control", "all",        // caches flushed before each kernel: cold
          "--csv", "--page", "raw", "--print-units", "base",
          "--metrics", metrics,
          "--log-file", log_path};
}

void attach_profile(CaseRecord& rec, const std::string& log_text, const ProfileOptions& p,
                    const DeviceRecord& device) {
  tune::NcuTable table;
  try {
    table = tune::parse_ncu_csv(log_text, "ncu log");
  } catch (const std::invalid_argument& e) {
    if (rec.status == CaseStatus::ok) {
      rec.status = CaseStatus::error;
      rec.reason = std::string("cannot read the profiler's log: ") + e.what();
    }
    return;
  }
  if (rec.status != CaseStatus::ok) {
    for (const auto& e : table.errors) rec.reason += (rec.reason.empty() ? "ncu: " : "; ncu: ") + e;
    return;
  }
  tune::ProfileContext ctx;
  ctx.calls = p.calls;
  ctx.tool = p.tool;
  ctx.clock_control = p.clock_control;
  if (rec.derived) {
    ctx.flops = rec.derived->flops;
    ctx.min_bytes = rec.derived->min_bytes;
    ctx.peak_tflops = rec.derived->peak_tflops;
  }
  ctx.peak_gbs = peak_memory_gbs(device);
  try {
    rec.profile = tune::summarize_profile(table, *p.metrics, ctx);
  } catch (const std::invalid_argument& e) {
    rec.status = CaseStatus::error;
    rec.reason = e.what();
    if (rec.adapter || find_backend(rec.backend)->target() == Target::external)
      rec.reason += ": an adapter must open the window itself (purpose \"profile\", docs/adapters.md)";
  }
}

}  // namespace assay::runner
