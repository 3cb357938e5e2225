#include <gtest/gtest.h>

#include <cmath>
#include <limits>
#include <numeric>
#include <random>
#include <stdexcept>
#include <vector>

#include "stats/summary.hpp"

namespace assay::stats {
namespace {

constexpr double kNaN = std::numeric_limits<double>::quiet_NaN();
constexpr double kInf = std::numeric_limits<double>::infinity();

// 1, 2, ..., n: the value of each order statistic is its 1-based rank, so a CI read from
// this data names the ranks it used.
std::vector<double> ranks_1_to(std::size_t n) {
  std::vector<double> v(n);
  std::iota(v.begin(), v.end(), 1.0);
  return v;
}

// Independent reference for the rank rule: exact binomial coverage of [X_(j), X_(n+1-j)]
// by summing the lower tail from 0 in long double, P(j <= B <= n-j) = 1 - 2 P(B <= j-1).
long double coverage(std::size_t n, std::size_t j) {
  long double tail = 0;
  for (std::size_t i = 0; i + 1 <= j; ++i) {
    tail += std::exp(std::lgamma(static_cast<long double>(n) + 1) -
                     std::lgamma(static_cast<long double>(i) + 1) -
                     std::lgamma(static_cast<long double>(n - i) + 1) -
                     static_cast<long double>(n) * std::log(2.0L));
  }
  return 1 - 2 * tail;
}

TEST(Percentile, Type7OnOneToTen) {
  const auto v = ranks_1_to(10);
  // h = 9 q / 100; value = 1 + h.
  EXPECT_DOUBLE_EQ(percentile_sorted(v, 0), 1.0);
  EXPECT_DOUBLE_EQ(percentile_sorted(v, 5), 1.45);
  EXPECT_DOUBLE_EQ(percentile_sorted(v, 25), 3.25);
  EXPECT_DOUBLE_EQ(percentile_sorted(v, 50), 5.5);
  EXPECT_DOUBLE_EQ(percentile_sorted(v, 75), 7.75);
  EXPECT_DOUBLE_EQ(percentile_sorted(v, 95), 9.55);
  EXPECT_DOUBLE_EQ(percentile_sorted(v, 99), 9.91);
  EXPECT_DOUBLE_EQ(percentile_sorted(v, 100), 10.0);
}

TEST(Percentile, UnevenSpacing) {
  const std::vector<double> v{1, 2, 4, 8, 16};
  // h = 4 q / 100: q=10 -> h=0.4 -> 1.4; q=30 -> h=1.2 -> 2 + 0.2*2 = 2.4;
  // q=90 -> h=3.6 -> 8 + 0.6*8 = 12.8.
  EXPECT_DOUBLE_EQ(percentile_sorted(v, 10), 1.4);
  EXPECT_DOUBLE_EQ(percentile_sorted(v, 30), 2.4);
  EXPECT_DOUBLE_EQ(percentile_sorted(v, 50), 4.0);
  EXPECT_DOUBLE_EQ(percentile_sorted(v, 90), 12.8);
}

TEST(Percentile, SingleSampleAndBadArguments) {
  const std::vector<double> one{7.5};
  EXPECT_DOUBLE_EQ(percentile_sorted(one, 0), 7.5);
  EXPECT_DOUBLE_EQ(percentile_sorted(one, 63), 7.5);
  EXPECT_DOUBLE_EQ(percentile_sorted(one, 100), 7.5);
  EXPECT_THROW(percentile_sorted(std::vector<double>{}, 50), std::invalid_argument);
  EXPECT_THROW(percentile_sorted(one, -1), std::invalid_argument);
  EXPECT_THROW(percentile_sorted(one, 100.5), std::invalid_argument);
  EXPECT_THROW(percentile_sorted(one, kNaN), std::invalid_argument);
}

TEST(Summary, MomentsOfKnownSet) {
  const std::vector<double> v{4, 2, 5, 4, 9, 4, 7, 5};
  const Summary s = summarize(v);
  EXPECT_EQ(s.n, 8u);
  EXPECT_DOUBLE_EQ(s.min, 2.0);
  EXPECT_DOUBLE_EQ(s.max, 9.0);
  EXPECT_DOUBLE_EQ(s.mean, 5.0);
  // Squared deviations 9+1+1+1+0+0+4+16 = 32; sample variance 32/7; stdev 2.138089935299395.
  EXPECT_DOUBLE_EQ(s.stdev, std::sqrt(32.0 / 7.0));
  EXPECT_NEAR(s.stdev, 2.138089935299395, 1e-12);
  EXPECT_NEAR(s.cv, 0.427617987059879, 1e-12);
  // Sorted 2 4 4 4 5 5 7 9: median between 4 and 5; p25: h = 1.75 -> 4; p75: h = 5.25 -> 5.5.
  EXPECT_DOUBLE_EQ(s.median, 4.5);
  EXPECT_DOUBLE_EQ(s.p25, 4.0);
  EXPECT_DOUBLE_EQ(s.p75, 5.5);
  // n = 8 at 95%: ranks 1 and 8 (coverage 1 - 2/256 = 0.9921875), the next pair (2, 7)
  // covers only 1 - 18/256 = 0.9296875.
  EXPECT_DOUBLE_EQ(s.median_ci.lo, 2.0);
  EXPECT_DOUBLE_EQ(s.median_ci.hi, 9.0);
  EXPECT_DOUBLE_EQ(s.median_ci_rel_halfwidth, 3.5 / 4.5);
}

TEST(Summary, PercentilesOfOneToTenUnsorted) {
  const std::vector<double> v{7, 3, 10, 1, 9, 2, 8, 5, 4, 6};
  const Summary s = summarize(v);
  EXPECT_DOUBLE_EQ(s.p5, 1.45);
  EXPECT_DOUBLE_EQ(s.p25, 3.25);
  EXPECT_DOUBLE_EQ(s.median, 5.5);
  EXPECT_DOUBLE_EQ(s.p75, 7.75);
  EXPECT_DOUBLE_EQ(s.p95, 9.55);
  EXPECT_DOUBLE_EQ(s.p99, 9.91);
  EXPECT_DOUBLE_EQ(s.mean, 5.5);
  // Sum of squared deviations of 1..10 is 82.5; / 9 = 9.1666...
  EXPECT_DOUBLE_EQ(s.stdev, std::sqrt(82.5 / 9.0));
  EXPECT_DOUBLE_EQ(s.cv, std::sqrt(82.5 / 9.0) / 5.5);
  // n = 10: ranks 2 and 9.
  EXPECT_DOUBLE_EQ(s.median_ci.lo, 2.0);
  EXPECT_DOUBLE_EQ(s.median_ci.hi, 9.0);
  EXPECT_DOUBLE_EQ(s.median_ci_rel_halfwidth, 3.5 / 5.5);
}

TEST(Summary, MedianOfOddAndEvenN) {
  EXPECT_DOUBLE_EQ(summarize(std::vector<double>{3, 1, 2}).median, 2.0);
  EXPECT_DOUBLE_EQ(summarize(std::vector<double>{5, 1, 100, 2, 3}).median, 3.0);
  EXPECT_DOUBLE_EQ(summarize(std::vector<double>{4, 1, 3, 2}).median, 2.5);
  EXPECT_DOUBLE_EQ(summarize(std::vector<double>{10, -10}).median, 0.0);
}

TEST(Summary, SingleSample) {
  const Summary s = summarize(std::vector<double>{3.0});
  EXPECT_EQ(s.n, 1u);
  EXPECT_DOUBLE_EQ(s.mean, 3.0);
  EXPECT_DOUBLE_EQ(s.stdev, 0.0);
  EXPECT_DOUBLE_EQ(s.cv, 0.0);
  EXPECT_DOUBLE_EQ(s.median, 3.0);
  EXPECT_DOUBLE_EQ(s.median_ci.lo, 3.0);
  EXPECT_DOUBLE_EQ(s.median_ci.hi, 3.0);
  EXPECT_EQ(s.median_ci_rel_halfwidth, kInf);
}

// Ten batches whose medians are 1 (six) and 1000 (four): the batch t interval around the median
// 1 reaches far below zero; the median CI of non-negative data stops at 0.
TEST(Summary, TheMedianCiOfNonNegativeDataStaysAtOrAboveZero) {
  std::vector<double> x;
  for (int b = 0; b < 10; ++b)
    for (int i = 0; i < 6; ++i) x.push_back(b % 5 < 3 ? 1.0 + 0.01 * i : 1000.0 + i);
  const Summary r = summarize(x);
  EXPECT_LT(r.median, 10.0);
  EXPECT_EQ(r.median_ci.lo, 0.0);
  EXPECT_GT(r.median_ci.hi, 100.0);
}

TEST(Summary, EmptyThrows) {
  EXPECT_THROW(summarize(std::vector<double>{}), std::invalid_argument);
}

TEST(Summary, NaNThrows) {
  EXPECT_THROW(summarize(std::vector<double>{1.0, kNaN, 2.0}), std::invalid_argument);
  EXPECT_THROW(summarize(std::vector<double>{kNaN}), std::invalid_argument);
  EXPECT_THROW(summarize(std::vector<double>{1.0, kInf}), std::invalid_argument);
}

TEST(Summary, SmallNDoesNotReachConfidence) {
  // n = 5: even (min, max) covers only 1 - 2/32 = 0.9375 < 0.95.
  const Summary s = summarize(std::vector<double>{5, 4, 3, 2, 1});
  EXPECT_DOUBLE_EQ(s.median_ci.lo, 1.0);
  EXPECT_DOUBLE_EQ(s.median_ci.hi, 5.0);
  EXPECT_EQ(s.median_ci_rel_halfwidth, kInf);
}

TEST(MedianCi, NotReachedBelowSix) {
  for (std::size_t n = 1; n <= 5; ++n) {
    const auto v = ranks_1_to(n);
    const MedianCi m = median_ci_sorted(v);
    EXPECT_FALSE(m.reached_confidence) << "n=" << n;
    EXPECT_DOUBLE_EQ(m.ci.lo, 1.0) << "n=" << n;
    EXPECT_DOUBLE_EQ(m.ci.hi, static_cast<double>(n)) << "n=" << n;
  }
}

struct RankCase {
  std::size_t n;
  double confidence;
  std::size_t lo_rank, hi_rank;  // 1-based
};

TEST(MedianCi, PublishedRanks) {
  // Coverage computed exactly (Python, math.comb and fractions), P(j <= B <= n - j):
  const RankCase cases[] = {
      {6, 0.95, 1, 6},              // 31/32 = 0.96875
      {7, 0.95, 1, 7},              // 63/64 = 0.984375
      {9, 0.95, 2, 8},              // 123/128 = 0.9609375
      {10, 0.95, 2, 9},             // 501/512 = 0.978515625 ((3, 8) only 0.890625)
      {12, 0.95, 3, 10},            // 1969/2048 = 0.96142578125
      {20, 0.95, 6, 15},            // 125647/131072 = 0.9586105346679688
      {21, 0.95, 6, 16},            // 0.9733963012695312
      {50, 0.95, 18, 33},           // 0.9671608624357315
      {100, 0.95, 40, 61},          // 0.9647997997822951
      {101, 0.95, 41, 61},          // 0.9539559330706572
      {1000, 0.95, 469, 532},       // 0.9537088026395019
      {12345, 0.95, 6064, 6282},    // 0.950248191246085
      {100, 0.99, 37, 64},          // 0.9933628794840739
      {1000, 0.99, 459, 542},       // exact, integer arithmetic
      {20, 0.90, 6, 15},            // 0.9586 ((7, 14) only 0.8847)
      {10, 0.90, 2, 9},             // 0.9785 ((3, 8) only 0.890625)
  };
  for (const RankCase& c : cases) {
    const auto v = ranks_1_to(c.n);
    const MedianCi m = median_ci_sorted(v, c.confidence);
    EXPECT_TRUE(m.reached_confidence) << "n=" << c.n;
    EXPECT_DOUBLE_EQ(m.ci.lo, static_cast<double>(c.lo_rank)) << "n=" << c.n;
    EXPECT_DOUBLE_EQ(m.ci.hi, static_cast<double>(c.hi_rank)) << "n=" << c.n;
  }
}

TEST(MedianCi, MillionSamplesExactRanks) {
  // n = 1e6: ranks 499020 and 500981, coverage 0.9501210313476319 (exact big-integer sum).
  const auto v = ranks_1_to(1'000'000);
  const MedianCi m = median_ci_sorted(v);
  EXPECT_TRUE(m.reached_confidence);
  EXPECT_DOUBLE_EQ(m.ci.lo, 499020.0);
  EXPECT_DOUBLE_EQ(m.ci.hi, 500981.0);
}

TEST(MedianCi, ExactConfidenceBoundaryCountsAsReached) {
  // n = 6 covers exactly 31/32 with (min, max); n = 5 covers exactly 15/16.
  const MedianCi six = median_ci_sorted(ranks_1_to(6), 31.0 / 32.0);
  EXPECT_TRUE(six.reached_confidence);
  EXPECT_DOUBLE_EQ(six.ci.lo, 1.0);
  EXPECT_DOUBLE_EQ(six.ci.hi, 6.0);
  EXPECT_FALSE(median_ci_sorted(ranks_1_to(6), 0.97).reached_confidence);
  EXPECT_TRUE(median_ci_sorted(ranks_1_to(5), 15.0 / 16.0).reached_confidence);
}

TEST(MedianCi, NarrowestSymmetricPairAgainstIndependentSum) {
  // For every n the chosen j reaches 95% and j + 1 does not.
  for (std::size_t n = 6; n <= 400; ++n) {
    const MedianCi m = median_ci_sorted(ranks_1_to(n));
    ASSERT_TRUE(m.reached_confidence) << "n=" << n;
    const auto j = static_cast<std::size_t>(m.ci.lo);
    EXPECT_DOUBLE_EQ(m.ci.hi, static_cast<double>(n + 1 - j)) << "n=" << n;
    EXPECT_GE(coverage(n, j), 0.95L) << "n=" << n;
    if (j + 1 <= n / 2) {
      EXPECT_LT(coverage(n, j + 1), 0.95L) << "n=" << n;
    }
  }
}

TEST(MedianCi, BadArgumentsThrow) {
  const auto v = ranks_1_to(10);
  EXPECT_THROW(median_ci_sorted(std::vector<double>{}), std::invalid_argument);
  EXPECT_THROW(median_ci_sorted(v, 0.0), std::invalid_argument);
  EXPECT_THROW(median_ci_sorted(v, 1.0), std::invalid_argument);
  EXPECT_THROW(median_ci_sorted(v, kNaN), std::invalid_argument);
}

TEST(RunningMedianCi, AgreesWithSummarizeOnRandomData) {
  std::mt19937_64 rng(20240611);
  std::lognormal_distribution<double> dist(0.0, 0.25);
  std::vector<double> samples;
  RunningMedianCi running;
  for (int i = 0; i < 2000; ++i) {
    const double x = 10.0 * dist(rng);
    samples.push_back(x);
    running.add(x);
    ASSERT_EQ(running.size(), samples.size());
    if (samples.size() % 97 == 1 || samples.size() == 2000) {
      const Summary s = summarize(samples);
      EXPECT_DOUBLE_EQ(running.median(), s.median) << "n=" << samples.size();
      EXPECT_EQ(running.rel_halfwidth(), s.median_ci_rel_halfwidth) << "n=" << samples.size();
    }
  }
  EXPECT_LT(running.rel_halfwidth(), 0.02);
}

TEST(RunningMedianCi, RelHalfwidthShrinksAsNGrows) {
  std::mt19937_64 rng(7);
  std::normal_distribution<double> dist(100.0, 5.0);
  RunningMedianCi running;
  EXPECT_EQ(running.rel_halfwidth(), kInf);
  for (int i = 0; i < 5; ++i) running.add(dist(rng));
  EXPECT_EQ(running.rel_halfwidth(), kInf);  // n = 5 cannot reach 95%
  double previous = kInf;
  for (std::size_t target : {10u, 100u, 1000u, 10000u}) {
    while (running.size() < target) running.add(dist(rng));
    const double w = running.rel_halfwidth();
    EXPECT_LT(w, previous) << "n=" << target;
    previous = w;
  }
  // Half-width of the median CI ~ 1.96 * 1.2533 * sigma / sqrt(n) = 0.0012 of the median.
  EXPECT_NEAR(previous, 1.96 * 1.2533 * 5.0 / 100.0 / 100.0, 0.0004);
  // A lower confidence gives a narrower interval.
  EXPECT_LT(running.rel_halfwidth(0.80), running.rel_halfwidth(0.99));
}

TEST(RunningMedianCi, KeepsOrderAndRejectsBadInput) {
  RunningMedianCi r;
  EXPECT_THROW(r.median(), std::logic_error);
  for (double x : {5.0, 1.0, 4.0, 2.0, 3.0, 6.0}) r.add(x);
  EXPECT_EQ(r.size(), 6u);
  EXPECT_DOUBLE_EQ(r.median(), 3.5);
  // n = 6: CI = (min, max) = (1, 6); half-width 2.5 / 3.5.
  EXPECT_DOUBLE_EQ(r.rel_halfwidth(), 2.5 / 3.5);
  EXPECT_THROW(r.add(kNaN), std::invalid_argument);
  EXPECT_THROW(r.add(-kInf), std::invalid_argument);
  EXPECT_EQ(r.size(), 6u);
}

TEST(RunningMedianCi, IdenticalSamplesHaveZeroWidth) {
  RunningMedianCi r;
  for (int i = 0; i < 20; ++i) r.add(2.0);
  EXPECT_DOUBLE_EQ(r.rel_halfwidth(), 0.0);
}

}  // namespace
}  // namespace assay::stats
