#include "runner/profile.hpp"

#include <fmt/format.h>
#include <unistd.h>

#include <cctype>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <iterator>
#include <regex>
#include <stdexcept>

#include "backends/subprocess.hpp"
#include "core/error.hpp"
#include "core/ids.hpp"
#include "runner/worker.hpp"
#include "backends/backend.hpp"
#include "tune/profile_summary.hpp"

namespace assay::runner {

std::string find_ncu() {
  if (const char* env = std::getenv("ASSAY_NCU"); env && *env) {
    std::error_code ec;
    if (!std::filesystem::is_regular_file(env, ec) || ::access(env, X_OK) != 0)
      throw InputError("ASSAY_NCU=" + std::string(env) + ": not an executable file");
    return env;
  }
  return find_program("ncu", {"/usr/local/cuda/bin/ncu"});
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

namespace {

// The profiler's part of the worker's command line, writing its log to `log_path`.
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

// Reads the profiler's log of a case into rec.profile. A case that did not end ok keeps its
// record (ncu's own errors appended to its reason); an ok case whose log holds no kernel, or
// cannot be read, becomes `error` naming why.
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
  // An ok case whose log holds ncu errors ("Failed to profile <kernel>") lacks what ncu could not
  // replay: its time per call and roofline would look better than they are.
  if (!table.errors.empty()) {
    rec.status = CaseStatus::error;
    rec.reason = "ncu reported errors, so the profile may miss kernels:";
    for (const auto& e : table.errors) rec.reason += " " + (e.empty() ? std::string("(a bare ==ERROR==)") : e) + ";";
    rec.reason.pop_back();
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
    if (find_backend(rec.backend)->target() == Target::external)
      rec.reason += ": an adapter must open the window itself (purpose \"profile\", docs/adapters.md)";
  }
}

}  // namespace

// assay profile: the case's worker under the profiler, its log read into the record.
CaseRecord profile_case(const verify::ResolvedCase& rc, const ProfileOptions& p, const DeviceRecord& device) {
  const std::string log = (std::filesystem::temp_directory_path() /
                           ("assay-ncu-" + std::to_string(::getpid()) + "-" + std::to_string(fnv1a64(rc.id)) + ".csv"))
                              .string();
  WorkerProgram program;
  program.wrapper = ncu_command(p, log);
  CaseRecord rec = run_case_in_worker(rc, p.timeout_s, false, program);
  std::ifstream in(log);
  const std::string text{std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>()};
  if (!p.log_dir.empty()) {
    std::string name = rc.id;  // a case id has '/' and ',': a flat file name
    for (char& c : name)
      if (!std::isalnum(static_cast<unsigned char>(c)) && c != '.' && c != '-' && c != '=') c = '_';
    std::error_code ec;
    // ... and a hash of the id, since two ids may differ only in the characters replaced.
    const auto kept = std::filesystem::path(p.log_dir) / (name + fmt::format("-{:08x}.csv", fnv1a64(rc.id) & 0xffffffffu));
    std::filesystem::copy_file(log, kept, std::filesystem::copy_options::overwrite_existing, ec);
    if (ec)  // the profile is still read; only the copy asked for by --ncu-log-dir is missing
      std::cerr << "assay profile: " << rc.id << ": ncu's log was not kept as " << kept.string() << ": " << ec.message()
                << "\n";
  }
  std::filesystem::remove(log);
  attach_profile(rec, text, p, device);
  return rec;
}

}  // namespace assay::runner
