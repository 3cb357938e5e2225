#pragma once
// Measuring a point's cases in rounds (suite `rounds` > 1). Under a power cap the SM clock wanders
// over seconds, so two backends measured one after the other see different chips: whichever ran in
// the better stretch wins by it (docs/measurement-notes.md, v13: up to ~1.5% in one test). In rounds,
// each case is measured in `rounds` parts with its budgets shared out, and the point's backends
// alternate between parts, forward then backward (A B, B A, A B, ...). Over each forward/backward
// pair every backend's positions have the same mean, so a drift linear over the point cancels;
// that is why `rounds` is 1 or even. Each case's parts are then merged into one record, its
// samples one round after another.
#include <cstdint>
#include <vector>

#include "core/results.hpp"
#include "measure/criterion.hpp"

namespace assay::runner {

struct CaseRound {
  std::uint64_t index = 0;  // from 0
  std::uint64_t count = 1;
  // Later rounds keep at least as many samples as the case's first round kept (within their own
  // time budget): a round that converged early would otherwise weigh less in the merged median,
  // and the positions would no longer balance. 0: no such floor (the first round).
  std::uint64_t min_samples = 0;
  bool first() const { return index == 0; }
  bool last() const { return index + 1 == count; }
};

// The criterion of one round: the sample counts and the time budgets (min_time_s, timeout_s)
// divided evenly over round.count (a count's remainder to the first rounds, at least 1 each),
// min_samples raised to round.min_samples
// (up to the round's max_samples). The method's warm-up and cool-down are per round, since each
// round starts the case afresh.
measure::Criterion round_criterion(const measure::Criterion& c, const CaseRound& round);

// The order of a point's n cases in round r (from 0): forward in even rounds, backward in odd ones.
std::vector<std::size_t> round_order(std::size_t n, std::uint64_t round);

// One case's record from its rounds' records, in the order they ran. When every round is ok:
// the measurements concatenated (with `round_samples`), telemetry merged, the first round's
// check and the last one's recheck; summary and derived figures are left for the caller to
// compute from the merged samples. Otherwise the first round that is not ok gives the status and
// the reason, with what the rounds before it measured.
CaseRecord merge_rounds(const std::vector<CaseRecord>& parts);

// merge_rounds, then the summary and the derived figures of an ok case computed again over every
// round's samples.
CaseRecord finish_case_rounds(const std::vector<CaseRecord>& parts);

}  // namespace assay::runner
