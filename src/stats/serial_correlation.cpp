#include "stats/serial_correlation.hpp"

#include <algorithm>
#include <cmath>
#include <numeric>
#include <stdexcept>
#include <vector>

#include "stats/distributions.hpp"
#include "stats/summary.hpp"

namespace assay::stats {

namespace {

// The kMedianBatches contiguous batches of floor(n / 10) samples, the first n mod 10 samples left
// out (so the batches end at the last sample); none when n < kMinBatchSamples.
std::vector<std::span<const double>> batches_of(std::span<const double> in_order) {
  const std::size_t n = in_order.size();
  if (n < kMinBatchSamples) return {};
  const std::size_t size = n / kMedianBatches, skip = n - size * kMedianBatches;
  std::vector<std::span<const double>> out;
  for (std::size_t b = 0; b < kMedianBatches; ++b) out.push_back(in_order.subspan(skip + b * size, size));
  return out;
}

}  // namespace

std::vector<double> batch_medians(std::span<const double> in_order) {
  std::vector<double> medians;
  for (const auto batch : batches_of(in_order)) {
    std::vector<double> sorted(batch.begin(), batch.end());
    std::sort(sorted.begin(), sorted.end());
    medians.push_back(percentile_sorted(sorted, 50));
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
  const auto batches = batches_of(in_order);
  if (batches.empty()) return false;
  const std::span<const double> used = in_order.last(batches.size() * batches.front().size());
  const double mean = std::accumulate(used.begin(), used.end(), 0.0) / static_cast<double>(used.size());
  double var = 0.0;
  for (const double x : used) var += (x - mean) * (x - mean);
  var /= static_cast<double>(used.size() - 1);
  if (!(var > 0.0)) return false;
  double between = 0.0;
  for (const auto batch : batches) {
    const double m = std::accumulate(batch.begin(), batch.end(), 0.0) / static_cast<double>(batch.size());
    between += (m - mean) * (m - mean);
  }
  // sum over batches of (m_b - mean)^2 * size / var ~ chi-square(k - 1) for independent samples.
  return between * static_cast<double>(batches.front().size()) / var > kChiSquare9At0999;
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
