#include "stats/change_points.hpp"

#include <algorithm>
#include <limits>
#include <cmath>
#include <numeric>
#include <set>

#include "stats/distributions.hpp"

namespace assay::stats {
namespace {

// A level is at least two runs: one run (on a busy machine, say) is no new level, and a split
// that leaves one run on a side is not proposed.
constexpr std::size_t kMinSegment = 2;

bool constant(std::span<const double> v) {
  return std::all_of(v.begin(), v.end(), [&](double x) { return x == v.front(); });
}

double mean_of(std::span<const double> v) {
  return std::accumulate(v.begin(), v.end(), 0.0) / static_cast<double>(v.size());
}

// The t-test of the point at `index` against its neighbours among `sorted_points` (or the
// series ends).
ChangePoint evaluate(std::span<const double> series, std::size_t index, const std::vector<std::size_t>& sorted_points) {
  std::size_t start = 0, end = series.size();
  for (std::size_t p : sorted_points) {
    if (p < index) start = p;
    if (p > index) {
      end = p;
      break;
    }
  }
  const auto before = series.subspan(start, index - start), after = series.subspan(index, end - index);
  ChangePoint cp;
  cp.index = index;
  cp.mean_before = mean_of(before);
  cp.mean_after = mean_of(after);
  cp.magnitude = cp.mean_before != 0 ? (cp.mean_after - cp.mean_before) / cp.mean_before : 0.0;
  if (before.size() < kMinSegment || after.size() < kMinSegment) return cp;  // p = 1
  cp.p_value = student_t_test_p(before, after);
  // Two constant sides give p = 0 whatever their sizes: quantised medians (equal to the ns) make
  // that common, so it takes three runs a side to call such a step.
  if (constant(before) && constant(after) && std::min(before.size(), after.size()) < 3) cp.p_value = 1;
  return cp;
}

// The split of x[lo, hi) with the largest E-divisive statistic over every left part
// x[lo, tau) and right part x[tau, kappa), kappa <= hi (Matteson & James; Otava's calculator).
// A part of one point has no within-part term. tau = 0 when the segment has under two points.
struct Split {
  std::size_t tau = 0;
  double q = -std::numeric_limits<double>::infinity();
};
Split best_split(std::span<const double> x, std::size_t lo, std::size_t hi) {
  Split best;
  double left = 0;  // sum of |x_i - x_j| over lo <= i < j < tau
  for (std::size_t tau = lo + 1; tau < hi; ++tau) {
    for (std::size_t i = lo; i + 1 < tau; ++i) left += std::abs(x[i] - x[tau - 1]);
    const double m = static_cast<double>(tau - lo);
    double between = 0, right = 0;
    for (std::size_t kappa = tau + 1; kappa <= hi; ++kappa) {
      const double y = x[kappa - 1];  // joins the right part
      for (std::size_t i = lo; i < tau; ++i) between += std::abs(x[i] - y);
      for (std::size_t j = tau; j + 1 < kappa; ++j) right += std::abs(x[j] - y);
      const double k = static_cast<double>(kappa - tau);
      if (tau - lo < kMinSegment || kappa - tau < kMinSegment) continue;  // the sums still grow
      double q = 2.0 / (m + k) * between;
      if (m > 1) q -= 2.0 * k / ((m + k) * (m - 1)) * left;
      if (k > 1) q -= 2.0 * m / ((m + k) * (k - 1)) * right;
      if (q > best.q) best = {tau, q};
    }
  }
  return best;
}

// The size of a change as it is reported (|after / before - 1|), which --min-change is held to.
// (Otava takes the larger of the forward and backward changes, so a 9.5% drop would pass a 10%
// floor while printed as -9.5%.)
double symmetric_magnitude(const ChangePoint& cp) { return std::abs(cp.magnitude); }
// E-divisive over one window: indices relative to the window.
std::vector<std::size_t> e_divisive(std::span<const double> x, double max_p_value) {
  std::vector<std::size_t> points;
  for (;;) {
    std::vector<std::size_t> bounds{0};
    bounds.insert(bounds.end(), points.begin(), points.end());
    bounds.push_back(x.size());
    Split best;
    for (std::size_t s = 0; s + 1 < bounds.size(); ++s) {
      const Split sp = best_split(x, bounds[s], bounds[s + 1]);
      if (sp.tau != 0 && sp.q > best.q) best = sp;
    }
    if (best.tau == 0 || evaluate(x, best.tau, points).p_value > max_p_value) break;
    points.insert(std::upper_bound(points.begin(), points.end(), best.tau), best.tau);
  }
  return points;
}

}  // namespace

double student_t_test_p(std::span<const double> a, std::span<const double> b) {
  if (a.empty() || b.empty() || a.size() + b.size() < 3) return 1.0;
  const double na = static_cast<double>(a.size()), nb = static_cast<double>(b.size());
  const double ma = mean_of(a), mb = mean_of(b);
  double ss = 0;
  for (double v : a) ss += (v - ma) * (v - ma);
  for (double v : b) ss += (v - mb) * (v - mb);
  const double df = na + nb - 2.0;
  const double se = std::sqrt(ss / df * (1.0 / na + 1.0 / nb));
  if (se == 0) return ma == mb ? 1.0 : 0.0;
  return student_t_two_sided_p((mb - ma) / se, df);
}


std::vector<ChangePoint> detect_change_points(std::span<const double> series, const ChangePointOptions& o) {
  const std::size_t n = series.size();
  const std::size_t window = std::max<std::size_t>(o.window, 4);
  std::set<std::size_t> found;
  // Windows overlap by half; the next one starts no earlier than the last point just found.
  for (std::size_t start = 0; start < n;) {
    const std::size_t end = std::min(n, start + window);
    std::size_t last = 0;
    for (std::size_t p : e_divisive(series.subspan(start, end - start), 10 * o.max_p_value)) {
      found.insert(start + p);
      last = std::max(last, start + p);
    }
    start = std::max(last, start + window / 2);
  }
  std::vector<std::size_t> indices(found.begin(), found.end());
  std::vector<ChangePoint> points;
  for (std::size_t i : indices) points.push_back(evaluate(series, i, indices));

  for (;;) {
    if (points.empty()) break;
    auto weakest = std::max_element(points.begin(), points.end(),
                                    [](const ChangePoint& a, const ChangePoint& b) { return a.p_value < b.p_value; });
    if (weakest->p_value < o.max_p_value) {
      weakest = std::min_element(points.begin(), points.end(), [](const ChangePoint& a, const ChangePoint& b) {
        return symmetric_magnitude(a) < symmetric_magnitude(b);
      });
      if (symmetric_magnitude(*weakest) > o.min_magnitude) break;
    }
    const auto at = static_cast<std::size_t>(weakest - points.begin());
    points.erase(weakest);
    indices.erase(indices.begin() + static_cast<std::ptrdiff_t>(at));
    // Removing a point widens the segments of its neighbours: test them again.
    if (at < points.size()) points[at] = evaluate(series, points[at].index, indices);
    if (at > 0) points[at - 1] = evaluate(series, points[at - 1].index, indices);
  }
  return points;
}

}  // namespace assay::stats
