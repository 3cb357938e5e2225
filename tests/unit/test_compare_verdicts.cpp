// The verdict of one case: direction (a faster candidate is FASTER, for times and for
// throughputs), the false-alarm rate on samples from one distribution, and robustness to a
// few heavy outliers.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdio>

#include "compare_test_samples.hpp"
#include "stats/distributions.hpp"
#include "stats/sample_comparison.hpp"
#include "stats/serial_correlation.hpp"
#include "stats/session_noise.hpp"
#include "stats/summary.hpp"

using namespace assay::stats;
using assay::test::SampleSource;
using assay::test::throughputs;
using assay::test::with_outliers;

namespace {
constexpr double kWork = 2.0 * 2048 * 2048 * 2048;  // FLOPs of a GEMM call

Verdict verdict_of(const std::vector<double>& base, const std::vector<double>& cand, Better better,
                   const Thresholds& t = {}) {
  return compare_samples({base}, {cand}, better, t).verdict;
}
}  // namespace

TEST(Verdict, FivePercentFasterOrSlowerTimes) {
  for (std::uint64_t seed = 1; seed <= 10; ++seed) {
    SampleSource src(seed);
    const auto base = src.lognormal(40, 30000, 0.01);
    EXPECT_EQ(verdict_of(base, src.lognormal(40, 30000 * 0.95, 0.01), Better::lower), Verdict::faster) << seed;
    EXPECT_EQ(verdict_of(base, src.lognormal(40, 30000 * 1.05, 0.01), Better::lower), Verdict::slower) << seed;
  }
}

TEST(Verdict, FivePercentFasterOrSlowerThroughputs) {
  // Throughput is higher-is-better: a candidate with 5% more TFLOP/s is FASTER.
  for (std::uint64_t seed = 1; seed <= 10; ++seed) {
    SampleSource src(seed);
    const auto base = throughputs(src.lognormal(40, 30000, 0.01), kWork);
    const auto more = throughputs(src.lognormal(40, 30000 / 1.05, 0.01), kWork);
    const auto less = throughputs(src.lognormal(40, 30000 / 0.95, 0.01), kWork);
    const SampleComparison up = compare_samples({base}, {more}, Better::higher, {});
    EXPECT_EQ(up.verdict, Verdict::faster) << seed;
    EXPECT_GT(up.ratio, 1.0);
    EXPECT_EQ(verdict_of(base, less, Better::higher), Verdict::slower) << seed;
  }
}

TEST(Verdict, StatisticsPointTheSameWay) {
  SampleSource src(3);
  const auto base = src.lognormal(60, 1000, 0.01), cand = src.lognormal(60, 1050, 0.01);
  const SampleComparison c = compare_samples({base}, {cand}, Better::lower, {});
  EXPECT_NEAR(c.ratio, 1.05, 0.01);
  EXPECT_LT(c.ratio_ci.lo, c.ratio);
  EXPECT_GT(c.ratio_ci.lo, 1.02);
  EXPECT_GT(c.ratio_ci.hi, c.ratio);
  EXPECT_NEAR(c.hl_ratio, 1.05, 0.01);
  EXPECT_GT(c.hl_ratio_ci.lo, 1.02);
  EXPECT_GT(c.cliffs_delta, 0.9);  // nearly every candidate sample is slower
  EXPECT_LT(c.p_value, 1e-10);
  EXPECT_EQ(c.method, Method::samples);
  EXPECT_EQ(c.test, "Mann-Whitney normal");  // 60 > 50 samples: normal approximation
  EXPECT_EQ(c.p_value, c.mann_whitney_p);
  EXPECT_EQ(c.base_n, 60u);
  EXPECT_NE(c.why.find("5."), std::string::npos) << c.why;
  EXPECT_NE(c.why.find("slower"), std::string::npos) << c.why;
}

// Two samples from the same distribution, many seeds: how often is FASTER or SLOWER called?
struct FalseAlarms {
  int trials = 0, alarms = 0, rank_test_rejections = 0;
  double rate() const { return static_cast<double>(alarms) / trials; }
};
FalseAlarms false_alarms(const Thresholds& t, int trials, std::size_t n, bool outliers) {
  FalseAlarms f;
  for (int seed = 0; seed < trials; ++seed) {
    SampleSource src(1000 + static_cast<std::uint64_t>(seed));
    auto base = src.lognormal(n, 30000, 0.02), cand = src.lognormal(n, 30000, 0.02);
    if (outliers) {
      base = with_outliers(base, seed % 3, 3.0);
      cand = with_outliers(cand, (seed + 1) % 3, 3.0);
    }
    Thresholds ts = t;
    ts.seed = t.seed ^ static_cast<std::uint64_t>(seed);
    const SampleComparison c = compare_samples({base}, {cand}, Better::lower, ts);
    ++f.trials;
    f.alarms += c.verdict == Verdict::faster || c.verdict == Verdict::slower;
    f.rank_test_rejections += c.p_value < t.alpha;
  }
  return f;
}

TEST(FalseAlarmRate, WithinAlphaWithoutAFloor) {
  // No practical floor, alpha = 5%: only the statistics stand between noise and a verdict.
  // The allowance is alpha plus 2.33 binomial standard deviations (a 1% chance for a
  // correctly sized test to exceed it).
  Thresholds t;
  t.floor = 0.0;
  t.alpha = 0.05;
  const int trials = 1000;
  const FalseAlarms f = false_alarms(t, trials, 30, false);
  std::printf("false alarms without floor, alpha 0.05: %d of %d (%.2f%%); rank test rejections %d\n", f.alarms,
              f.trials, 100 * f.rate(), f.rank_test_rejections);
  const double allowance = t.alpha + 2.33 * std::sqrt(t.alpha * (1 - t.alpha) / trials);
  EXPECT_LE(f.rate(), allowance);
  // The rank test is neither broken nor blind: its rejection rate is near alpha itself.
  EXPECT_GT(f.rank_test_rejections, trials * t.alpha / 2);
  EXPECT_LT(f.rank_test_rejections, trials * t.alpha * 1.5);
}

TEST(FalseAlarmRate, DefaultsRaiseNoAlarmOnNoise) {
  // The defaults (alpha 1%, floor 2%) on 2% noise, with and without a few 3x outliers.
  const Thresholds t;
  const FalseAlarms plain = false_alarms(t, 1000, 30, false);
  const FalseAlarms heavy = false_alarms(t, 1000, 30, true);
  std::printf("false alarms with defaults: %d of %d plain, %d of %d with outliers\n", plain.alarms, plain.trials,
              heavy.alarms, heavy.trials);
  EXPECT_LE(plain.rate(), t.alpha);
  EXPECT_LE(heavy.rate(), t.alpha);
}

TEST(Verdict, HeavyOutliersDoNotFlipIt) {
  for (std::uint64_t seed = 1; seed <= 10; ++seed) {
    SampleSource src(seed);
    const auto base = src.lognormal(40, 30000, 0.01);
    const auto slower = src.lognormal(40, 31500, 0.01), faster = src.lognormal(40, 28500, 0.01);
    const auto same = src.lognormal(40, 30000, 0.01);
    // Outliers in the faster candidate, or in the base of a slower one, pull the mean the
    // wrong way; ranks and medians do not follow.
    EXPECT_EQ(verdict_of(base, with_outliers(faster, 3, 3.0), Better::lower), Verdict::faster) << seed;
    EXPECT_EQ(verdict_of(with_outliers(base, 3, 3.0), slower, Better::lower), Verdict::slower) << seed;
    const Verdict noise = verdict_of(base, with_outliers(same, 3, 3.0), Better::lower);
    EXPECT_TRUE(noise == Verdict::same || noise == Verdict::ambiguous) << seed << " " << verdict_name(noise);
    EXPECT_EQ(verdict_of(throughputs(base, kWork), throughputs(with_outliers(faster, 3, 3.0), kWork), Better::higher),
              Verdict::faster)
        << seed;
  }
}

TEST(Verdict, RulesOnGivenStatistics) {
  const Thresholds t;  // floor 2%, alpha 1%
  auto decided = [&](double ratio, double lo, double hi, double p, Better b = Better::lower) {
    SampleComparison c;
    c.ratio = ratio;
    c.ratio_ci = {lo, hi};
    c.p_value = p;
    decide_verdict(c, b, t);
    return c;
  };
  EXPECT_EQ(decided(1.05, 1.03, 1.07, 1e-6).verdict, Verdict::slower);
  EXPECT_EQ(decided(0.95, 0.93, 0.97, 1e-6).verdict, Verdict::faster);
  EXPECT_EQ(decided(1.05, 1.03, 1.07, 1e-6, Better::higher).verdict, Verdict::faster);
  EXPECT_EQ(decided(0.95, 0.93, 0.97, 1e-6, Better::higher).verdict, Verdict::slower);
  // Real but under the floor.
  const SampleComparison small = decided(1.012, 1.005, 1.019, 1e-4);
  EXPECT_EQ(small.verdict, Verdict::same);
  EXPECT_NE(small.why.find("within the 2% floor"), std::string::npos) << small.why;
  // Not significant, CI inside the floor band.
  EXPECT_EQ(decided(1.004, 0.992, 1.015, 0.4).verdict, Verdict::same);
  // Not significant, CI too wide to tell.
  const SampleComparison wide = decided(1.03, 0.95, 1.11, 0.2);
  EXPECT_EQ(wide.verdict, Verdict::ambiguous);
  EXPECT_NE(wide.why.find("too noisy"), std::string::npos) << wide.why;
  // The rank test alone is not enough: the CI must exclude 1 too.
  EXPECT_EQ(decided(1.04, 0.99, 1.09, 0.001).verdict, Verdict::ambiguous);
  // Just over the floor, significant: SLOWER; the ratio of exactly 1 + floor is not.
  EXPECT_EQ(decided(1.021, 1.01, 1.03, 1e-5).verdict, Verdict::slower);
  EXPECT_EQ(decided(1.02, 1.01, 1.03, 1e-5).verdict, Verdict::same);
}

TEST(Sessions, AgreeingSessionsGiveAVerdict) {
  SampleSource src(21);
  const Sessions base = {src.lognormal(20, 1000, 0.01), src.lognormal(20, 1000, 0.01), src.lognormal(20, 1000, 0.01)};
  const Sessions cand = {src.lognormal(20, 1060, 0.01), src.lognormal(20, 1060, 0.01)};
  const SampleComparison c = compare_samples(base, cand, Better::lower, {});
  EXPECT_EQ(c.method, Method::sessions);
  EXPECT_EQ(c.test, "t-test of 3+2 session medians");
  EXPECT_EQ(c.base_n, 60u);
  EXPECT_EQ(c.cand_n, 40u);
  EXPECT_EQ(c.base_sessions, 3u);
  EXPECT_EQ(c.cand_sessions, 2u);
  EXPECT_NEAR(c.ratio, 1.06, 0.01);
  EXPECT_NEAR(c.ratio, c.cand_median / c.base_median, 1e-12);
  EXPECT_EQ(c.verdict, Verdict::slower) << c.why;
  EXPECT_NE(c.why.find("t-test of 3+2 session medians p ="), std::string::npos) << c.why;
  EXPECT_THROW(compare_samples({{1.0, -2.0}}, cand, Better::lower, {}), std::invalid_argument);
}

// Session medians on CUDA events' 32 ns grid can agree exactly: their spread is floored at a
// tick's rounding error (before: p = 0 and SLOWER for identical code one tick apart).
TEST(Sessions, MediansOnATimersGridAreNotNoiseFree) {
  SampleSource src(7);
  const auto on_grid = [&](double median) {
    std::vector<double> v = src.lognormal(101, median, 0.02);
    for (double& x : v) x = 32.0 * std::round(x / 32.0);
    return v;
  };
  const std::vector<double> lo = on_grid(1500), hi = on_grid(1530);
  EXPECT_NEAR(relative_timer_step(lo, hi), 32.0 / std::min(median_of(lo), median_of(hi)), 1e-12);
  const SampleComparison c = compare_samples({lo, lo}, {hi}, Better::lower, {});
  EXPECT_GT(c.p_value, 0.05) << c.why;
  EXPECT_NE(c.test.find("spread floored at a timer step"), std::string::npos) << c.test;
  const SampleComparison p = compare_paired_rounds({lo, lo, lo}, {hi, hi, hi}, Better::lower, {});
  EXPECT_GT(p.p_value, 1e-3) << p.why;
  EXPECT_NE(p.test.find("spread floored at a timer step"), std::string::npos) << p.test;
  const SampleComparison free = compare_samples({src.lognormal(20, 1000, 0.01), src.lognormal(20, 1000, 0.01)},
                                                {src.lognormal(20, 1060, 0.01)}, Better::lower, {});
  EXPECT_EQ(free.test, "t-test of 2+1 session medians");
}

// One session a side of a ~1 us kernel on a 32 ns grid, truly 1.2% apart (under the 2% floor):
// the medians land on ticks 3.2% apart and the bootstrap of quantised samples had a zero-width
// interval, so SLOWER came out every time (p < 1e-16). The interval now holds a step either side
// and the floor is judged a step closer to 1. Off a grid (continuous values) there is no step.
TEST(Verdict, OneSessionOnATimersGridIsNotCalledBeyondTheFloorByRounding) {
  int beyond = 0;
  for (std::uint64_t seed = 1; seed <= 40; ++seed) {
    SampleSource src(900 + seed);
    const auto on_grid = [&](double median) {
      std::vector<double> v = src.lognormal(100, median, 0.005);
      for (double& x : v) x = 32.0 * std::round(x / 32.0);
      return v;
    };
    const SampleComparison c = compare_samples({on_grid(1000)}, {on_grid(1012)}, Better::lower, {});
    EXPECT_GT(c.timer_step, 0.03) << seed;
    EXPECT_LE(c.ratio_ci.lo, 1.012) << seed << ": " << c.why;
    beyond += c.verdict == Verdict::slower || c.verdict == Verdict::faster;
  }
  EXPECT_EQ(beyond, 0);
  SampleSource src(5);
  EXPECT_EQ(relative_timer_step(src.lognormal(50, 1000, 0.01), src.lognormal(50, 1000, 0.01)), 0.0);
}

// One sample a side (or up to 4) is no interval: AMBIGUOUS, not SAME from a zero-width one.
TEST(Verdict, TooFewSamplesForAnIntervalAreAmbiguous) {
  const SampleComparison one = compare_samples({{1000.0}}, {{1015.0}}, Better::lower, {});
  EXPECT_EQ(one.verdict, Verdict::ambiguous) << one.why;
  EXPECT_NE(one.why.find("too few for an interval"), std::string::npos) << one.why;
  SampleSource src(6);
  EXPECT_EQ(compare_samples({src.lognormal(4, 1000, 0.01)}, {src.lognormal(30, 1000, 0.01)}, Better::lower, {}).verdict,
            Verdict::ambiguous);
  const SampleComparison five =
      compare_samples({src.lognormal(5, 1000, 0.01)}, {src.lognormal(5, 1000, 0.01)}, Better::lower, {});
  EXPECT_EQ(five.why.find("too few"), std::string::npos) << five.why;  // 5 a side: an interval
}

// The history's interval: von Neumann's estimator from K sessions has 2(K-1)^2/(3K-4) degrees of
// freedom (2.9 at K = 5), not K - 1; with no within-session width the t-test uses exactly those.
TEST(Sessions, TheHistorysSpreadHasVonNeumannsDegreesOfFreedom) {
  SampleComparison c;
  c.ratio = 1.05;
  c.ratio_ci = {1.05, 1.05};  // no within-session width
  const SessionSpread spread{0.02, 5};
  widen_by_session_spread(c, spread, Better::lower, {});
  const double se = std::sqrt(2.0) * 0.02;
  EXPECT_NEAR(c.p_value, student_t_two_sided_p(std::log(1.05) / se, 2.0 * 16.0 / 11.0), 1e-12);
}

TEST(Sessions, FivePercentFasterOrSlowerOverThreeSessions) {
  // Runs land 0.5% apart, samples spread 1% within a run.
  const auto sessions = [](SampleSource& src, double median) {
    Sessions s;
    for (int i = 0; i < 3; ++i) s.push_back(src.lognormal(20, median * std::exp(0.005 * src.standard_normal()), 0.01));
    return s;
  };
  for (std::uint64_t seed = 1; seed <= 10; ++seed) {
    SampleSource src(300 + seed);
    const Sessions base = sessions(src, 1000);
    EXPECT_EQ(compare_samples(base, sessions(src, 950), Better::lower, {}).verdict, Verdict::faster) << seed;
    EXPECT_EQ(compare_samples(base, sessions(src, 1050), Better::lower, {}).verdict, Verdict::slower) << seed;
    // The same as throughputs: 5% more work per second is FASTER.
    Sessions base_rate, more_rate;
    for (const auto& x : base) base_rate.push_back(throughputs(x, kWork));
    for (const auto& x : sessions(src, 1000 / 1.05)) more_rate.push_back(throughputs(x, kWork));
    EXPECT_EQ(compare_samples(base_rate, more_rate, Better::higher, {}).verdict, Verdict::faster) << seed;
  }
}

TEST(Sessions, ASingleBaseRunAgainstSessionsUsesTheirSpread) {
  SampleSource src(22);
  const Sessions base = {src.lognormal(30, 1000, 0.01)};
  const Sessions cand = {src.lognormal(30, 1080, 0.01), src.lognormal(30, 1080, 0.01), src.lognormal(30, 1080, 0.01)};
  const SampleComparison c = compare_samples(base, cand, Better::lower, {});
  EXPECT_EQ(c.method, Method::sessions);
  EXPECT_EQ(c.verdict, Verdict::slower) << c.why;
}

TEST(Sessions, DisagreeingSessionsAreNotAVerdict) {
  // Within each run the candidate looks 4% slower, but the base's own runs differ by as much:
  // one run each would be called SLOWER; the sessions show it is noise between runs.
  SampleSource src(23);
  const auto b1 = src.lognormal(30, 1000, 0.005), c1 = src.lognormal(30, 1040, 0.005);
  EXPECT_EQ(compare_samples({b1}, {c1}, Better::lower, {}).verdict, Verdict::slower);
  const Sessions base = {b1, src.lognormal(30, 1045, 0.005), src.lognormal(30, 985, 0.005)};
  const Sessions cand = {c1, src.lognormal(30, 990, 0.005), src.lognormal(30, 1030, 0.005)};
  const SampleComparison c = compare_samples(base, cand, Better::lower, {});
  EXPECT_EQ(c.verdict, Verdict::ambiguous) << c.why;
}

TEST(FalseAlarmRate, SessionsThatShiftBetweenRuns) {
  // Each run of the same code lands at its own level (2% spread between runs, 1% within):
  // three sessions a side, 1000 seeds. The session-level test keeps the false-alarm rate at
  // alpha (allowance: + 2.33 binomial standard deviations) where pooling the samples would not.
  const Thresholds t;
  int alarms = 0, pooled_rejections = 0;
  const int trials = 1000;
  for (int seed = 0; seed < trials; ++seed) {
    SampleSource src(50000 + static_cast<std::uint64_t>(seed));
    Sessions base, cand;
    for (int s = 0; s < 3; ++s) base.push_back(src.lognormal(20, 1000 * std::exp(0.02 * src.standard_normal()), 0.01));
    for (int s = 0; s < 3; ++s) cand.push_back(src.lognormal(20, 1000 * std::exp(0.02 * src.standard_normal()), 0.01));
    const SampleComparison c = compare_samples(base, cand, Better::lower, t);
    alarms += c.verdict == Verdict::faster || c.verdict == Verdict::slower;
    pooled_rejections += c.mann_whitney_p < t.alpha;
  }
  std::printf("false alarms with 3+3 shifting sessions: %d of %d; pooled Mann-Whitney rejections %d\n", alarms, trials,
              pooled_rejections);
  EXPECT_LE(alarms, trials * (t.alpha + 2.33 * std::sqrt(t.alpha * (1 - t.alpha) / trials)));
  EXPECT_GT(pooled_rejections, trials / 2);  // the trap this avoids
}

namespace {
// One run whose clock switches between two modes, as under a power cap: the level is `median`
// or 3% above it, the mode flips with probability 1/`persistence` per sample (runs of about
// `persistence` samples), with 0.5% independent noise on top.
std::vector<double> clock_mode_runs(SampleSource& src, std::size_t n, double median, double persistence) {
  std::vector<double> v(n);
  bool slow = src.uniform() < 0.5;
  for (double& x : v) {
    if (src.uniform() < 1.0 / persistence) slow = !slow;
    x = median * (slow ? 1.03 : 1.0) * std::exp(0.005 * src.standard_normal());
  }
  return v;
}
}  // namespace

TEST(FalseAlarmRate, OneRunASideWithClockModeRuns) {
  // Same code on both sides, one run each, the samples in runs of ~200 of 4000. The batch
  // medians are the replicates, so a side that drew more slow runs is not a regression; the
  // samples, as independent replicates, would call one nearly every time.
  const Thresholds t;
  int alarms = 0, sample_test_alarms = 0;
  const int trials = 200;
  for (int seed = 0; seed < trials; ++seed) {
    SampleSource src(70000 + static_cast<std::uint64_t>(seed));
    const auto base = clock_mode_runs(src, 4000, 1000, 200), cand = clock_mode_runs(src, 4000, 1000, 200);
    const SampleComparison c = compare_samples({base}, {cand}, Better::lower, t);
    ASSERT_EQ(c.method, Method::batches);
    EXPECT_EQ(c.test, "t-test of 10+10 batch medians");
    alarms += c.verdict == Verdict::faster || c.verdict == Verdict::slower;
    sample_test_alarms += c.mann_whitney_p < t.alpha;
  }
  std::printf("false alarms with clock-mode runs: %d of %d; Mann-Whitney on the samples rejects %d\n", alarms, trials,
              sample_test_alarms);
  EXPECT_LE(alarms, trials * (t.alpha + 2.33 * std::sqrt(t.alpha * (1 - t.alpha) / trials)));
  EXPECT_GT(sample_test_alarms, trials / 2);  // the trap this avoids
}

// Modes a fraction of the spread apart (0.4% in samples spread 1%), in runs of ~200 of 4000: the
// lag-1 autocorrelation (~0.036) stays under its threshold (0.049), so the sample tests ran and
// called a fifth of A/A comparisons FASTER or SLOWER with no floor. The batch means see the runs.
TEST(FalseAlarmRate, FaintClockModesAreSeenByTheirBatchMeans) {
  Thresholds t;
  t.floor = 0;
  int alarms = 0, batches = 0;
  const int trials = 100;
  for (int seed = 0; seed < trials; ++seed) {
    SampleSource src(81000 + static_cast<std::uint64_t>(seed));
    const auto side = [&] {
      std::vector<double> v(4000);
      bool slow = src.uniform() < 0.5;
      for (double& x : v) {
        if (src.uniform() < 1.0 / 200) slow = !slow;
        x = 1000 * (slow ? 1.004 : 1.0) * std::exp(0.01 * src.standard_normal());
      }
      return v;
    };
    const SampleComparison c = compare_samples({side()}, {side()}, Better::lower, t);
    batches += c.method == Method::batches;
    alarms += c.verdict == Verdict::faster || c.verdict == Verdict::slower;
  }
  std::printf("faint clock modes: batches method in %d of %d, false alarms %d\n", batches, trials, alarms);
  EXPECT_GE(batches, trials * 8 / 10);
  EXPECT_LE(alarms, 5);
  // Independent samples rarely look batched (0.1% a side by construction).
  int independent_batched = 0;
  for (int seed = 0; seed < 200; ++seed) {
    SampleSource src(82000 + static_cast<std::uint64_t>(seed));
    independent_batched += batch_means_vary_too_much(src.lognormal(4000, 1000, 0.01));
  }
  EXPECT_LE(independent_batched, 3);
}

TEST(Verdict, ARealChangeWithClockModeRunsIsStillFound) {
  SampleSource src(31);
  const auto base = clock_mode_runs(src, 4000, 1000, 50), cand = clock_mode_runs(src, 4000, 1080, 50);
  const SampleComparison c = compare_samples({base}, {cand}, Better::lower, {});
  EXPECT_EQ(c.method, Method::batches);
  EXPECT_EQ(c.verdict, Verdict::slower) << c.why;
  EXPECT_NEAR(c.ratio, 1.08, 0.02);
  EXPECT_EQ(method_name(c.method), "batches");
}

TEST(Verdict, IndependentSamplesKeepTheSamplesMethod) {
  SampleSource src(5);
  const SampleComparison c =
      compare_samples({src.lognormal(4000, 1000, 0.01)}, {src.lognormal(4000, 1000, 0.01)}, Better::lower, {});
  EXPECT_EQ(c.method, Method::samples);
}
