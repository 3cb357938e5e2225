// Timing samples that are not independent. On a GPU under its power cap the SM clock the cap
// sets persists over tens to hundreds of consecutive samples, so samples come in runs: the
// order-statistics CI of the median (summary.hpp), which assumes independent samples, is then
// far too narrow (issue 5's v12b record: lag-1 autocorrelation 0.8 to 0.99 at every
// power-capped point, rank CIs of 0.02-0.9%, session medians up to 7% apart). The batch-medians
// CI below stays valid when samples are serially correlated, as long as each batch is long
// against the correlation time; with a fixed number of batches it grows with the run.
#pragma once

#include <cstddef>
#include <optional>
#include <span>
#include <vector>

namespace assay::stats {

inline constexpr std::size_t kMedianBatches = 10;
inline constexpr std::size_t kMinBatchSize = 5;
inline constexpr std::size_t kMinBatchSamples = kMedianBatches * kMinBatchSize;  // 50: fewer give no batches

// The medians (type 7) of kMedianBatches contiguous batches of floor(n / 10) samples, in the
// order the samples were taken; the first n mod 10 samples are left out, so the batches end at
// the last sample. Empty when n < 50.
std::vector<double> batch_medians(std::span<const double> in_order);

// Half-width of the batch-medians CI of the median, in the samples' unit: the Student t
// interval of the batch medians' mean, t(confidence, 9) * sd(batch medians) / sqrt(10).
// nullopt when n < 50.
// confidence must lie in (0, 1) (std::invalid_argument otherwise).
std::optional<double> batch_median_ci_halfwidth(std::span<const double> in_order, double confidence = 0.95);

// Whether the means of kMedianBatches contiguous batches vary more than independent samples let
// them: (k - 1) var(batch means) b / var(samples) beyond chi-square(k - 1)'s 0.999 quantile. It
// sees what the lag-1 autocorrelation misses: clock modes a fraction of the spread apart that
// persist for hundreds of samples (r1 = 0.036 against its 0.049 threshold at n = 4000, and a
// fifth of A/A comparisons on those samples were called FASTER or SLOWER). false when n < 50 or
// every sample is equal.
bool batch_means_vary_too_much(std::span<const double> in_order);

// Lag-1 autocorrelation of the samples in order: sum (x_i - m)(x_i+1 - m) / sum (x_i - m)^2.
// nullopt when n < 3 or when every sample is equal. Independent samples give ~0 (within
// ~2/sqrt(n)); runs of a persisting clock give values near 1.
std::optional<double> lag1_autocorrelation(std::span<const double> in_order);

}  // namespace assay::stats
