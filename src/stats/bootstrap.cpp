#include "stats/bootstrap.hpp"

#include <algorithm>
#include <random>
#include <stdexcept>
#include <vector>

namespace assay::stats {
namespace {

// Uniform index in [0, n) from one 64-bit draw. The modulo bias is below n / 2^64, far under
// anything a benchmark can show, and the arithmetic is the same on every platform.
std::size_t draw_index(std::mt19937_64& rng, std::size_t n) { return static_cast<std::size_t>(rng() % n); }

double median_in_place(std::vector<double>& v) {
  const std::size_t n = v.size();
  auto mid = v.begin() + static_cast<std::ptrdiff_t>(n / 2);
  std::nth_element(v.begin(), mid, v.end());
  if (n % 2 == 1) return *mid;
  const double upper = *mid;
  return (*std::max_element(v.begin(), mid) + upper) / 2.0;
}

void resample(std::span<const double> side, std::mt19937_64& rng, std::vector<double>& out) {
  out.resize(side.size());
  for (double& x : out) x = side[draw_index(rng, side.size())];
}

}  // namespace

Interval bootstrap_ratio_of_medians_ci(std::span<const double> base, std::span<const double> cand,
                                       const BootstrapOptions& o) {
  if (base.empty() || cand.empty()) throw std::invalid_argument("bootstrap: a side has no samples");
  if (o.resamples < 100) throw std::invalid_argument("bootstrap: at least 100 resamples");
  if (!(o.confidence > 0.0 && o.confidence < 1.0)) throw std::invalid_argument("bootstrap: confidence in (0, 1)");
  std::mt19937_64 rng(o.seed);
  std::vector<double> ratios(static_cast<std::size_t>(o.resamples));
  std::vector<double> b, c;
  for (double& r : ratios) {
    resample(base, rng, b);
    resample(cand, rng, c);
    r = median_in_place(c) / median_in_place(b);
  }
  std::sort(ratios.begin(), ratios.end());
  const double tail = 100.0 * (1.0 - o.confidence) / 2.0;
  return {percentile_sorted(ratios, tail), percentile_sorted(ratios, 100.0 - tail)};
}

}  // namespace assay::stats
