#include <gtest/gtest.h>

#include <chrono>

#include "measure/measure_loop.hpp"
#include "measure/criterion.hpp"

using namespace assay;
using namespace assay::measure;

namespace {
// Returns scripted samples; counts calls.
class ScriptedSampler final : public Sampler {
 public:
  ScriptedSampler(std::vector<Sample> script, double reference_mhz)
      : script_(std::move(script)), reference_(reference_mhz) {}
  std::string mode() const override { return "scripted"; }
  void warmup_call() override { ++warmups; }
  Sample sample() override { return script_[next_++ % script_.size()]; }
  double reference_sm_clock_mhz() const override { return reference_; }
  int warmups = 0;

 private:
  std::vector<Sample> script_;
  double reference_;
  std::size_t next_ = 0;
};

// The measurement settings of a test: a method and a criterion.
struct Settings {
  Method method;
  Criterion criterion;
};

Settings quick() {
  Settings c;
  c.method.warmup.calls = 2;
  c.method.warmup.min_s = 0;
  c.criterion.min_samples = 10;
  c.criterion.max_samples = 1000;
  c.criterion.min_time_s = 0;
  c.criterion.target_rel_ci = 0.01;
  c.criterion.timeout_s = 5;
  c.method.throttle.backoff_s = 0;
  return c;
}
}  // namespace

TEST(MeasureLoop, RecordsTheSamplersGapAndItsOverruns) {
  class GapSampler final : public Sampler {
   public:
    std::string mode() const override { return "scripted"; }
    void warmup_call() override {}
    Sample sample() override { return {100, 0}; }
    double sample_gap_us() const override { return 150; }
    std::uint64_t gap_overruns() const override { return 3; }
  } gapped;
  const auto rec = run_measurement(gapped, quick().method, quick().criterion);
  EXPECT_EQ(rec.gap_us, 150.0);
  EXPECT_EQ(rec.gap_overruns, 3u);
  ScriptedSampler plain({{100, 0}}, 0);
  const auto none = run_measurement(plain, quick().method, quick().criterion);
  EXPECT_EQ(none.gap_us, 0.0);
  EXPECT_EQ(none.gap_overruns, 0u);
}

TEST(MeasureLoop, ConvergesOnSteadySamplesAfterMinSamples) {
  ScriptedSampler s({{100, 0}}, 0);
  const auto rec = run_measurement(s, quick().method, quick().criterion);
  EXPECT_EQ(rec.stop_reason, "converged");
  EXPECT_EQ(rec.samples_ns.size(), 10u);
  EXPECT_EQ(s.warmups, 2);
  EXPECT_EQ(rec.warmup_calls, 2u);
}

TEST(MeasureLoop, NoisySamplesRunToTheCap) {
  ScriptedSampler s({{100, 0}, {300, 0}}, 0);  // the median CI never narrows
  auto cfg = quick();
  cfg.criterion.max_samples = 50;
  const auto rec = run_measurement(s, cfg.method, cfg.criterion);
  EXPECT_EQ(rec.stop_reason, "max-samples");
  EXPECT_EQ(rec.samples_ns.size(), 50u);
}

TEST(MeasureLoop, TimeoutStopsANoisyCase) {
  ScriptedSampler s({{100, 0}, {300, 0}}, 0);
  auto cfg = quick();
  cfg.criterion.max_samples = 100000000;
  cfg.criterion.timeout_s = 0.05;
  const auto rec = run_measurement(s, cfg.method, cfg.criterion);
  EXPECT_EQ(rec.stop_reason, "timeout");
  EXPECT_GE(rec.elapsed_s, 0.05);
}

TEST(MeasureLoop, ThrottledSamplesAreDropped) {
  // Reference 2000 MHz, threshold 0.75: 1400 MHz is throttled, 1600 is not.
  ScriptedSampler s({{100, 1600}, {999, 1400}}, 2000);
  const auto rec = run_measurement(s, quick().method, quick().criterion);
  EXPECT_EQ(rec.stop_reason, "converged");
  EXPECT_EQ(rec.samples_ns.size(), 10u);
  EXPECT_EQ(rec.dropped_throttled, 9u);  // alternating; the loop stops at the 10th kept sample
  for (double x : rec.samples_ns) EXPECT_EQ(x, 100);
  EXPECT_EQ(rec.sm_clock_mhz.size(), 10u);
}

TEST(MeasureLoop, MinTimeIsRespected) {
  ScriptedSampler s({{100, 0}}, 0);
  auto cfg = quick();
  cfg.criterion.min_time_s = 0.03;
  cfg.criterion.max_samples = 100000000;
  const auto rec = run_measurement(s, cfg.method, cfg.criterion);
  EXPECT_EQ(rec.stop_reason, "converged");
  EXPECT_GE(rec.elapsed_s, 0.03);
  EXPECT_GT(rec.samples_ns.size(), 10u);
}

TEST(StoppingRule, ReasonsInOrder) {
  auto cfg = quick();
  StoppingRule r(cfg.criterion);
  for (int i = 0; i < 9; ++i) r.add(100);
  EXPECT_FALSE(r.stop_reason(0).has_value());      // under min_samples
  EXPECT_EQ(r.stop_reason(10).value(), "timeout");  // budget spent
  r.add(100);
  EXPECT_EQ(r.stop_reason(0).value(), "converged");
}

namespace {
// A sampler whose board counter advances 2 J per sample (warm-up calls too).
class EnergySampler final : public Sampler {
 public:
  std::string mode() const override { return "scripted"; }
  void warmup_call() override { joules_ += 2; }
  Sample sample() override {
    joules_ += 2;
    return {100, 0};
  }
  std::uint64_t calls_per_sample() const override { return 4; }
  std::optional<double> energy_counter_j() override { return joules_; }

 private:
  double joules_ = 1000;
};
}  // namespace

TEST(MeasureLoop, EnergyIsCountedOverTheSamplingPhaseOnly) {
  EnergySampler s;
  const auto rec = run_measurement(s, quick().method, quick().criterion);
  ASSERT_TRUE(rec.energy_j.has_value());
  EXPECT_EQ(rec.samples_ns.size(), 10u);
  EXPECT_DOUBLE_EQ(*rec.energy_j, 20.0);  // 10 samples x 2 J; the 2 warm-up calls' 4 J are not counted
  EXPECT_DOUBLE_EQ(rec.energy_timed_s, 10 * 4 * 100e-9);  // 10 samples x 4 calls x 100 ns
  EXPECT_GE(rec.energy_window_s, 0.0);
  EXPECT_LE(rec.energy_window_s, rec.elapsed_s);
}

TEST(MeasureLoop, NoEnergyCounterLeavesNone) {
  ScriptedSampler s({{100, 0}}, 0);
  EXPECT_FALSE(run_measurement(s, quick().method, quick().criterion).energy_j.has_value());
}

TEST(MeasureLoop, CooldownIdlesBeforeWarmUpOutsideTheBudget) {
  ScriptedSampler s({{100, 0}}, 0);
  auto cfg = quick();
  cfg.method.cooldown_s = 0.2;
  const auto t0 = std::chrono::steady_clock::now();
  const auto rec = run_measurement(s, cfg.method, cfg.criterion);
  const double wall = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  EXPECT_GE(wall, 0.2);
  EXPECT_LT(rec.elapsed_s, 0.1);  // the idle time is not the case's
  EXPECT_EQ(rec.stop_reason, "converged");
}
