#include "runner/worker.hpp"

#include <string.h>
#include <unistd.h>

#include <cstdlib>
#include <cstring>
#include <fstream>
#include <sstream>

#include <filesystem>
#include <iostream>
#include <iterator>
#include <nlohmann/json.hpp>

#include "backends/backend.hpp"
#include "backends/subprocess.hpp"

namespace assay::runner {

using nlohmann::json;

double case_timeout_s(const PlannedCase& pc) {
  const auto& m = pc.bench->measure;
  if (m.case_timeout_s > 0) return m.case_timeout_s;
  if (find_backend(pc.backend)->target() == Target::external) return 2 * m.adapter_timeout_s + 30;
  return 3 * m.timeout_s + 60;
}

namespace {

// compute-sanitizer on PATH or in the CUDA toolkit's usual place; empty when absent.
std::string find_compute_sanitizer() {
  if (const char* path = std::getenv("PATH")) {
    std::stringstream ss(path);
    for (std::string dir; std::getline(ss, dir, ':');)
      if (!dir.empty() && ::access((dir + "/compute-sanitizer").c_str(), X_OK) == 0) return dir + "/compute-sanitizer";
  }
  for (const char* p : {"/usr/local/cuda/bin/compute-sanitizer", "/usr/local/cuda/compute-sanitizer/compute-sanitizer"})
    if (::access(p, X_OK) == 0) return p;
  return {};
}

// The worker once more under `tool`; its findings (the ERROR SUMMARY and the first error).
std::string sanitize(const std::string& sanitizer, const std::string& tool, const std::string& self,
                     const std::string& request, double timeout_s, bool* clean) {
  const std::string log = (std::filesystem::temp_directory_path() /
                           ("assay-sanitizer-" + std::to_string(::getpid()) + "-" + tool + ".log"))
                              .string();
  SubprocessLimits limits;
  limits.timeout_s = timeout_s;
  limits.max_stdout_bytes = 256u << 20;
  const auto r = run_subprocess({sanitizer, "--tool", tool, "--log-file", log, "--error-exitcode", "86",
                                 "--print-limit", "20", self, "__worker"},
                                request, limits);
  std::ifstream in(log);
  std::string line, first_error, summary;
  while (std::getline(in, line)) {
    if (first_error.empty() && line.find("========= ") == 0 && line.find("SUMMARY") == std::string::npos &&
        line.find("not printed") == std::string::npos &&
        (line.find("Invalid") != std::string::npos || line.find("hazard") != std::string::npos ||
         line.find("Error") != std::string::npos))
      first_error = line.substr(10);
    // memcheck ends with "ERROR SUMMARY: N errors", racecheck with "RACECHECK SUMMARY: N hazards
    // displayed (N errors, N warnings)".
    for (const char* key : {"ERROR SUMMARY:", "RACECHECK SUMMARY:"})
      if (const auto at = line.find(key); at != std::string::npos) summary = line.substr(at + std::strlen(key) + 1);
  }
  std::filesystem::remove(log);
  // --error-exitcode makes any finding a non-zero exit.
  *clean = r.exit_code == 0 && !r.timed_out;
  if (r.timed_out) return "timed out after " + std::to_string(static_cast<int>(timeout_s)) + " s";
  if (summary.empty()) return "no report (exit code " + std::to_string(r.exit_code) + ")";
  return summary + (first_error.empty() ? "" : ": " + first_error);
}

}  // namespace

CaseRecord run_case_in_worker(const PlannedCase& pc, const RunOptions& opt, const CaseRecord& planned,
                              const CaseRound& round) {
  const json request = {{"suite", opt.suite_path},
                        {"case", pc.id},
                        {"device", opt.device},
                        {"mode", opt.mode ? json(*opt.mode) : json(nullptr)},
                        {"gap_us", opt.gap_us ? json(*opt.gap_us) : json(nullptr)},
                        {"seed", opt.seed},
                        {"check_only", opt.check_only},
                        {"round", round.index},
                        {"rounds", round.count},
                        {"round_min_samples", round.min_samples}};
  const std::string self = std::filesystem::read_symlink("/proc/self/exe").string();
  SubprocessLimits limits;
  limits.timeout_s = case_timeout_s(pc);
  limits.max_stdout_bytes = 256u << 20;  // raw samples of a long case
  limits.stderr_tail_bytes = 4000;
  const SubprocessResult r = run_subprocess({self, "__worker"}, request.dump(), limits);

  CaseRecord rec = planned;
  if (find_backend(pc.backend)->target() != Target::cpu && opt.device != "cpu") rec.device_index = std::stoi(opt.device);
  if (!r.started) {
    rec.status = CaseStatus::error;
    rec.reason = "cannot start the worker: " + r.error;
    return rec;
  }
  if (r.timed_out) {
    rec.status = CaseStatus::timeout;
    rec.reason = "the worker was killed after " + std::to_string(static_cast<int>(limits.timeout_s)) +
                 " s (case_timeout_s): the case hung";
    rec.stderr_tail = r.err_tail;
    rec.worker_wall_s = r.wall_s;
    return rec;
  }
  if (r.exit_code == 0 && !r.stdout_overflow) {
    try {
      rec = parse_case_json(r.out, "worker of " + pc.id);
      rec.worker_wall_s = r.wall_s;
      if (opt.sanitize && opt.check_only && find_backend(pc.backend)->target() == Target::cuda) {
        const std::string sanitizer = find_compute_sanitizer();
        if (sanitizer.empty()) {
          rec.sanitizer["compute-sanitizer"] = "not found (PATH, /usr/local/cuda/bin): not run";
          return rec;
        }
        for (const std::string tool : {"memcheck", "racecheck"}) {
          bool clean = true;
          rec.sanitizer[tool] = sanitize(sanitizer, tool, self, request.dump(), 10 * limits.timeout_s, &clean);
          if (!clean && rec.status == CaseStatus::ok) {
            rec.status = CaseStatus::check_failed;
            rec.reason = "compute-sanitizer " + tool + ": " + rec.sanitizer[tool];
          }
        }
      }
      return rec;
    } catch (const InputError&) {
      // falls through: a worker that exits 0 without a record is as broken as a crash
    }
  }
  rec.status = CaseStatus::crashed;
  rec.reason = r.signal ? "the worker died of signal " + std::to_string(r.signal) + " (" + strsignal(r.signal) + ")"
                        : "the worker exited with code " + std::to_string(r.exit_code) + " without a case record";
  rec.stderr_tail = r.err_tail;
  rec.worker_wall_s = r.wall_s;
  return rec;
}

int worker_main() {
  try {
    const std::string text{std::istreambuf_iterator<char>(std::cin), std::istreambuf_iterator<char>()};
    const json req = json::parse(text);
    RunOptions opt;
    opt.suite_path = req.at("suite").get<std::string>();
    opt.device = req.at("device").get<std::string>();
    if (!req.at("mode").is_null()) opt.mode = req.at("mode").get<std::string>();
    if (req.contains("gap_us") && !req.at("gap_us").is_null()) opt.gap_us = req.at("gap_us").get<double>();
    opt.seed = req.at("seed").get<std::uint64_t>();
    opt.check_only = req.at("check_only").get<bool>();
    opt.isolate = false;
    CaseRound round;
    round.index = req.value("round", std::uint64_t{0});
    round.count = req.value("rounds", std::uint64_t{1});
    round.min_samples = req.value("round_min_samples", std::uint64_t{0});
    const std::string id = req.at("case").get<std::string>();
    const suite::Suite s = suite::load_suite(opt.suite_path);
    for (const auto& pc : plan_cases(s, std::nullopt)) {
      if (pc.id != id) continue;
      Executors ex = make_executors(opt, {pc});
      CaseRecord rec = make_planned_record(pc);
      execute_case(pc, opt, ex, rec, round);
      std::cout << case_to_json_text(rec) << std::flush;
      return 0;
    }
    std::cerr << "assay worker: case '" << id << "' is not in " << opt.suite_path << "\n";
    return 4;
  } catch (const std::exception& e) {
    std::cerr << "assay worker: " << e.what() << "\n";
    return 4;
  }
}

}  // namespace assay::runner
