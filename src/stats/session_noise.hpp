// The noise between sessions, which one session cannot see. Within a session the samples are
// tight, but two sessions of the same code differ by a few percent through the GPU's clock and
// power state; a single-session comparison that ignores this fails a gate on identical code.
// Two remedies: learn the spread from the case's earlier sessions (history), or measure base
// and candidate in alternating rounds so that drift cancels pair by pair (paired rounds).
#pragma once

#include <cstddef>
#include <optional>
#include <vector>

#include "stats/sample_comparison.hpp"

namespace assay::stats {

// Fewer earlier sessions than this give no spread: 4 successive differences are the least from
// which a robust scale means anything.
inline constexpr std::size_t kMinHistorySessions = 5;

// The spread of one session's median around the case's level, on the log scale.
struct SessionSpread {
  double sigma_log = 0;     // standard deviation of a session's log median
  std::size_t sessions = 0;  // how many sessions it was estimated from
};

// From a case's session medians in time order: the root mean square of the successive log
// differences / sqrt(2) (von Neumann's successive-difference estimator). Successive differences
// keep a slow trend out of it; a real step in the history adds one difference, which widens the
// estimate: the gate errs towards AMBIGUOUS, not towards a false alarm. Not a median of the
// differences: GPU session medians are quantised (a 5 us kernel moves in steps of ~1%) and
// some cases have rare slow sessions (a 12% mode in 2 of 10 on the H100); a median ignores both
// and gave false alarms on identical code. nullopt below kMinHistorySessions or for a median
// that is not positive and finite.
std::optional<SessionSpread> session_spread(const std::vector<double>& medians_in_time_order);

// A one-session-per-side comparison (samples or batches method) widened by that spread: the log
// ratio's standard error becomes sqrt(se_within^2 + 2 sigma^2) (each side's session is one draw
// of the session effect), tested with Student's t on sessions - 1 degrees of freedom; se_within
// is read from the comparison's own interval. Method becomes history; the verdict is decided again.
void widen_by_session_spread(SampleComparison& c, const SessionSpread& spread, Better better, const Thresholds& t);

// `assay ab`: base_rounds[r] and cand_rounds[r] are the samples of round r of each side, measured
// next to each other in time. The replicates are d_r = log(median cand_r / median base_r); ratio
// exp(mean d), a paired t-test on R - 1 degrees of freedom and its t interval. The pooled
// statistics (Mann-Whitney, Hodges-Lehmann, Cliff's delta) are filled as compare_samples does.
// Throws std::invalid_argument for fewer than 2 rounds, unequal round counts or a bad sample.
SampleComparison compare_paired_rounds(const Sessions& base_rounds, const Sessions& cand_rounds, Better better,
                                       const Thresholds& t);

// `assay ab --max-rounds`: a case is looked at after R0, R0 + 2, ..., Rmax rounds and measured
// two rounds more while its paired verdict is AMBIGUOUS. Each look tests at alpha / K and
// gives intervals at 1 - (1 - confidence) / K, K = the number of possible looks (Bonferroni):
// the chance that any look of an unchanged case says FASTER or SLOWER stays below alpha, so the
// final verdict, taken at the same thresholds, keeps the fixed-rounds false-alarm rate.
int sequential_looks(std::uint64_t rounds, std::uint64_t max_rounds);  // (max - rounds) / 2 + 1
Thresholds at_each_look(Thresholds t, int looks);

}  // namespace assay::stats
