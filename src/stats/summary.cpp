#include "stats/summary.hpp"

#include <algorithm>
#include <cmath>
#include <limits>
#include <numbers>
#include <numeric>
#include <stdexcept>
#include <utility>
#include <vector>

#include <ext/pb_ds/assoc_container.hpp>
#include <ext/pb_ds/tree_policy.hpp>

#include "stats/serial_correlation.hpp"

namespace assay::stats {
namespace {

constexpr double kInf = std::numeric_limits<double>::infinity();

// stirlerr(x) = ln(x!) - [(x + 1/2) ln x - x + ln(sqrt(2 pi))], the error of Stirling's
// formula. Directly from lgamma where the cancellation is harmless, else the asymptotic
// series (truncation error < 1e-16 for x > 15), as in Loader's binomial algorithm.
double stirlerr(double x) {
  if (x <= 15.0) {
    return std::lgamma(x + 1.0) - (x + 0.5) * std::log(x) + x -
           0.5 * std::log(2.0 * std::numbers::pi);
  }
  constexpr double s0 = 1.0 / 12, s1 = 1.0 / 360, s2 = 1.0 / 1260, s3 = 1.0 / 1680,
                   s4 = 1.0 / 1188;
  const double x2 = x * x;
  return (s0 - (s1 - (s2 - (s3 - s4 / x2) / x2) / x2) / x2) / x;
}

// C(2m, m) / 4^m, the central term of Binomial(2m, 1/2), with relative error ~1e-15
// for every m (lgamma differences would lose ~1e-9 at m = 5e5).
double central_binomial_pmf_even(std::size_t m) {
  if (m == 0) return 1.0;
  const double md = static_cast<double>(m);
  return std::exp(stirlerr(2.0 * md) - 2.0 * stirlerr(md)) / std::sqrt(std::numbers::pi * md);
}

// P(B = floor(n/2)) for B ~ Binomial(n, 1/2).
double central_binomial_pmf(std::size_t n) {
  const std::size_t m = n / 2;
  if (n % 2 == 0) return central_binomial_pmf_even(m);
  // C(2m+1, m) / 2^(2m+1) = C(2m, m) / 4^m * (2m+1) / (2 (m+1)).
  return central_binomial_pmf_even(m) * static_cast<double>(n) /
         (2.0 * static_cast<double>(m + 1));
}

// Lower rank j (1-based) of the symmetric median CI [X_(j), X_(n+1-j)]: the largest j in
// [1, n/2] with P(j <= B <= n - j) >= confidence. 0 when no j reaches it.
// Sums the pmf from the centre outwards, so the cost is O(sqrt(n)) and the terms are
// added in decreasing order.
std::size_t median_ci_lower_rank(std::size_t n, double confidence) {
  if (n < 2) return 0;
  const double nd = static_cast<double>(n);
  const double target = confidence * (1.0 - 1e-12);
  std::size_t j = n / 2;
  double pmf = central_binomial_pmf(n);                   // P(B = j)
  double mass = (n % 2 == 0) ? pmf : 2.0 * pmf;           // P(j <= B <= n - j)
  while (mass < target) {
    if (j == 1) return 0;
    pmf *= static_cast<double>(j) / (nd - static_cast<double>(j) + 1.0);  // P(B = j - 1)
    --j;
    mass += 2.0 * pmf;
  }
  return j;
}

void check_confidence(double confidence) {
  if (!(confidence > 0.0 && confidence < 1.0)) {
    throw std::invalid_argument("median CI: confidence must lie in (0, 1)");
  }
}

// half / |median|, 0 for a zero half-width whatever the median.
double relative(double half, double median) {
  if (half == 0.0) return 0.0;
  if (median == 0.0) return kInf;
  return half / std::abs(median);
}

// (hi - lo) / 2 / |median|; +inf when the confidence was not reached.
double relative_halfwidth(const MedianCi& m, double median) {
  if (!m.reached_confidence) return kInf;
  return relative((m.ci.hi - m.ci.lo) / 2.0, median);
}

// The CI of record: the rank CI widened to median -/+ the batch half-width where that is wider.
MedianCi union_with_batch(MedianCi rank, double median, const std::optional<double>& batch_half) {
  if (batch_half) {
    rank.ci.lo = std::min(rank.ci.lo, median - *batch_half);
    rank.ci.hi = std::max(rank.ci.hi, median + *batch_half);
  }
  return rank;
}

// The type-7 percentile q of n sorted values, the k-th (0-based) read through at(k): for a
// sorted vector and for RunningMedianCi's tree alike.
template <typename At>
double percentile_of(std::size_t n, double q, At&& at) {
  const double h = static_cast<double>(n - 1) * q / 100.0;
  const auto lo = static_cast<std::size_t>(std::floor(h));
  if (lo + 1 >= n) return at(n - 1);
  const double frac = h - static_cast<double>(lo);
  const double below = at(lo);
  return below + frac * (at(lo + 1) - below);
}

// median_ci_sorted's interval of n sorted values read through at(k).
template <typename At>
MedianCi median_ci_of(std::size_t n, double confidence, At&& at) {
  const std::size_t j = median_ci_lower_rank(n, confidence);
  if (j == 0) return {{at(0), at(n - 1)}, false};
  return {{at(j - 1), at(n - j)}, true};
}

}  // namespace

double median_of(std::span<const double> values) {
  std::vector<double> sorted(values.begin(), values.end());
  std::sort(sorted.begin(), sorted.end());
  return percentile_sorted(sorted, 50);
}

double percentile_sorted(std::span<const double> sorted, double q) {
  if (sorted.empty()) throw std::invalid_argument("percentile of an empty sample");
  if (!(q >= 0.0 && q <= 100.0)) throw std::invalid_argument("percentile: q must lie in [0, 100]");
  return percentile_of(sorted.size(), q, [&](std::size_t k) { return sorted[k]; });
}

MedianCi median_ci_sorted(std::span<const double> sorted, double confidence) {
  if (sorted.empty()) throw std::invalid_argument("median CI of an empty sample");
  check_confidence(confidence);
  return median_ci_of(sorted.size(), confidence, [&](std::size_t k) { return sorted[k]; });
}

Summary summarize(std::span<const double> samples) {
  if (samples.empty()) throw std::invalid_argument("summary of an empty sample");
  std::vector<double> s(samples.begin(), samples.end());
  for (double x : s) {
    if (!std::isfinite(x)) throw std::invalid_argument("summary: sample is NaN or infinite");
  }
  std::sort(s.begin(), s.end());

  Summary r;
  r.n = s.size();
  r.min = s.front();
  r.max = s.back();
  const double nd = static_cast<double>(r.n);
  r.mean = std::accumulate(s.begin(), s.end(), 0.0) / nd;
  if (r.n > 1) {
    double ss = 0.0;
    for (double x : s) ss += (x - r.mean) * (x - r.mean);
    r.stdev = std::sqrt(ss / (nd - 1.0));
  }
  r.cv = (r.mean != 0.0) ? r.stdev / r.mean : (r.stdev == 0.0 ? 0.0 : kInf);
  r.median = percentile_sorted(s, 50);
  r.p5 = percentile_sorted(s, 5);
  r.p25 = percentile_sorted(s, 25);
  r.p75 = percentile_sorted(s, 75);
  r.p95 = percentile_sorted(s, 95);
  r.p99 = percentile_sorted(s, 99);
  const auto half = batch_median_ci_halfwidth(samples, 0.95);
  MedianCi ci = union_with_batch(median_ci_sorted(s, 0.95), r.median, half);
  // The batch part is a symmetric t interval: with a few far-off batches it can reach below zero,
  // which no median of times (or of any non-negative data) can be. The record says 0 there.
  if (r.min >= 0.0) ci.ci.lo = std::max(ci.ci.lo, 0.0);
  r.median_ci = ci.ci;
  r.median_ci_rel_halfwidth = relative_halfwidth(ci, r.median);
  if (half) r.median_ci_batch_rel_halfwidth = relative(*half, r.median);
  r.autocorrelation_lag1 = lag1_autocorrelation(samples);
  return r;
}

// libstdc++'s policy-based red-black tree with subtree sizes: find_by_order(k) in O(log n).
// Keys are (sample, arrival index), so equal samples are kept apart.
struct RunningMedianCi::Ranked {
  __gnu_pbds::tree<std::pair<double, std::size_t>, __gnu_pbds::null_type, std::less<>, __gnu_pbds::rb_tree_tag,
                   __gnu_pbds::tree_order_statistics_node_update>
      tree;
};

RunningMedianCi::RunningMedianCi() : ranked_(std::make_unique<Ranked>()) {}
RunningMedianCi::~RunningMedianCi() = default;
RunningMedianCi::RunningMedianCi(RunningMedianCi&&) noexcept = default;
RunningMedianCi& RunningMedianCi::operator=(RunningMedianCi&&) noexcept = default;

void RunningMedianCi::add(double x) {
  if (!std::isfinite(x)) throw std::invalid_argument("RunningMedianCi: sample is NaN or infinite");
  ranked_->tree.insert({x, in_order_.size()});
  in_order_.push_back(x);
}

std::size_t RunningMedianCi::size() const { return in_order_.size(); }

double RunningMedianCi::at_rank(std::size_t rank) const { return ranked_->tree.find_by_order(rank)->first; }

double RunningMedianCi::median() const {
  if (in_order_.empty()) throw std::logic_error("RunningMedianCi: median of no samples");
  return percentile_of(size(), 50, [this](std::size_t k) { return at_rank(k); });
}

double RunningMedianCi::rank_rel_halfwidth(double confidence) const {
  check_confidence(confidence);
  if (in_order_.empty()) return kInf;
  return relative_halfwidth(rank_ci(confidence), median());
}

MedianCi RunningMedianCi::rank_ci(double confidence) const {
  return median_ci_of(size(), confidence, [this](std::size_t k) { return at_rank(k); });
}

std::optional<double> RunningMedianCi::batch_rel_halfwidth(double confidence) const {
  const auto half = batch_median_ci_halfwidth(in_order_, confidence);
  if (!half) return std::nullopt;
  return relative(*half, median());
}

double RunningMedianCi::rel_halfwidth(double confidence) const {
  check_confidence(confidence);
  if (in_order_.empty()) return kInf;
  const std::size_t n = size();
  if (confidence != batch_cached_confidence_ || n >= batch_cached_n_ + batch_cached_n_ / 64 + 1) {
    batch_cached_ = batch_median_ci_halfwidth(in_order_, confidence);
    batch_cached_n_ = n;
    batch_cached_confidence_ = confidence;
  }
  const double m = median();
  return relative_halfwidth(union_with_batch(rank_ci(confidence), m, batch_cached_), m);
}

}  // namespace assay::stats
