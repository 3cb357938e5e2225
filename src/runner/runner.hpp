#pragma once
// Runs a suite: plans its cases, checks each one, measures those that passed, and writes
// one results document. The CLI's run and check subcommands are thin layers over this.
#include <functional>
#include <optional>
#include <string>
#include <vector>

#include "core/error.hpp"
#include "core/results.hpp"
#include "suite/suite.hpp"

namespace assay::runner {

struct RunOptions {
  std::string suite_path;
  std::string tag;
  std::string out_dir = "assay-results";
  std::string device = "0";          // a CUDA device index, or "cpu"
  std::optional<std::string> mode;   // overrides the suite's mode
  std::optional<std::string> filter; // ECMAScript regex over case ids
  bool check_only = false;
  std::uint64_t seed = 20261122;
  std::vector<std::string> command_line;
};

// One planned case, before it runs.
struct PlannedCase {
  const suite::Bench* bench;
  std::string backend;
  suite::Point point;
  std::string id;  // bench/backend/dtype/params, params in name order: k=..,m=..,n=..
};

// Validates the suite against the registered workloads and backends and expands it.
// Throws InputError naming file:line and field.
std::vector<PlannedCase> plan_cases(const suite::Suite& s, const std::optional<std::string>& filter);

struct RunOutcome {
  ResultsDocument doc;
  std::string results_path;   // empty when nothing was written
  std::string markdown_path;
  ExitCode code = ExitCode::ok;
  std::string skipped_reason;  // when nothing could run
};

// progress(line) is called before and after each case.
RunOutcome run_suite(const RunOptions& options, const std::function<void(const std::string&)>& progress);

// The point's parameters with the check shape's values put in, and the derived axes that the
// check shape does not name evaluated again (so `n = "m"` follows a check shape's m).
std::map<std::string, std::int64_t> check_params(const suite::Bench& b,
                                                 const std::map<std::string, std::int64_t>& point);

// Speedups of each case against the baseline backend of its bench at the same point.
void attach_baseline_ratios(std::vector<CaseRecord>& cases);

// 1 if any case failed its check; else 4 if any errored; else 2 if none ran; else 0.
ExitCode exit_code_for(const std::vector<CaseRecord>& cases);

}  // namespace assay::runner
