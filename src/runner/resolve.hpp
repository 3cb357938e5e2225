#pragma once
// Resolution: a planned case, the run's options and a round become one verify::ResolvedCase,
// with every override applied here and nowhere else (--mode, --gap-us, --rounds, the rounds'
// shares of the budgets, the seeds). The worker of an isolated case receives the result.
#include <cstdint>
#include <string>

#include "runner/plan.hpp"
#include "runner/rounds.hpp"
#include "runner/run_options.hpp"
#include "runner/tuning_table.hpp"
#include "verify/resolved_case.hpp"

namespace assay::runner {

// The suite's settings as the measure layer's types (no override applied).
measure::Method method_of(const suite::MeasureConfig& m);
measure::Criterion criterion_of(const suite::MeasureConfig& m);

// How many rounds the cases of `pc`'s point run in: 1 when only checking, else --rounds or
// the bench's measure.rounds.
std::uint64_t rounds_of(const PlannedCase& pc, const RunOptions& opt);

// The --tuning table's entry for case `pc` (nullptr: no table, or none of its classes takes the
// case, which then runs as planned).
const TuningEntry* tuning_entry(const PlannedCase& pc, const RunOptions& opt);

// Case `pc`, round `round`, on `device` ("0", ... or "cpu"): a tuned case runs as its entry's
// backend (ResolvedCase::run_as).
verify::ResolvedCase resolve_case(const PlannedCase& pc, const RunOptions& opt, const CaseRound& round,
                                  const std::string& device);

// The limit of one isolated case's worker: the suite's case_timeout_s, or derived from the
// budgets (in-process backends: 3 x timeout_s + 60 s; adapters: 2 x adapter_timeout_s + 30 s).
double case_timeout_s(const PlannedCase& pc);

}  // namespace assay::runner
