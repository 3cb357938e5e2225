// Seeded bootstrap confidence interval of a ratio of medians. Deterministic: the generator is
// std::mt19937_64 (its sequence is fixed by the C++ standard) and indices are drawn by plain
// modulo, not with a library distribution whose output may differ between standard libraries.
// The same inputs and seed give the same interval on every machine.
#pragma once

#include <cstdint>
#include <span>
#include <vector>

#include "stats/summary.hpp"

namespace assay::stats {

// One side of a comparison: the samples of each session (one run of the suite). A single
// session is the common case.
using Sessions = std::vector<std::vector<double>>;

struct BootstrapOptions {
  int resamples = 2000;
  double confidence = 0.95;
  std::uint64_t seed = 0x9e3779b97f4a7c15ULL;
};

// Percentile interval of median(cand) / median(base) over `resamples` resamples. Each
// resample is two-level: draw as many sessions as there are, with replacement, then draw each
// drawn session's samples with replacement, and pool them. With one session this is the
// ordinary bootstrap; with several, a spread between sessions widens the interval, as it
// should. Throws std::invalid_argument on an empty side or session.
Interval bootstrap_ratio_of_medians_ci(const Sessions& base, const Sessions& cand,
                                       const BootstrapOptions& options = {});

// Median (type 7) of all samples of all sessions together.
double pooled_median(const Sessions& sessions);

}  // namespace assay::stats
