// Compares the samples of one case between a base and a candidate run and reaches a verdict.
// The rules are in decide_verdict below and in docs/compare.md; every threshold is a field of
// Thresholds, so the CLI can set it.
#pragma once

#include <cstdint>
#include <string>

#include "stats/bootstrap.hpp"
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
  double alpha = 0.01;       // false-alarm rate: a verdict needs Mann-Whitney p < alpha
  double confidence = 0.95;  // of every confidence interval
  int resamples = 2000;      // bootstrap resamples of the ratio of medians
  std::uint64_t seed = 20261122;  // bootstrap seed; the caller mixes in the case's identity
};

struct SampleComparison {
  std::size_t base_n = 0, cand_n = 0;                // samples over all sessions
  std::size_t base_sessions = 0, cand_sessions = 0;
  double base_median = 0, cand_median = 0;           // pooled over sessions
  double ratio = 1;                                  // cand_median / base_median
  Interval ratio_ci{1, 1};                           // seeded two-level bootstrap
  double hl_ratio = 1;                               // exp(Hodges-Lehmann shift of log values)
  Interval hl_ratio_ci{1, 1};                        // exp(Moses CI of that shift)
  double p_value = 1;                                // two-sided Mann-Whitney, pooled samples
  bool p_exact = false;
  double cliffs_delta = 0;                           // cand against base; > 0: cand values larger
  Verdict verdict = Verdict::ambiguous;
  std::string why;                                   // one line, for humans
};

// The verdict from the ratio of medians, its CI and the p-value, oriented by `better`.
// Let s be the slowdown: the ratio for lower-is-better metrics, 1 / ratio for higher-is-better,
// with its CI [s_lo, s_hi]. Significant means p < alpha and the CI excludes 1.
//   SLOWER     significant and s > 1 + floor
//   FASTER     significant and s < 1 / (1 + floor)
//   SAME       significant but within the floor, or not significant and the whole CI lies
//              within [1 / (1 + floor), 1 + floor]
//   AMBIGUOUS  not significant and the CI reaches beyond the floor: too noisy to tell
void decide_verdict(SampleComparison& c, Better better, const Thresholds& t);

// All statistics and the verdict. Throws std::invalid_argument on an empty side, a
// non-positive or non-finite sample (log values are taken).
SampleComparison compare_samples(const Sessions& base, const Sessions& cand, Better better,
                                 const Thresholds& t);

}  // namespace assay::stats
