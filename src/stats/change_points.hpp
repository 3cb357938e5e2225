// Change points in a series of measurements (one value per run, oldest first), found the way
// Apache Otava (formerly Hunter, by DataStax) does: E-divisive means proposes splits, and a
// Student's t-test between the neighbouring segments decides which are real. Deterministic:
// the t-test replaces E-divisive's random permutation test.
//
// 1. Split: slide windows of `window` points, overlapping by half (the next window starts no
//    earlier than the last point found). In each window, repeat: for every segment between the
//    change points found so far, take the split that maximises the E-divisive statistic
//    (Matteson & James 2014, alpha = 1) over the left part a = x[lo, tau) (m points) and every
//    right part b = x[tau, kappa) (k points, kappa up to the segment's end):
//      q = 2/(m+k) sum |a_i - b_j| - 2k/((m+k)(m-1)) sum_{i<i'} |a_i - a_i'|
//                                  - 2m/((m+k)(k-1)) sum_{j<j'} |b_j - b_j'|
//    (a within-part term is 0 for a part of one point); keep the best split of all segments if
//    the t-test of the segments on its two sides gives p <= 10 * max_p_value, else stop.
// 2. Merge: with all candidates together, recompute each one's t-test against its neighbours;
//    repeatedly drop the weakest (the largest p-value when it is >= max_p_value, else the
//    smallest magnitude when it is <= min_magnitude; magnitude = |after/before - 1|, the change
//    as reported) and test its neighbours again, until all pass.
// Unlike Otava: the t-test uses the sample variances, as the textbook test does (Otava passes
// population standard deviations to scipy); a level is at least two runs (no split leaves one run
// on a side), and two constant sides need three runs each (their t-test would give p = 0); the
// magnitude floor applies to the change as printed (Otava's is the larger of the forward and
// backward changes). Known limit: the t-test is of means, so one run several times slower in a
// segment inflates its variance and can hide a real step next to it.
#pragma once

#include <cstddef>
#include <span>
#include <vector>

namespace assay::stats {

struct ChangePoint {
  std::size_t index = 0;  // the first point of the new level
  double mean_before = 0, mean_after = 0;  // of the segments between the neighbouring points
  double magnitude = 0;   // (mean_after - mean_before) / mean_before, signed
  double p_value = 1;     // two-sided Student's t-test (pooled variance) of the two segments
};

struct ChangePointOptions {
  std::size_t window = 50;     // points per E-divisive window
  double max_p_value = 0.001;  // Otava's default
  double min_magnitude = 0.0;  // a change point must change the level by more than this
};

std::vector<ChangePoint> detect_change_points(std::span<const double> series,
                                              const ChangePointOptions& options = {});

// Two-sided p-value of Student's two-sample t-test with pooled variance. 1 when either side has
// fewer than 1 point or both have one; 0 when both sides are constant but differ.
double student_t_test_p(std::span<const double> a, std::span<const double> b);

}  // namespace assay::stats
