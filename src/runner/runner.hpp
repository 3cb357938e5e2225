#pragma once
// Runs a suite: plans its cases (runner/plan.hpp), resolves each one for its round and device
// (runner/resolve.hpp), schedules the resolved cases onto workers and devices, and saves one
// results document (runner/results_file.hpp). The case itself — check, measure, recheck — is
// the case protocol's (verify/case_protocol.hpp). The CLI's run and check are thin layers over this.
#include <functional>
#include <string>
#include <vector>

#include "core/error.hpp"
#include "core/results.hpp"
#include "runner/run_options.hpp"

namespace assay::runner {

struct RunOutcome {
  ResultsDocument doc;
  std::string results_path;   // empty when nothing was written
  std::string markdown_path;
  ExitCode code = ExitCode::ok;
  std::string skipped_reason;  // when nothing could run
  int interrupted_by = 0;      // the signal that stopped the run (SIGINT, SIGTERM); 0: none
};

// progress(line) is called before and after each case.
RunOutcome run_suite(const RunOptions& options, const std::function<void(const std::string&)>& progress);

// Speedups of each case against the baseline backend of its bench at the same point.
void attach_baseline_ratios(std::vector<CaseRecord>& cases);

// 1 if any case failed its check; else 4 if any errored; else 2 if none ran; else 0.
ExitCode exit_code_for(const std::vector<CaseRecord>& cases);

}  // namespace assay::runner
