// The batch-medians CI and the lag-1 autocorrelation (serial_correlation.hpp), and how they
// enter Summary's CI, the running CI and the stopping rule.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <limits>
#include <random>
#include <stdexcept>
#include <vector>

#include "measure/criterion.hpp"
#include "stats/serial_correlation.hpp"
#include "stats/summary.hpp"

namespace assay::stats {
namespace {

// Samples that come in runs, as under a power cap: `runs` runs alternating between a fast
// level (100) and a slow one (110), with a little independent noise; `slow_runs` of the `runs`
// runs are slow, spread out (the first run is one of them).
std::vector<double> two_mode_runs(std::size_t n, std::size_t runs, std::size_t slow_runs, unsigned seed) {
  std::mt19937_64 rng(seed);
  std::normal_distribution<double> noise(0.0, 0.1);
  std::vector<double> v;
  for (std::size_t i = 0; i < n; ++i) {
    const std::size_t run = i * runs / n;
    const bool slow = run * slow_runs % runs < slow_runs;
    v.push_back((slow ? 110.0 : 100.0) + noise(rng));
  }
  return v;
}

TEST(BatchMedianCi, KnownBatchMedians) {
  // 10 batches of 5: batch b holds five copies of b (b = 0..9), so the batch medians are
  // 0..9: mean 4.5, sd sqrt(55/6); the half-width is t(0.975, 9) * sd / sqrt(10).
  std::vector<double> v;
  for (int b = 0; b < 10; ++b)
    for (int i = 0; i < 5; ++i) v.push_back(b);
  const auto half = batch_median_ci_halfwidth(v);
  ASSERT_TRUE(half.has_value());
  EXPECT_NEAR(*half, 2.2621571627409915 * std::sqrt(55.0 / 6.0) / std::sqrt(10.0), 1e-9);
  // The first n mod 10 samples are left out: a leading outlier does not move the batches.
  std::vector<double> w = v;
  w.insert(w.begin(), {1e9, -1e9, 7.0});
  EXPECT_NEAR(*batch_median_ci_halfwidth(w), *half, 1e-9);
}

TEST(BatchMedianCi, NoneBelowFiftySamplesAndBadConfidence) {
  std::vector<double> v(49, 1.0);
  EXPECT_FALSE(batch_median_ci_halfwidth(v).has_value());
  v.push_back(1.0);
  ASSERT_TRUE(batch_median_ci_halfwidth(v).has_value());
  EXPECT_EQ(*batch_median_ci_halfwidth(v), 0.0);
  EXPECT_THROW(batch_median_ci_halfwidth(v, 1.0), std::invalid_argument);
  EXPECT_THROW(batch_median_ci_halfwidth(v, 0.0), std::invalid_argument);
}

TEST(BatchMedianCi, IndependentSamplesGiveAboutTheRankWidth) {
  std::mt19937_64 rng(11);
  std::normal_distribution<double> dist(100.0, 5.0);
  std::vector<double> v;
  for (int i = 0; i < 20000; ++i) v.push_back(dist(rng));
  const Summary s = summarize(v);
  ASSERT_TRUE(s.median_ci_batch_rel_halfwidth.has_value());
  // Both estimate 1.96 * 1.2533 * sigma / sqrt(n) / median = 0.00087 (the batch one with a
  // t factor and only 9 degrees of freedom, so within a factor of two).
  EXPECT_GT(*s.median_ci_batch_rel_halfwidth, 0.0004);
  EXPECT_LT(*s.median_ci_batch_rel_halfwidth, 0.0018);
  ASSERT_TRUE(s.autocorrelation_lag1.has_value());
  EXPECT_LT(std::abs(*s.autocorrelation_lag1), 3.0 / std::sqrt(20000.0));
}

TEST(BatchMedianCi, RunsOfAClockWidenTheSummaryCi) {
  // 30% of the samples slow, in three runs: every rank around the median is a fast sample,
  // so the rank CI is ~0.01%; the batch medians see the runs.
  const auto v = two_mode_runs(3000, 10, 3, 5);
  std::vector<double> sorted = v;
  std::sort(sorted.begin(), sorted.end());
  const MedianCi rank = median_ci_sorted(sorted);
  const Summary s = summarize(v);
  const double rank_rel = (rank.ci.hi - rank.ci.lo) / 2 / s.median;
  EXPECT_LT(rank_rel, 0.001);
  ASSERT_TRUE(s.median_ci_batch_rel_halfwidth.has_value());
  // Batch medians: three at ~110, seven at ~100: sd 4.83, half-width 2.262 * 4.83 / sqrt(10).
  EXPECT_NEAR(*s.median_ci_batch_rel_halfwidth, 2.262 * 4.83 / std::sqrt(10.0) / s.median, 0.002);
  EXPECT_NEAR(s.median_ci_rel_halfwidth, *s.median_ci_batch_rel_halfwidth, 1e-12);
  EXPECT_NEAR(s.median_ci.lo, s.median * (1 - s.median_ci_rel_halfwidth), 1e-9);
  EXPECT_NEAR(s.median_ci.hi, s.median * (1 + s.median_ci_rel_halfwidth), 1e-9);
  ASSERT_TRUE(s.autocorrelation_lag1.has_value());
  EXPECT_GT(*s.autocorrelation_lag1, 0.95);
}

TEST(BatchMedianCi, SummaryKeepsTheRankCiWhenItIsWider) {
  // Independent two-level samples 50/50: the rank CI spans the gap, the union keeps it.
  std::mt19937_64 rng(3);
  std::bernoulli_distribution coin(0.5);
  std::vector<double> v;
  for (int i = 0; i < 200; ++i) v.push_back(coin(rng) ? 110.0 : 100.0);
  std::vector<double> sorted = v;
  std::sort(sorted.begin(), sorted.end());
  const MedianCi rank = median_ci_sorted(sorted);
  const Summary s = summarize(v);
  EXPECT_LE(s.median_ci.lo, rank.ci.lo);
  EXPECT_GE(s.median_ci.hi, rank.ci.hi);
}

TEST(Lag1Autocorrelation, KnownSeries) {
  EXPECT_FALSE(lag1_autocorrelation(std::vector<double>{1, 2}).has_value());
  EXPECT_FALSE(lag1_autocorrelation(std::vector<double>(10, 4.0)).has_value());
  // Alternating: sum of products of neighbours -(n - 1), sum of squares n.
  std::vector<double> alt;
  for (int i = 0; i < 100; ++i) alt.push_back(i % 2 ? 1.0 : -1.0);
  EXPECT_NEAR(*lag1_autocorrelation(alt), -99.0 / 100.0, 1e-12);
  // Two halves: -1 then +1; every neighbour product is +1 but the one at the step.
  std::vector<double> halves(100, -1.0);
  std::fill(halves.begin() + 50, halves.end(), 1.0);
  EXPECT_NEAR(*lag1_autocorrelation(halves), 97.0 / 100.0, 1e-12);
}

TEST(RunningMedianCi, PartsAgreeWithSummarize) {
  const auto v = two_mode_runs(2000, 10, 3, 9);
  RunningMedianCi running;
  std::vector<double> prefix;
  for (double x : v) {
    running.add(x);
    prefix.push_back(x);
    if (prefix.size() % 101 == 0) {
      const Summary s = summarize(prefix);
      const auto batch = running.batch_rel_halfwidth();
      ASSERT_EQ(batch.has_value(), s.median_ci_batch_rel_halfwidth.has_value()) << prefix.size();
      if (batch) EXPECT_DOUBLE_EQ(*batch, *s.median_ci_batch_rel_halfwidth) << prefix.size();
      EXPECT_LE(running.rank_rel_halfwidth(), s.median_ci_rel_halfwidth) << prefix.size();
    }
  }
  // After a refresh (the first query at this count), the union equals Summary's.
  RunningMedianCi fresh;
  for (double x : v) fresh.add(x);
  EXPECT_NEAR(fresh.rel_halfwidth(), summarize(v).median_ci_rel_halfwidth, 1e-12);
}

TEST(RunningMedianCi, RankPartIsExactlyTheSortedSamples) {
  // Many equal samples (a 32 ns timer's ticks) and a few outliers, checked at every count: the
  // median and the rank interval are the sorted vector's, to the bit.
  RunningMedianCi running;
  std::vector<double> prefix;
  std::uint64_t state = 7;
  for (int i = 0; i < 3000; ++i) {
    state = state * 6364136223846793005ull + 1442695040888963407ull;
    const double x = 27000.0 + 32.0 * static_cast<double>((state >> 33) % 9) + ((state >> 20) % 97 == 0 ? 5000.0 : 0.0);
    running.add(x);
    prefix.push_back(x);
    std::vector<double> sorted = prefix;
    std::sort(sorted.begin(), sorted.end());
    const double median = percentile_sorted(sorted, 50);
    ASSERT_EQ(running.median(), median) << prefix.size();
    const MedianCi rank = median_ci_sorted(sorted);
    const double expected = rank.reached_confidence ? (rank.ci.hi - rank.ci.lo) / 2.0 / median
                                                    : std::numeric_limits<double>::infinity();
    ASSERT_EQ(running.rank_rel_halfwidth(), expected) << prefix.size();
  }
}

TEST(RunningMedianCi, BatchPartRefreshesAsTheRunGrows) {
  // A steady first part, then runs: the union widens once the refresh sees them.
  RunningMedianCi r;
  for (int i = 0; i < 1000; ++i) r.add(100.0);
  EXPECT_EQ(r.rel_halfwidth(), 0.0);
  for (int i = 0; i < 600; ++i) r.add(110.0);
  for (int i = 0; i < 64; ++i) r.add(110.0), (void)r.rel_halfwidth();
  EXPECT_GT(r.rel_halfwidth(), 0.02);
}

}  // namespace
}  // namespace assay::stats

namespace assay::measure {
namespace {

TEST(StoppingRule, RunsOfAClockDoNotConverge) {
  Criterion cfg;
  cfg.min_samples = 30;
  cfg.max_samples = 100000;
  cfg.min_time_s = 0;
  cfg.target_rel_ci = 0.01;
  cfg.timeout_s = 1e9;
  StoppingRule rule(cfg);
  stats::RunningMedianCi rank_only;
  const auto v = stats::two_mode_runs(3000, 10, 3, 1);
  for (double x : v) {
    rule.add(x);
    rank_only.add(x);
    // The first run (300 samples) is all slow, and converges as it should. Once a fast run
    // has begun, the batch medians see two levels and hold the rule open, where the rank CI
    // alone would have stopped.
    if (rule.samples() >= 400) EXPECT_FALSE(rule.stop_reason(0.0).has_value()) << rule.samples();
  }
  EXPECT_LT(rank_only.rank_rel_halfwidth(), 0.001);
  EXPECT_GT(rule.rel_halfwidth(), 0.01);
}

}  // namespace
}  // namespace assay::measure
