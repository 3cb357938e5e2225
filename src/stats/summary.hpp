// Descriptive statistics of timing samples: percentiles, moments and a
// distribution-free confidence interval of the median.
#pragma once

#include <cstddef>
#include <memory>
#include <optional>
#include <span>
#include <vector>

namespace assay::stats {

struct Interval {
  double lo = 0, hi = 0;
};

struct Summary {
  std::size_t n = 0;
  double min = 0, max = 0, mean = 0;
  double stdev = 0;  // sample standard deviation (divisor n - 1); 0 when n == 1
  double cv = 0;     // stdev / mean
  double median = 0, p5 = 0, p25 = 0, p75 = 0, p95 = 0, p99 = 0;
  // 95% CI of the median: the union of the order-statistics CI (exact for independent
  // samples; {min, max} when n < 6) and median -/+ the batch-medians half-width
  // (serial_correlation.hpp; valid when samples come in runs; only from 50 samples).
  Interval median_ci;
  double median_ci_rel_halfwidth = 0;  // (hi - lo) / 2 / |median|; +inf when n < 6
  std::optional<double> median_ci_batch_rel_halfwidth;  // the batch part alone; none when n < 50
  std::optional<double> autocorrelation_lag1;           // none when n < 3 or all samples equal
};

// Percentile with linear interpolation between closest ranks (numpy's default,
// R type 7): h = (n - 1) * q / 100, result = s[floor(h)] + frac(h) * (s[floor(h) + 1] - s[floor(h)]).
// q in [0, 100]; `sorted` must be ascending and non-empty (std::invalid_argument otherwise).
double percentile_sorted(std::span<const double> sorted, double q);

// The median (type 7) of unsorted values; non-empty (std::invalid_argument otherwise).
double median_of(std::span<const double> values);

// Confidence interval of the median from order statistics.
//
// Rank rule (1-based ranks, X_(1) <= ... <= X_(n)): the interval is [X_(j), X_(k)] with
// k = n + 1 - j (symmetric), and j is the LARGEST integer in [1, n/2] such that
//   P(j <= B < k) = P(j <= B <= n - j) >= confidence,   B ~ Binomial(n, 1/2),
// i.e. the narrowest symmetric pair that reaches the confidence. In 0-based indices the
// interval is [sorted[j - 1], sorted[n - j]]. The coverage is exact binomial, summed from the
// centre outwards in O(sqrt(n)) steps; a relative slack of 1e-12 absorbs rounding so that a
// coverage exactly equal to `confidence` counts as reached.
// At 95%: n = 6 -> (1, 6), n = 10 -> (2, 9), n = 20 -> (6, 15), n = 100 -> (40, 61).
// When even j = 1 (min, max) falls short (n < 6 at 95%), ci = {min, max} and
// reached_confidence = false. confidence must lie in (0, 1).
struct MedianCi {
  Interval ci;
  bool reached_confidence = false;
};
MedianCi median_ci_sorted(std::span<const double> sorted, double confidence = 0.95);

// Summary of samples in the order they were taken (copies and sorts; the order matters only
// to the batch CI and the autocorrelation). Throws std::invalid_argument on empty input or on
// a non-finite sample (NaN or infinity).
Summary summarize(std::span<const double> samples);

// Incremental median CI for a stopping rule that asks after every new sample: samples are
// kept in an order-statistic tree (O(log n) insertion and rank lookup; a sorted vector's
// insertion moved half the samples each time: 60,000 insertions took 0.16 s, now 0.03 s) and in
// order. The rank part of a query is O(sqrt(n)); the batch part costs O(n), so
// rel_halfwidth() refreshes it only when the count has grown by 1/64 since its last refresh
// (amortised O(1) per sample).
class RunningMedianCi {
 public:
  RunningMedianCi();
  ~RunningMedianCi();
  RunningMedianCi(RunningMedianCi&&) noexcept;
  RunningMedianCi& operator=(RunningMedianCi&&) noexcept;
  void add(double x);  // throws std::invalid_argument on a non-finite sample
  std::size_t size() const;
  double median() const;  // throws std::logic_error when empty
  // Relative half-width of Summary's union CI, the batch part as of its last refresh; +inf
  // when n < 6.
  double rel_halfwidth(double confidence = 0.95) const;
  // The two parts, exact for the current samples.
  double rank_rel_halfwidth(double confidence = 0.95) const;  // +inf when n < 6
  std::optional<double> batch_rel_halfwidth(double confidence = 0.95) const;  // none when n < 50

 private:
  double at_rank(std::size_t rank) const;  // the rank-th smallest sample, 0-based
  MedianCi rank_ci(double confidence) const;  // median_ci_sorted's interval

  struct Ranked;  // the order-statistic tree (summary.cpp)
  std::unique_ptr<Ranked> ranked_;
  std::vector<double> in_order_;
  mutable std::optional<double> batch_cached_;
  mutable std::size_t batch_cached_n_ = 0;
  mutable double batch_cached_confidence_ = 0;
};

}  // namespace assay::stats
