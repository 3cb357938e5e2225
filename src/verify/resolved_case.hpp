#pragma once
// A resolved case (DESIGN.md "Core concepts"): one case with every setting decided — the point,
// the check policy, the measurement method and criterion with every override applied, the input
// seeds, the backend and the round. The runner resolves it (runner/resolve.hpp) and hands it to
// the case protocol in this process, or as JSON to a worker process, which never reads the suite.
#include <cstdint>
#include <string>

#include "core/results.hpp"
#include "measure/criterion.hpp"
#include "measure/method.hpp"
#include "verify/tolerance.hpp"
#include "workloads/workload.hpp"

namespace assay::verify {

struct CheckPolicy {
  bool enabled = true;
  bool recheck = true;  // check the output of a timed call again, after timing
  Tolerance tolerance;
  std::int64_t sampled_rows = 16;  // rows checked in fp64 when a problem is too large for every row
};

struct ResolvedCase {
  std::string id;  // bench/backend/dtype/params
  std::string bench, workload, backend, dtype, baseline;
  Params params;        // the measured point
  Params check_params;  // the point at the check shape (derived axes evaluated there)
  CheckPolicy check;
  measure::Method method;
  measure::Criterion criterion;  // of this round: the budgets shared out over the rounds
  std::uint64_t check_seed = 0, measure_seed = 0;  // the same for every backend of a point
  std::uint64_t round = 0, rounds = 1;  // checked in the first round, rechecked in the last
  bool check_only = false;
  // assay profile: after the check, this many calls inside the profiler's window (no timing);
  // 0: a normal case.
  std::uint64_t profile_calls = 0;
  // assay run --tuning: the backend that runs the case (a pinned configuration of `backend`, from
  // the tuning table); empty: `backend` itself. The record keeps `backend`.
  std::string run_as;
  const std::string& runner_backend() const { return run_as.empty() ? backend : run_as; }
  std::string device = "0";          // a CUDA device index, or "cpu"
  double adapter_timeout_s = 600;    // one adapter call, start-up and compiles included

  bool first_round() const { return round == 0; }
  bool last_round() const { return round + 1 == rounds; }
};

std::string to_json_text(const ResolvedCase& rc);
// Throws InputError naming `origin` and the field on a malformed document.
ResolvedCase parse_resolved_case(const std::string& text, const std::string& origin);

// The record of a case before it runs: its identity and parameters.
CaseRecord planned_record(const ResolvedCase& rc);

}  // namespace assay::verify
