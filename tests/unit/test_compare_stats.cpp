// The statistics behind `assay compare` and `assay history`, checked against published values.
// Where a reference is not printed in the source, it was computed independently with Python's
// math and fractions modules (exact rational arithmetic for the Mann-Whitney distribution).
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>

#include "compare_test_samples.hpp"
#include "stats/bootstrap.hpp"
#include "stats/change_points.hpp"
#include "stats/distributions.hpp"
#include "stats/rank_tests.hpp"

using namespace assay::stats;

namespace {
// Hollander & Wolfe (1973), p. 69: Hamilton depression scale factor IV, also the example of
// R's wilcox.test documentation: W = 35, one-sided ("greater") p-value = 0.1272.
const std::vector<double> kDepressionX = {0.80, 0.83, 1.89, 1.04, 1.45, 1.38, 1.91, 1.64, 0.73, 1.46};
const std::vector<double> kDepressionY = {1.15, 0.88, 0.90, 0.74, 1.21};

// R's airquality data set, Ozone in May and August without the NAs; R's documentation example
// wilcox.test(Ozone ~ Month, data = airquality, subset = Month %in% c(5, 8)) prints
// W = 127.5, p-value = 0.0001208 (normal approximation with tie and continuity corrections).
const std::vector<double> kOzoneMay = {41, 36, 12, 18, 28, 23, 19, 8,  7,  16, 11, 14, 18,
                                       14, 34, 6,  30, 11, 1,  11, 4, 32, 23, 45, 115, 37};
const std::vector<double> kOzoneAugust = {39, 9,  16, 78, 35, 66, 122, 89, 110, 44, 28, 65,  22,
                                          59, 23, 31, 44, 21, 9,  45,  168, 73, 76, 118, 84, 85};
}  // namespace

TEST(Distributions, NormalMatchesTables) {
  EXPECT_NEAR(normal_quantile(0.975), 1.959963984540054, 1e-12);
  EXPECT_NEAR(normal_quantile(0.995), 2.5758293035489004, 1e-12);
  EXPECT_NEAR(normal_quantile(0.025), -1.959963984540054, 1e-12);
  EXPECT_NEAR(normal_cdf(1.96), 0.9750021048517795, 1e-14);
  EXPECT_THROW(normal_quantile(1.0), std::invalid_argument);
}

TEST(Distributions, StudentTMatchesTableAndClosedForms) {
  // Two-sided critical values of Student's t as printed in every t table.
  EXPECT_NEAR(student_t_two_sided_p(12.706, 1), 0.05, 1e-4);
  EXPECT_NEAR(student_t_two_sided_p(4.032, 5), 0.01, 1e-4);
  EXPECT_NEAR(student_t_two_sided_p(2.228, 10), 0.05, 1e-4);
  EXPECT_NEAR(student_t_two_sided_p(2.042, 30), 0.05, 1e-4);
  // Closed forms: df = 1 (Cauchy) p = 1 - 2 atan(t) / pi; df = 2 p = 1 - t / sqrt(2 + t^2);
  // df = 8 from Abramowitz & Stegun 26.7.3 (the finite series for even df).
  EXPECT_NEAR(student_t_two_sided_p(1.0, 1), 0.5, 1e-12);
  EXPECT_NEAR(student_t_two_sided_p(2.0, 2), 0.18350341907227385, 1e-12);
  EXPECT_NEAR(student_t_two_sided_p(-2.0, 8), 0.0805162379572627, 1e-12);
  // And back: the table's critical values.
  EXPECT_NEAR(student_t_two_sided_quantile(0.95, 10), 2.228, 1e-3);
  EXPECT_NEAR(student_t_two_sided_quantile(0.99, 5), 4.032, 1e-3);
  EXPECT_NEAR(student_t_two_sided_quantile(0.95, 2), 4.303, 1e-3);
  EXPECT_NEAR(student_t_two_sided_quantile(0.5, 1), 1.0, 1e-12);
}

TEST(MannWhitney, NullDistributionGivesPublishedCriticalValues) {
  // Two-sided alpha = 0.05 critical values of U from the standard tables (reject when
  // U <= c): P(U <= c) <= 0.025 < P(U <= c + 1).
  struct Row { std::size_t m, n, c; };
  for (const Row r : {Row{6, 6, 5}, Row{8, 8, 13}, Row{10, 10, 23}, Row{20, 20, 127}, Row{5, 7, 5}}) {
    const auto pmf = mann_whitney_null_pmf(r.m, r.n);
    ASSERT_EQ(pmf.size(), r.m * r.n + 1);
    double cdf = 0;
    for (std::size_t u = 0; u <= r.c; ++u) cdf += pmf[u];
    EXPECT_LE(cdf, 0.025) << r.m << "x" << r.n;
    EXPECT_GT(cdf + pmf[r.c + 1], 0.025) << r.m << "x" << r.n;
  }
  // Exact value, from fractions: P(U <= 23) for 10 x 10.
  const auto pmf = mann_whitney_null_pmf(10, 10);
  double cdf = 0;
  for (std::size_t u = 0; u <= 23; ++u) cdf += pmf[u];
  EXPECT_NEAR(cdf, 0.02162852627248912, 1e-14);
}

TEST(MannWhitney, TortoiseAndHare) {
  // Wikipedia, "Mann-Whitney U test", illustration: finishing order T H H H H H T T T T T H,
  // U = 11 for the tortoises (pairs a tortoise wins), U = 25 for the hares; with times, the
  // tortoises' U of "slower than" is 25. Exact two-sided p = 13/42 (computed with fractions).
  const std::vector<double> tortoise = {1, 7, 8, 9, 10, 11}, hare = {2, 3, 4, 5, 6, 12};
  const MannWhitney r = mann_whitney(tortoise, hare);
  EXPECT_EQ(r.u, 25);
  EXPECT_TRUE(r.exact);
  EXPECT_NEAR(r.p_value, 13.0 / 42.0, 1e-14);
  EXPECT_NEAR(mann_whitney(hare, tortoise).u, 11, 0);
  EXPECT_NEAR(cliffs_delta(tortoise, hare), (25.0 - 11.0) / 36.0, 1e-15);
  EXPECT_NEAR(cliffs_delta(hare, tortoise), -(25.0 - 11.0) / 36.0, 1e-15);
}

TEST(MannWhitney, HollanderWolfeDepressionExact) {
  const MannWhitney r = mann_whitney(kDepressionX, kDepressionY);
  EXPECT_EQ(r.u, 35);
  EXPECT_TRUE(r.exact);
  EXPECT_NEAR(r.p_value / 2, 0.1272, 5e-5);  // the published one-sided value
  EXPECT_NEAR(r.p_value, 2 * 0.1272061272061272, 1e-12);
}

TEST(MannWhitney, AirqualityNormalApproximationWithTies) {
  const MannWhitney r = mann_whitney(kOzoneMay, kOzoneAugust);
  EXPECT_EQ(r.u, 127.5);
  EXPECT_FALSE(r.exact);
  EXPECT_NEAR(r.p_value, 0.0001208, 5e-8);  // published
  EXPECT_NEAR(r.p_value, 0.00012080783076877465, 1e-12);
  // Cliff's delta is 2U/(mn) - 1 (Cliff 1993), ties counting half.
  EXPECT_NEAR(cliffs_delta(kOzoneMay, kOzoneAugust), 2 * 127.5 / (26.0 * 26.0) - 1, 1e-15);
}

TEST(MannWhitney, IdenticalSamplesAreNotDifferent) {
  const std::vector<double> same(80, 5.0);
  EXPECT_EQ(mann_whitney(same, same).p_value, 1.0);
  EXPECT_EQ(cliffs_delta(same, same), 0.0);
  EXPECT_THROW(mann_whitney({}, same), std::invalid_argument);
}

TEST(HodgesLehmann, DepressionShiftAndMosesInterval) {
  // The shift y - x is the median of the 50 differences: -0.305 (R prints the x - y location
  // difference 0.305). Exact rank k = 9 (P(U <= 8) = 20/1001 <= 0.025), so the 95% interval is
  // [D_(9), D_(42)] = [-0.76, 0.15] (from fractions and the sorted differences).
  const ShiftEstimate r = hodges_lehmann_shift(kDepressionX, kDepressionY, 0.95);
  EXPECT_NEAR(r.shift, -0.305, 1e-12);
  EXPECT_NEAR(r.ci.lo, -0.76, 1e-12);
  EXPECT_NEAR(r.ci.hi, 0.15, 1e-12);
}

TEST(HodgesLehmann, KthDifferenceMatchesBruteForceWithTies) {
  assay::test::SampleSource src(7);
  std::vector<double> x, y;
  for (int i = 0; i < 37; ++i) x.push_back(std::round(src.uniform() * 20) / 4);
  for (int i = 0; i < 23; ++i) y.push_back(std::round(src.uniform() * 20) / 4 + 0.5);
  std::vector<double> d;
  for (double a : x)
    for (double b : y) d.push_back(b - a);
  std::sort(d.begin(), d.end());
  std::sort(x.begin(), x.end());
  std::sort(y.begin(), y.end());
  for (std::size_t k = 1; k <= d.size(); k += 13)
    EXPECT_EQ(kth_pairwise_difference(x, y, static_cast<double>(k)), d[k - 1]) << k;
  EXPECT_EQ(kth_pairwise_difference(x, y, static_cast<double>(d.size())), d.back());
}

TEST(HodgesLehmann, NormalRankForLargeSamples) {
  // 60 x 60 (normal approximation): k = floor(1800 - 1.95996 * sqrt(3600 * 121 / 12)) = 1427.
  std::vector<double> x(60), y(60);
  for (int i = 0; i < 60; ++i) {
    x[i] = i;
    y[i] = i + 0.5;
  }
  const ShiftEstimate r = hodges_lehmann_shift(x, y, 0.95);
  std::vector<double> d;
  for (double a : x)
    for (double b : y) d.push_back(b - a);
  std::sort(d.begin(), d.end());
  EXPECT_EQ(r.shift, 0.5);
  EXPECT_EQ(r.ci.lo, d[1427 - 1]);
  EXPECT_EQ(r.ci.hi, d[3600 - 1427]);
}

// Too few samples for any rank to reach 95% (m = n = 2: P(U = 0) = 1/6): no interval, not the
// clamped [D_(1), D_(mn)] that missed the true shift in a third of trials. m = n = 4 reaches it.
TEST(HodgesLehmann, NoIntervalWhereNoRankReachesTheConfidence) {
  const std::vector<double> x{1.0, 2.0}, y{1.5, 2.5};
  const ShiftEstimate r = hodges_lehmann_shift(x, y, 0.95);
  EXPECT_EQ(r.shift, 0.5);
  EXPECT_TRUE(std::isinf(r.ci.lo) && r.ci.lo < 0);
  EXPECT_TRUE(std::isinf(r.ci.hi) && r.ci.hi > 0);
  const std::vector<double> x4{1, 2, 3, 4}, y4{1.5, 2.5, 3.5, 4.5};
  const ShiftEstimate r4 = hodges_lehmann_shift(x4, y4, 0.95);
  EXPECT_TRUE(std::isfinite(r4.ci.lo) && std::isfinite(r4.ci.hi));
}

TEST(Bootstrap, SeededAndDeterministic) {
  assay::test::SampleSource src(11);
  const auto base = src.lognormal(40, 100, 0.02), cand = src.lognormal(40, 105, 0.02);
  const Interval a = bootstrap_ratio_of_medians_ci(base, cand, {2000, 0.95, 1});
  const Interval b = bootstrap_ratio_of_medians_ci(base, cand, {2000, 0.95, 1});
  const Interval c = bootstrap_ratio_of_medians_ci(base, cand, {2000, 0.95, 2});
  EXPECT_EQ(a.lo, b.lo);
  EXPECT_EQ(a.hi, b.hi);
  EXPECT_NE(a.lo, c.lo);
  EXPECT_LT(a.lo, 1.05);
  EXPECT_GT(a.hi, 1.05);
  EXPECT_GT(a.lo, 1.0);
  EXPECT_THROW(bootstrap_ratio_of_medians_ci({}, cand), std::invalid_argument);
}

TEST(Bootstrap, CoversTheTrueRatio) {
  // 200 pairs of samples whose true ratio of medians is 1.03: a 95% interval should miss it in
  // about 5% of them; the percentile bootstrap of a median runs a little short at n = 30.
  int missed = 0;
  for (std::uint64_t seed = 1; seed <= 200; ++seed) {
    assay::test::SampleSource src(seed * 7919);
    const Interval ci = bootstrap_ratio_of_medians_ci(src.lognormal(30, 100, 0.02), src.lognormal(30, 103, 0.02),
                                                      {1000, 0.95, seed});
    missed += ci.lo > 1.03 || ci.hi < 1.03;
  }
  EXPECT_LE(missed, 20);
}

TEST(ChangePoints, FlatSeriesHasNoneEvenWithOneOutlier) {
  for (std::uint64_t seed = 1; seed <= 20; ++seed) {
    assay::test::SampleSource src(seed);
    auto series = src.lognormal(80, 100, 0.01);
    EXPECT_TRUE(detect_change_points(series).empty()) << seed;
    series[40] *= 3;  // one run on a busy machine is not a new level
    EXPECT_TRUE(detect_change_points(series).empty()) << seed;
  }
}

TEST(ChangePoints, FindsAStepAndItsMagnitude) {
  assay::test::SampleSource src(4);
  auto series = src.lognormal(30, 100, 0.01);
  const auto after = src.lognormal(30, 108, 0.01);
  series.insert(series.end(), after.begin(), after.end());
  const auto cps = detect_change_points(series);
  ASSERT_EQ(cps.size(), 1u);
  EXPECT_EQ(cps[0].index, 30u);
  EXPECT_NEAR(cps[0].magnitude, 0.08, 0.01);
  EXPECT_LT(cps[0].p_value, 1e-10);
  // Deterministic: the same answer again.
  const auto again = detect_change_points(series);
  EXPECT_EQ(again[0].index, cps[0].index);
  EXPECT_EQ(again[0].p_value, cps[0].p_value);
}

TEST(ChangePoints, TwoStepsInALongSeriesAcrossWindows) {
  assay::test::SampleSource src(9);
  std::vector<double> series;
  for (auto [n, level] : {std::pair{70, 100.0}, std::pair{60, 90.0}, std::pair{70, 95.0}}) {
    const auto part = src.lognormal(static_cast<std::size_t>(n), level, 0.01);
    series.insert(series.end(), part.begin(), part.end());
  }
  const auto cps = detect_change_points(series);  // Otava's defaults
  ASSERT_EQ(cps.size(), 2u);
  EXPECT_EQ(cps[0].index, 70u);
  EXPECT_NEAR(cps[0].magnitude, -0.10, 0.01);
  EXPECT_EQ(cps[1].index, 130u);
  EXPECT_NEAR(cps[1].magnitude, 0.0556, 0.01);
  // A magnitude floor above 6% keeps only the 10% step.
  const auto big = detect_change_points(series, {50, 0.001, 0.07});
  ASSERT_EQ(big.size(), 1u);
  EXPECT_EQ(big[0].index, 70u);
}

// A level is at least two runs, and constant sides (quantised medians) need three a side: the
// newest run alone is no change point, however exactly equal the runs before it.
TEST(ChangePoints, OneRunIsNoLevel) {
  EXPECT_TRUE(detect_change_points(std::vector<double>{100, 120, 120}).empty());
  std::vector<double> flat(39, 100.0);
  flat.push_back(103);
  EXPECT_TRUE(detect_change_points(flat).empty());
  flat.push_back(103);  // two runs at the new level, both sides constant: not yet
  EXPECT_TRUE(detect_change_points(flat).empty());
  flat.push_back(103);
  const auto cps = detect_change_points(flat);
  ASSERT_EQ(cps.size(), 1u);
  EXPECT_EQ(cps[0].index, 39u);
  // A noisy series whose newest run is 3x: no change point at it.
  assay::test::SampleSource src(3);
  auto noisy = src.lognormal(40, 100, 0.01);
  noisy.back() *= 3;
  EXPECT_TRUE(detect_change_points(noisy).empty());
}

// --min-change holds the change as printed: a 9.5% drop is under a 10% floor (its backward change,
// 10.5%, is not what is reported).
TEST(ChangePoints, TheMagnitudeFloorIsTheReportedChange) {
  assay::test::SampleSource src(5);
  auto series = src.lognormal(30, 100, 0.002);
  const auto after = src.lognormal(30, 90.5, 0.002);
  series.insert(series.end(), after.begin(), after.end());
  const auto found = detect_change_points(series, {50, 0.001, 0.09});
  ASSERT_EQ(found.size(), 1u);
  EXPECT_NEAR(found[0].magnitude, -0.095, 0.005);
  EXPECT_TRUE(detect_change_points(series, {50, 0.001, 0.10}).empty());
}

TEST(ChangePoints, StudentTTestOfTwoSegments) {
  // t = (5 - 3) / sqrt(2.5 * (1/5 + 1/5)) = 2 with 8 degrees of freedom.
  const std::vector<double> a = {1, 2, 3, 4, 5}, b = {3, 4, 5, 6, 7};
  EXPECT_NEAR(student_t_test_p(a, b), 0.0805162379572627, 1e-12);
  EXPECT_EQ(student_t_test_p(std::vector<double>{1, 1}, std::vector<double>{2, 2}), 0.0);
  EXPECT_EQ(student_t_test_p(std::vector<double>{1}, std::vector<double>{2}), 1.0);
}
