// Compares the samples of one case between a base and a candidate run and reaches a verdict.
// The rules are in decide_verdict below and in docs/compare.md; every threshold is a field of
// Thresholds, so the CLI can set it.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "stats/summary.hpp"

namespace assay::stats {

// Which way is better for a metric: times are better lower, throughputs higher.
enum class Better { lower, higher };

enum class Verdict { faster, slower, same, ambiguous, new_case, gone, failed };
std::string verdict_name(Verdict v);  // "FASTER", "SLOWER", ..., "NEW", "GONE", "FAILED"

// "0.042", "3.1e-05"; "< 1e-16" below that, where the normal tail is rounding noise.
std::string p_value_text(double p);

struct Thresholds {
  double floor = 0.02;       // practical floor: a change smaller than 2% is never FASTER/SLOWER
  double alpha = 0.01;       // false-alarm rate: a verdict needs p < alpha
  double confidence = 0.95;  // of every confidence interval
  int resamples = 2000;      // bootstrap resamples of the ratio of medians
  std::uint64_t seed = 20261122;  // bootstrap seed; the caller mixes in the case's identity
};

// One side of a comparison: the samples of each session (one run of the suite).
using Sessions = std::vector<std::vector<double>>;

// What the verdict stands on.
//   samples   one session on each side: the samples are the replicates. Ratio of medians with
//             a seeded bootstrap CI; two-sided Mann-Whitney p.
//   batches   one session on each side, but the samples of a side come in runs (its lag-1
//             autocorrelation exceeds kSerialCorrelationZ / sqrt(n), as under a power cap; both
//             sides >= 50 samples): the 10 contiguous batch medians of each side are the
//             replicates (serial_correlation.hpp), tested as sessions are. The samples method
//             would count each run of a clock mode as many independent samples.
//   sessions  at least three sessions together (e.g. 1 + 2, 3 + 3): the sessions are the
//             replicates, so that a shift between runs (clock state, other load) counts as
//             noise. Ratio of the geometric means of the session medians; Student's t-test
//             (pooled variance) on the log session medians and its t interval.
//   history   one session on each side, widened by the between-session spread that earlier
//             sessions of the case show (widen_by_session_spread, session_noise.hpp).
//   paired    `assay ab`: base and candidate measured in alternating rounds (A B B A ...); the
//             replicates are the log ratios of the rounds' medians, pair by pair, so that drift
//             slower than a round cancels. Paired t-test (compare_paired_rounds).
enum class Method { samples, batches, sessions, history, paired };
std::string method_name(Method m);  // "samples", "batches", "sessions", "history", "paired"

// Independent samples give a lag-1 autocorrelation r1 ~ N(0, 1/n); r1 > 3.09 / sqrt(n) is
// beyond the one-sided 0.999 quantile, so the batches method replaces the samples method.
inline constexpr double kSerialCorrelationZ = 3.09;

struct SampleComparison {
  Method method = Method::samples;
  std::size_t base_n = 0, cand_n = 0;                // samples over all sessions
  std::size_t base_sessions = 0, cand_sessions = 0;
  double base_median = 0, cand_median = 0;           // medians (samples) or geometric means of batch or session medians
  double ratio = 1;                                  // cand_median / base_median
  Interval ratio_ci{1, 1};                           // bootstrap (samples) or t interval (batches, sessions)
  double p_value = 1;                                // of the test the verdict uses
  std::string test;                                  // "Mann-Whitney exact", "Mann-Whitney normal", "t-test of 10+10 batch medians", "t-test of 3+3 session medians"
  double mann_whitney_p = 1;                         // two-sided, all samples pooled (also in session mode)
  bool mann_whitney_exact = false;
  double hl_ratio = 1;                               // exp(Hodges-Lehmann shift of log values), pooled
  Interval hl_ratio_ci{1, 1};                        // exp(Moses CI of that shift)
  double cliffs_delta = 0;                           // cand against base, pooled; > 0: cand values larger
  // The samples' timer step relative to the median (relative_timer_step; 0 off a grid): a median
  // on the grid is off by up to a step, so the floor is judged with the ratio a step closer to 1.
  double timer_step = 0;
  bool too_few = false;                              // under kMinSamplesForInterval a side (samples method)
  Verdict verdict = Verdict::ambiguous;
  std::string why;                                   // one line, for humans
};

// Below this many samples a side the bootstrap interval of one session is no interval (with one
// sample it has zero width; at 2-4 it missed a 3% change in 8-35% of trials): AMBIGUOUS.
inline constexpr std::size_t kMinSamplesForInterval = 5;

// The verdict from the ratio, its CI and the p-value, oriented by `better`.
// Let s be the slowdown: the ratio for lower-is-better metrics, 1 / ratio for higher-is-better,
// with its CI [s_lo, s_hi]. Significant means p < alpha and the CI excludes 1.
//   SLOWER     significant and s > 1 + floor
//   FASTER     significant and s < 1 / (1 + floor)
//   SAME       significant but within the floor, or not significant and the whole CI lies
//              within [1 / (1 + floor), 1 + floor]
//   AMBIGUOUS  not significant and the CI reaches beyond the floor: too noisy to tell
void decide_verdict(SampleComparison& c, Better better, const Thresholds& t);

// The timer's step in the samples of both sides, as a fraction of the smaller side's median: the
// smallest gap between two distinct sample values (CUDA events tick in 32 ns steps on an H100; a
// host clock in 1 ns), when every value lies on that grid. A median of quantised samples is itself
// on that grid, so replicates (session, batch or round medians) can agree exactly where the true
// values differ: their spread is floored at what rounding to the step alone gives (docs/compare.md,
// "Replicates on a timer's grid"). 0 when every sample has one value, or the values are not on one
// grid (continuous values, whose smallest gap is no step).
double relative_timer_step(const std::vector<double>& base, const std::vector<double>& cand);

// All statistics and the verdict. Throws std::invalid_argument on an empty side or session, a
// non-positive or non-finite sample (log values are taken).
SampleComparison compare_samples(const Sessions& base, const Sessions& cand, Better better,
                                 const Thresholds& t);

// The verdict of a case judged on time and on cycles (docs/compare.md, "Time and cycles"): SLOWER
// or FASTER when either says so and the other does not say the opposite (then AMBIGUOUS), SAME when
// either says SAME and neither says more, otherwise AMBIGUOUS. A verdict without timing (NEW, GONE,
// FAILED) is time's. Cycles sees a change of work through the power cap's clock swings; time
// sees what clock a change costs.
Verdict combine_time_and_cycles(Verdict time, Verdict cycles);

}  // namespace assay::stats
