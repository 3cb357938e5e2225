// Seeded bootstrap confidence interval of a ratio of medians. Deterministic: the generator is
// std::mt19937_64 (its sequence is fixed by the C++ standard) and indices are drawn by plain
// modulo, not with a library distribution whose output may differ between standard libraries.
// The same inputs and seed give the same interval on every machine.
#pragma once

#include <cstdint>
#include <span>

#include "stats/summary.hpp"

namespace assay::stats {

struct BootstrapOptions {
  int resamples = 2000;
  double confidence = 0.95;
  std::uint64_t seed = 0x9e3779b97f4a7c15ULL;
};

// Percentile interval of median(cand*) / median(base*) over `resamples` resamples, each side
// drawn with replacement to its own size. Throws std::invalid_argument on an empty side, fewer
// than 100 resamples, or a confidence outside (0, 1).
Interval bootstrap_ratio_of_medians_ci(std::span<const double> base, std::span<const double> cand,
                                       const BootstrapOptions& options = {});

}  // namespace assay::stats
