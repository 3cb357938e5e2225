// assay tune's search and assay profile's diagnosis (src/tune) on tables and a seeded fake
// machine whose variants have known speeds.
#include <gtest/gtest.h>

#include <cmath>
#include <map>

#include "compare_test_samples.hpp"
#include "tune/bottleneck.hpp"
#include "tune/search.hpp"

using namespace assay;
using namespace assay::tune;

TEST(Bottleneck, TheDecisionTree) {
  struct Row {
    KernelMetrics m;  // tensor pipe, SM throughput, DRAM, memory (L1/shared/L2/DRAM) throughput
    Bottleneck want;
  };
  const std::optional<double> none;
  const Row rows[] = {
      {{85, 85, 30, 45}, Bottleneck::compute},   // a GEMM: tensor pipe busy, DRAM not
      {{5, 20, 88, 88}, Bottleneck::memory},     // a copy
      {{60, 70, 75, 75}, Bottleneck::memory},    // DRAM > 70% and above the compute side
      {{0, 80, 20, 30}, Bottleneck::compute},    // no tensor pipe: SM throughput is the compute side
      {{5, 85, 20, 30}, Bottleneck::compute},    // an FMA-bound softmax: the SM, not the idle tensor pipe
      {{10, 15, 20, 25}, Bottleneck::latency},   // little in flight
      {{10, 30, 10, 92}, Bottleneck::memory},    // shared-memory bound: DRAM idle, L1 saturated
      {{70, 70, 29, 80}, Bottleneck::memory},    // a GEMM bound by its shared-memory traffic
      {{90, 90, 30, 80}, Bottleneck::compute},   // both high, compute higher
      {{45, 50, 50, 50}, Bottleneck::mixed},
      {{30, 30, 70, 70}, Bottleneck::mixed},     // exactly 70% is not over it
      {{none, none, none, none}, Bottleneck::unknown},   // ncu reported nothing: no class, not "latency"
      {{none, none, 20, 20}, Bottleneck::unknown},       // memory alone cannot say latency or compute
      {{none, none, 90, 90}, Bottleneck::memory},        // ... but can say memory-bound
      {{85, none, 20, none}, Bottleneck::compute},
  };
  for (const auto& r : rows) {
    const Diagnosis d = diagnose(r.m);
    EXPECT_EQ(d.kind, r.want) << d.rule;
    EXPECT_FALSE(d.advice.empty());
  }
  EXPECT_EQ(diagnose({85, 60, 30, 45}).rule,
            "tensor pipe > 50% (memory <= 70%, or below the compute side) (tensor pipe 85%, L1/shared/L2 45%)");
  EXPECT_EQ(diagnose({10, 30, 10, 92}).rule, "L1/shared/L2 > 70%, at least the compute side (SM throughput 30%, L1/shared/L2 92%)");
  EXPECT_EQ(diagnose({none, none, none, none}).rule,
            "ncu reported no compute throughput, and the other side decides nothing (tensor pipe not reported, DRAM not reported)");
  EXPECT_EQ(bottleneck_name(Bottleneck::latency), "latency-bound");
  EXPECT_EQ(bottleneck_name(Bottleneck::unknown), "unknown");
}

TEST(Bottleneck, RooflineOfAGemmAndACopy) {
  // H100 SXM: 989 TFLOP/s dense f16, 3352 GB/s. A 4096^3 f16 GEMM in 200 us.
  const double n = 4096;
  const RooflinePoint g = roofline(2 * n * n * n, 3 * n * n * 2, 200e3, 989, 3352);
  EXPECT_NEAR(g.intensity, 2 * n / 6, 1e-9);
  EXPECT_FALSE(g.under_memory_roof);
  EXPECT_DOUBLE_EQ(g.bound_tflops, 989);
  EXPECT_NEAR(g.achieved_tflops, 687.2, 0.1);
  EXPECT_NEAR(g.fraction, 687.2 / 989, 1e-3);
  // A copy of 1 GiB (a FLOP per element, to have an intensity): far under the bandwidth roof's corner.
  const RooflinePoint c = roofline(268435456, 2.0 * 1073741824, 700e3, 989, 3352);
  EXPECT_TRUE(c.under_memory_roof);
  EXPECT_NEAR(c.bound_tflops, 0.125 * 3352 / 1e3, 1e-9);
  EXPECT_THROW(roofline(1, 0, 1, 1, 1), std::invalid_argument);
}

namespace {

// A machine whose variants run at known speeds: time = base[shape] / speed[shape], each sample
// log-normal with the variant's noise; a variant may fail its check on one shape. Samples per
// session grow with the budget, as a stopping rule's would.
class FakeMachine : public Evaluator {
 public:
  struct Variant {
    std::vector<double> speed;  // per shape, against the baseline (1 = as fast)
    double noise = 0.01;
    int fails_on = -1;
    bool untimed = false;  // passes its check, but its sessions return no samples
  };
  FakeMachine(std::vector<double> base, std::uint64_t seed) : base_(std::move(base)), src_(seed) {}
  void add(const std::string& name, Variant v) { variants_[name] = std::move(v); }
  std::string check(const std::string& name, std::size_t shape) override {
    ++checks[name];
    const auto it = variants_.find(name);
    if (it == variants_.end()) return baseline_check;
    return it->second.fails_on == static_cast<int>(shape) ? "fails=12/4096" : "";
  }
  std::vector<double> measure(const std::string& name, std::size_t shape, double budget) override {
    if (measures_left-- == 0) throw Interrupted{};
    ++measures[name];
    budgets[name].push_back(budget);
    const auto it = variants_.find(name);
    if (it == variants_.end() ? baseline_untimed : it->second.untimed) throw NotTimed("error: no samples");
    const double speed = it == variants_.end() ? 1.0 : it->second.speed[shape];
    const double noise = it == variants_.end() ? 0.01 : it->second.noise;
    const auto n = static_cast<std::size_t>(std::max(5.0, 40 * budget));
    return src_.lognormal(n, base_[shape] / speed, noise);
  }
  std::map<std::string, int> checks, measures;
  std::map<std::string, std::vector<double>> budgets;
  std::string baseline_check;     // what checking the baseline says
  bool baseline_untimed = false;
  long measures_left = -1;        // Ctrl-C after this many sessions (-1: never)

 private:
  std::vector<double> base_;
  std::map<std::string, Variant> variants_;
  test::SampleSource src_;
};

const VariantOutcome& outcome(const TuneOutcome& t, const std::string& name) {
  for (const auto& v : t.variants)
    if (v.name == name) return v;
  throw std::runtime_error("no variant " + name);
}

}  // namespace

TEST(TuneSearch, EliteDropRulesCheckAndPromotion) {
  FakeMachine m({10e3, 20e3, 40e3, 80e3, 160e3}, 7);
  m.add("fast", {{1.10, 1.10, 1.10, 1.10, 1.10}});
  m.add("faster-but-wrong", {{1.30, 1.30, 1.30, 1.30, 1.30}, 0.01, 2});
  m.add("meh", {{1.02, 1.02, 1.02, 1.02, 1.02}});
  m.add("uneven", {{1.20, 1.20, 1.20, 0.90, 0.90}});
  m.add("good", {{1.06, 1.05, 1.07, 1.05, 1.06}});
  const TuneOutcome t = search_variants({"fast", "faster-but-wrong", "meh", "uneven", "good"}, "base", 5, m, {});
  // The wrong variant is out before it is ever timed.
  EXPECT_NE(outcome(t, "faster-but-wrong").dropped.find("failed its check (shape 2: fails=12/4096)"), std::string::npos);
  EXPECT_EQ(m.measures["faster-but-wrong"], 0);
  EXPECT_NE(outcome(t, "meh").dropped.find("under 3%"), std::string::npos) << outcome(t, "meh").dropped;
  EXPECT_NE(outcome(t, "uneven").dropped.find("regresses on 2 of 5 shapes"), std::string::npos)
      << outcome(t, "uneven").dropped;
  ASSERT_EQ(t.elite.size(), 2u);
  EXPECT_EQ(t.elite[0], "fast");
  EXPECT_EQ(t.elite[1], "good");
  EXPECT_NEAR(outcome(t, "fast").geomean, 1.10, 0.01);
  ASSERT_TRUE(t.promotion);
  EXPECT_EQ(t.promotion->variant, "fast");
  EXPECT_TRUE(t.promotion->promoted) << t.promotion->why;
  EXPECT_EQ(t.promotion->per_shape.size(), 5u);
}

TEST(TuneSearch, ANoisyLeaderIsNotPromoted) {
  FakeMachine m({10e3, 20e3, 40e3}, 11);
  m.add("noisy", {{1.06, 1.06, 1.06}, 0.25});
  const TuneOutcome t = search_variants({"noisy"}, "base", 3, m, {});
  // Its measured geomean (seed 11) clears the 3% gain, so it leads the elite; its sessions vary by
  // 25%, so the promotion's comparison cannot call it FASTER.
  ASSERT_TRUE(t.promotion) << outcome(t, "noisy").dropped;
  EXPECT_EQ(t.promotion->variant, "noisy");
  EXPECT_FALSE(t.promotion->promoted) << t.promotion->why;
}

TEST(TuneSearch, SuccessiveHalvingFindsTheBestForLessThanExhaustive) {
  FakeMachine m({10e3, 40e3, 160e3}, 13);
  std::vector<std::string> names;
  for (int i = 0; i < 24; ++i) {
    const double s = 0.9 + 0.0125 * i;  // 0.90 .. 1.1875
    names.push_back("v" + std::to_string(i));
    m.add(names.back(), {{s, s, s}});
  }
  const TuneOutcome t = search_variants(names, "base", 3, m, {});
  ASSERT_FALSE(t.elite.empty());
  EXPECT_EQ(t.elite.front(), "v23");
  // Exhaustive: 24 variants and the baseline twice, 3 shapes, full budget each.
  EXPECT_LT(t.budget_spent - (t.promotion ? 2.0 * 3 * 3 : 0.0), 26.0 * 3);
  std::size_t halved = 0;
  for (const auto& v : t.variants) halved += v.dropped.find("successive halving") != std::string::npos;
  EXPECT_EQ(halved, 16u);  // 24 -> 12 at budget 0.25 -> 8 at 0.5, then the full budget
  EXPECT_THROW(search_variants({}, "base", 3, m, {}), std::invalid_argument);
  EXPECT_THROW(search_variants({"base"}, "base", 3, m, {}), std::invalid_argument);
}

// With more than 32 variants, two halvings leave more than 8: halving goes on, at budgets below
// the quarter, until 8 are left for the full budget (successive halving, as docs/tune.md says).
TEST(TuneSearch, SuccessiveHalvingGoesOnUntilEightAreLeft) {
  FakeMachine m({10e3, 40e3}, 17);
  std::vector<std::string> names;
  for (int i = 0; i < 40; ++i) {
    const double s = 0.9 + 0.01 * i;
    names.push_back("v" + std::to_string(i));
    m.add(names.back(), {{s, s}});
  }
  TuneOptions o;
  o.elite = 1;
  const TuneOutcome t = search_variants(names, "base", 2, m, o);
  std::size_t full = 0;
  for (const auto& v : t.variants) full += v.budget == 1.0;
  EXPECT_EQ(full, 8u);  // 40 -> 20 -> 10 -> 8
  // Three rounds at 1/8, 1/4, 1/2, then the full budget and the promotion (3 sessions a shape).
  EXPECT_EQ(m.budgets["v39"], (std::vector<double>{0.125, 0.125, 0.25, 0.25, 0.5, 0.5, 1, 1, 1, 1, 1, 1, 1, 1}));
  EXPECT_EQ(t.elite.front(), "v39");
}

// A variant that passes its check but cannot be timed is out with the reason, and the others
// are compared; a baseline that cannot be timed ends the search, saying so.
TEST(TuneSearch, AVariantThatCannotBeTimedIsDroppedAndTheSearchGoesOn) {
  FakeMachine m({10e3, 20e3}, 19);
  m.add("fast", {{1.2, 1.2}});
  FakeMachine::Variant mute{{1.5, 1.5}};
  mute.untimed = true;
  m.add("mute", mute);
  const TuneOutcome t = search_variants({"mute", "fast"}, "base", 2, m, {});
  EXPECT_EQ(t.baseline_fault, BaselineFault::none);
  EXPECT_EQ(outcome(t, "mute").dropped, "could not be timed (shape 0: error: no samples)");
  EXPECT_EQ(outcome(t, "mute").budget, 0.0);
  ASSERT_EQ(t.elite, std::vector<std::string>{"fast"});
  ASSERT_TRUE(t.promotion);

  FakeMachine b({10e3, 20e3}, 19);
  b.add("fast", {{1.2, 1.2}});
  b.baseline_untimed = true;
  const TuneOutcome u = search_variants({"fast"}, "base", 2, b, {});
  EXPECT_EQ(u.baseline_fault, BaselineFault::not_timed);
  EXPECT_EQ(u.baseline_failure, "shape 0: error: no samples");
  EXPECT_TRUE(u.elite.empty());
}

// The baseline is checked on every shape before any variant: one that fails or cannot run here
// ends the search before a variant is checked or timed.
TEST(TuneSearch, TheBaselineIsCheckedFirst) {
  for (const auto& [says, fault] : {std::pair<std::string, BaselineFault>{"check-failed: fails=3/64", BaselineFault::check_failed},
                                    {"skipped: no CUDA device", BaselineFault::skipped}}) {
    FakeMachine m({10e3, 20e3}, 23);
    m.add("fast", {{1.2, 1.2}});
    m.baseline_check = says;
    const TuneOutcome t = search_variants({"fast"}, "base", 2, m, {});
    EXPECT_EQ(t.baseline_fault, fault) << says;
    EXPECT_EQ(t.baseline_failure, "shape 0: " + says);
    EXPECT_EQ(m.checks["fast"], 0);
    EXPECT_EQ(m.measures.size(), 0u);
    EXPECT_EQ(outcome(t, "fast").dropped, "the baseline failed: not compared");
  }
}

// Ctrl-C part-way: the search stops at once and keeps the rounds it finished whole.
TEST(TuneSearch, AnInterruptionKeepsWhatWasFinished) {
  FakeMachine m({10e3, 20e3}, 29);
  std::vector<std::string> names;
  for (int i = 0; i < 12; ++i) {
    names.push_back("v" + std::to_string(i));
    m.add(names.back(), {{1.0 + 0.01 * i, 1.0 + 0.01 * i}});
  }
  // The first round (budget 1/4) is 2 shapes x (12 variants + the baseline twice) sessions; the
  // signal comes during the full-budget round.
  m.measures_left = 2 * 14 + 5;
  const TuneOutcome t = search_variants(names, "base", 2, m, {});
  EXPECT_TRUE(t.interrupted);
  EXPECT_TRUE(t.elite.empty());
  EXPECT_FALSE(t.promotion);
  for (const auto& v : t.variants) {
    EXPECT_EQ(v.budget, 0.25) << v.name;  // the last whole round
    EXPECT_EQ(v.speedup.size(), 2u) << v.name;
    EXPECT_FALSE(v.dropped.empty()) << v.name;
  }
  EXPECT_EQ(outcome(t, "v11").dropped, "the search was interrupted before its end");
}
