#include "stats/serial_correlation.hpp"

#include <algorithm>
#include <cmath>
#include <numeric>
#include <stdexcept>
#include <vector>

#include "stats/distributions.hpp"
#include "stats/summary.hpp"

namespace assay::stats {

std::vector<double> batch_medians(std::span<const double> in_order) {
  const std::size_t n = in_order.size();
  if (n < kMinBatchSamples) return {};
  const std::size_t size = n / kMedianBatches;
  const std::size_t skip = n - size * kMedianBatches;
  std::vector<double> medians;
  medians.reserve(kMedianBatches);
  std::vector<double> batch(size);
  for (std::size_t b = 0; b < kMedianBatches; ++b) {
    const auto first = in_order.begin() + static_cast<std::ptrdiff_t>(skip + b * size);
    std::copy(first, first + static_cast<std::ptrdiff_t>(size), batch.begin());
    std::sort(batch.begin(), batch.end());
    medians.push_back(percentile_sorted(batch, 50));
  }
  return medians;
}

std::optional<double> batch_median_ci_halfwidth(std::span<const double> in_order, double confidence) {
  if (!(confidence > 0.0 && confidence < 1.0))
    throw std::invalid_argument("batch median CI: confidence must lie in (0, 1)");
  const std::vector<double> medians = batch_medians(in_order);
  if (medians.empty()) return std::nullopt;
  const double b = static_cast<double>(kMedianBatches);
  const double mean = std::accumulate(medians.begin(), medians.end(), 0.0) / b;
  double ss = 0.0;
  for (double m : medians) ss += (m - mean) * (m - mean);
  const double sd = std::sqrt(ss / (b - 1.0));
  return student_t_two_sided_quantile(confidence, b - 1.0) * sd / std::sqrt(b);
}

bool batch_means_vary_too_much(std::span<const double> in_order) {
  static_assert(kMedianBatches == 10, "the chi-square quantile below is for 9 degrees of freedom");
  constexpr double kChiSquare9At0999 = 27.877;
  const std::size_t n = in_order.size();
  if (n < kMinBatchSamples) return false;
  const std::size_t size = n / kMedianBatches, skip = n - size * kMedianBatches;
  const std::span<const double> used = in_order.subspan(skip);
  const double mean = std::accumulate(used.begin(), used.end(), 0.0) / static_cast<double>(used.size());
  double var = 0.0;
  for (const double x : used) var += (x - mean) * (x - mean);
  var /= static_cast<double>(used.size() - 1);
  if (!(var > 0.0)) return false;
  double between = 0.0;
  for (std::size_t b = 0; b < kMedianBatches; ++b) {
    const auto first = used.begin() + static_cast<std::ptrdiff_t>(b * size);
    const double m = std::accumulate(first, first + static_cast<std::ptrdiff_t>(size), 0.0) / static_cast<double>(size);
    between += (m - mean) * (m - mean);
  }
  // sum over batches of (m_b - mean)^2 * size / var ~ chi-square(k - 1) for independent samples.
  return between * static_cast<double>(size) / var > kChiSquare9At0999;
}

std::optional<double> lag1_autocorrelation(std::span<const double> in_order) {
  const std::size_t n = in_order.size();
  if (n < 3) return std::nullopt;
  const double mean = std::accumulate(in_order.begin(), in_order.end(), 0.0) / static_cast<double>(n);
  double var = 0.0, cov = 0.0;
  for (std::size_t i = 0; i < n; ++i) {
    const double d = in_order[i] - mean;
    var += d * d;
    if (i + 1 < n) cov += d * (in_order[i + 1] - mean);
  }
  if (var == 0.0) return std::nullopt;
  return cov / var;
}

}  // namespace assay::stats
