#pragma once
// Runs a suite: plans its cases, checks each one, measures those that passed, and writes
// one results document. The CLI's run and check subcommands are thin layers over this.
#include <functional>
#include <optional>
#include <string>
#include <vector>

#include "core/error.hpp"
#include "runner/executor.hpp"
#include "core/results.hpp"
#include "runner/rounds.hpp"
#include "suite/suite.hpp"

namespace assay::runner {

struct RunOptions {
  std::string suite_path;
  std::string tag;
  std::string out_dir = "assay-results";
  std::string device = "0";          // a CUDA device index, or "cpu"
  std::optional<std::string> mode;   // overrides the suite's mode
  std::optional<std::uint64_t> rounds;  // overrides every bench's measure.rounds (--rounds)
  std::optional<double> gap_us;         // overrides every bench's measure.gap_us (--gap-us)
  std::optional<std::string> filter; // ECMAScript regex over case ids
  bool check_only = false;
  std::uint64_t seed = 20261122;
  std::vector<std::string> command_line;
  bool isolate = true;  // each case in a worker process (--no-isolate: in this process)
  bool sanitize = false; // check --sanitize: each case's worker also under compute-sanitizer (memcheck, racecheck)
  bool doctor = true;   // print the doctor's one-line summary of the GPU first (--no-doctor)
  int shard_index = 1, shard_count = 1;  // --shard i/n
  std::vector<std::string> devices;      // --devices 0,2 | all: one worker per GPU in parallel
};

// One planned case, before it runs.
struct PlannedCase {
  const suite::Bench* bench;
  std::string backend;
  suite::Point point;
  std::string id;  // bench/backend/dtype/params, params in name order: k=..,m=..,n=..
};

// Where the cases of a run execute: the host always; a CUDA device unless --device cpu.
struct Executors {
  std::unique_ptr<Executor> cpu;
  std::unique_ptr<Executor> cuda;  // in-process runs only
  bool cuda_ok = false;
  int index = -1;
  std::string cuda_skip;  // why CUDA cases are skipped
  DeviceRecord device;    // the run's device
};
Executors make_executors(const RunOptions& opt, const std::vector<PlannedCase>& planned);

// The record of a case before it runs: its identity and parameters.
CaseRecord make_planned_record(const PlannedCase& pc);

// Runs one case (or one round of it) in this process: check (in the first round), measure,
// recheck (in the last); every failure becomes the case's status (skipped, error, crashed for a
// GPU fault), never an exception.
void execute_case(const PlannedCase& pc, const RunOptions& opt, Executors& ex, CaseRecord& rec,
                  const CaseRound& round = {});

// The identity of a case's point (bench, dtype, parameters): what a shard or a device takes whole.
std::string point_key(const PlannedCase& pc);
// The devices of a run: --devices (indices or "all"), else the one --device.
std::vector<std::string> resolve_devices(const RunOptions& opt, const Executors& ex);

// The cases of shard `index` (1-based) of `count`: whole points, dealt round-robin.
std::vector<PlannedCase> shard_cases(std::vector<PlannedCase> planned, int index, int count);

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
