#include "stats/rank_tests.hpp"

#include <algorithm>
#include <cmath>
#include <limits>
#include <stdexcept>

#include "stats/distributions.hpp"

namespace assay::stats {
namespace {

std::vector<double> sorted_copy(std::span<const double> v) {
  if (v.empty()) throw std::invalid_argument("rank test of an empty sample");
  std::vector<double> s(v.begin(), v.end());
  std::sort(s.begin(), s.end());
  return s;
}

// sum(t^3 - t) over the groups of equal values in the pooled sample.
double tie_term(const std::vector<double>& x, const std::vector<double>& y) {
  std::vector<double> pooled(x);
  pooled.insert(pooled.end(), y.begin(), y.end());
  std::sort(pooled.begin(), pooled.end());
  double sum = 0;
  for (std::size_t i = 0; i < pooled.size();) {
    std::size_t j = i;
    while (j < pooled.size() && pooled[j] == pooled[i]) ++j;
    const double t = static_cast<double>(j - i);
    sum += t * t * t - t;
    i = j;
  }
  return sum;
}

// Standard deviation of U under the null hypothesis, with the tie correction.
double u_sigma(double m, double n, double ties) {
  const double total = m + n;
  const double var = m * n / 12.0 * ((total + 1.0) - ties / (total * (total - 1.0)));
  return var > 0 ? std::sqrt(var) : 0.0;
}

bool use_exact(std::size_t m, std::size_t n, double ties) {
  return ties == 0 && m <= kMannWhitneyExactMaxSize && n <= kMannWhitneyExactMaxSize;
}

PairCounts pair_counts_sorted(const std::vector<double>& x, const std::vector<double>& y) {
  PairCounts c;
  std::size_t lt = 0, le = 0;  // #(y < x_i) and #(y <= x_i); both only grow with i
  for (double xi : x) {
    while (lt < y.size() && y[lt] < xi) ++lt;
    if (le < lt) le = lt;
    while (le < y.size() && y[le] <= xi) ++le;
    c.greater += static_cast<double>(lt);
    c.equal += static_cast<double>(le - lt);
    c.less += static_cast<double>(y.size() - le);
  }
  return c;
}

// #(y_j - x_i <= d). For a fixed i the differences grow with j, and for a fixed j they shrink
// as i grows, so the boundary index only moves right: one pass over both samples.
double count_differences_at_most(const std::vector<double>& x, const std::vector<double>& y, double d) {
  double count = 0;
  std::size_t j = 0;
  for (double xi : x) {
    while (j < y.size() && y[j] - xi <= d) ++j;
    count += static_cast<double>(j);
  }
  return count;
}

// The smallest difference y_j - x_i greater than `bound`.
double smallest_difference_above(const std::vector<double>& x, const std::vector<double>& y, double bound) {
  double best = std::numeric_limits<double>::infinity();
  std::size_t j = 0;
  for (auto i = x.size(); i-- > 0;) {  // as x_i shrinks, the first j with y_j - x_i > bound moves left
    while (j > 0 && y[j - 1] - x[i] > bound) --j;
    while (j < y.size() && y[j] - x[i] <= bound) ++j;
    if (j < y.size()) best = std::min(best, y[j] - x[i]);
  }
  return best;
}

// Lower rank k of the Moses interval (see the header).
double moses_rank(std::size_t m, std::size_t n, double ties, double confidence) {
  const double tail = (1.0 - confidence) / 2.0;
  const double mn = static_cast<double>(m) * static_cast<double>(n);
  if (use_exact(m, n, ties)) {
    const auto pmf = mann_whitney_null_pmf(m, n);
    double cdf = 0;  // P(U <= k - 1)
    std::size_t k = 0;
    while (k < pmf.size() && cdf + pmf[k] <= tail * (1.0 + 1e-12)) cdf += pmf[k++];
    return static_cast<double>(k);  // 0: no rank reaches the confidence
  }
  const double z = normal_quantile(1.0 - tail);
  return std::max(0.0, std::floor(mn / 2.0 - z * u_sigma(static_cast<double>(m), static_cast<double>(n), ties)));
}

}  // namespace

PairCounts pair_counts(std::span<const double> x, std::span<const double> y) {
  return pair_counts_sorted(sorted_copy(x), sorted_copy(y));
}

std::vector<double> mann_whitney_null_pmf(std::size_t m, std::size_t n) {
  // Count the ways to choose which m of the N = m + n ranks belong to x, by U. When the item
  // of rank r is the j-th chosen one, r - j items of y lie below it and it adds r - j to U.
  // ways[j][u]: choices of j items among the ranks seen so far with partial U = u.
  const std::size_t total = m + n, max_u = m * n;
  std::vector<std::vector<double>> ways(m + 1, std::vector<double>(max_u + 1, 0.0));
  ways[0][0] = 1.0;
  for (std::size_t r = 1; r <= total; ++r) {
    const std::size_t j_hi = std::min(r, m);
    const std::size_t j_lo = r > n ? r - n : 1;  // at most n items of y can precede
    for (std::size_t j = j_hi; j >= j_lo && j >= 1; --j) {
      const std::size_t add = r - j;
      auto& to = ways[j];
      const auto& from = ways[j - 1];
      for (std::size_t u = max_u + 1; u-- > add;) to[u] += from[u - add];
    }
  }
  std::vector<double> pmf = ways[m];
  double sum = 0;
  for (double w : pmf) sum += w;
  for (double& p : pmf) p /= sum;
  return pmf;
}

MannWhitney mann_whitney(std::span<const double> x_in, std::span<const double> y_in) {
  const auto x = sorted_copy(x_in), y = sorted_copy(y_in);
  const PairCounts c = pair_counts_sorted(x, y);
  const double m = static_cast<double>(x.size()), n = static_cast<double>(y.size());
  const double ties = tie_term(x, y);
  MannWhitney r;
  r.u = c.greater + c.equal / 2.0;
  if (use_exact(x.size(), y.size(), ties)) {
    r.exact = true;
    const auto pmf = mann_whitney_null_pmf(x.size(), y.size());
    const auto u = static_cast<std::size_t>(std::llround(r.u));
    double lower = 0, upper = 0;  // P(U <= u), P(U >= u)
    for (std::size_t i = 0; i < pmf.size(); ++i) (i <= u ? lower : upper) += pmf[i];
    upper += pmf[u];
    r.p_value = std::min(1.0, 2.0 * std::min(lower, upper));
    return r;
  }
  const double sigma = u_sigma(m, n, ties);
  if (sigma == 0) return r;  // every value equal: no evidence of a difference
  const double z = std::max(0.0, std::abs(r.u - m * n / 2.0) - 0.5) / sigma;
  r.p_value = std::min(1.0, 2.0 * (1.0 - normal_cdf(z)));
  return r;
}

double cliffs_delta(std::span<const double> x, std::span<const double> y) {
  const PairCounts c = pair_counts(x, y);
  return (c.greater - c.less) / (static_cast<double>(x.size()) * static_cast<double>(y.size()));
}

double kth_pairwise_difference(std::span<const double> xs, std::span<const double> ys, double k) {
  const std::vector<double> x(xs.begin(), xs.end()), y(ys.begin(), ys.end());
  const double total = static_cast<double>(x.size()) * static_cast<double>(y.size());
  if (x.empty() || y.empty() || !(k >= 1 && k <= total))
    throw std::invalid_argument("kth_pairwise_difference: k out of range");
  // Invariant: count(lo) < k <= count(hi). lo starts just below the smallest difference.
  double hi = y.back() - x.front();
  double lo = std::nextafter(y.front() - x.back(), -std::numeric_limits<double>::infinity());
  for (int step = 0; step < 2000; ++step) {
    const double mid = lo + (hi - lo) / 2.0;
    if (mid <= lo || mid >= hi) break;
    (count_differences_at_most(x, y, mid) >= k ? hi : lo) = mid;
  }
  // Every difference in (lo, hi] is the same double now: the k-th smallest.
  return smallest_difference_above(x, y, lo);
}

ShiftEstimate hodges_lehmann_shift(std::span<const double> x_in, std::span<const double> y_in,
                                   double confidence) {
  if (!(confidence > 0.0 && confidence < 1.0))
    throw std::invalid_argument("hodges_lehmann_shift: confidence must lie in (0, 1)");
  const auto x = sorted_copy(x_in), y = sorted_copy(y_in);
  const double mn = static_cast<double>(x.size()) * static_cast<double>(y.size());
  ShiftEstimate r;
  // The median of the mn differences: the middle one, or the mean of the two middle ones.
  const double mid = std::floor((mn + 1.0) / 2.0);
  r.shift = kth_pairwise_difference(x, y, mid);
  if (std::fmod(mn, 2.0) == 0.0) r.shift = (r.shift + kth_pairwise_difference(x, y, mid + 1.0)) / 2.0;
  const double k = std::min(moses_rank(x.size(), y.size(), tie_term(x, y), confidence), std::ceil(mn / 2.0));
  const double inf = std::numeric_limits<double>::infinity();
  r.ci = k < 1.0 ? Interval{-inf, inf} : Interval{kth_pairwise_difference(x, y, k), kth_pairwise_difference(x, y, mn + 1.0 - k)};
  return r;
}

}  // namespace assay::stats
