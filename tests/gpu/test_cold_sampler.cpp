// The samplers measure a kernel of known duration: a %globaltimer spin of 100 us.
#include <algorithm>

#include "gpu/cuda_check.hpp"
#include "gpu/device_context.hpp"
#include "gpu/timing_kernels.hpp"
#include "gpu_test_support.hpp"
#include "measure/gpu_samplers.hpp"
#include "measure/measure_loop.hpp"
#include "stats/summary.hpp"

using namespace assay;

namespace {
class SpinInstance final : public Instance {
 public:
  explicit SpinInstance(unsigned long long ns) : ns_(ns) {}
  std::string variant() const override { return "spin"; }
  void call(void* stream) override {
    ASSAY_CUDA(gpu::launch_spin_kernel(ns_, 1, static_cast<cudaStream_t>(stream)));
  }
  void poison_output() override {}
  HostTensor read_output() override { return {}; }

 private:
  unsigned long long ns_;
};

suite::MeasureConfig config() {
  suite::MeasureConfig c;
  c.min_samples = 50;
  c.min_time_s = 0.05;
  c.timeout_s = 5;
  return c;
}
}  // namespace

TEST(ColdSampler, MeasuresA100usSpinWithin2Percent) {
  ASSAY_REQUIRE_GPU();
  gpu::DeviceContext ctx(0);
  SpinInstance spin(100'000);
  measure::ColdSampler sampler(ctx, spin);
  const auto rec = measure::run_measurement(sampler, config());
  const auto s = stats::summarize(rec.samples_ns);
  EXPECT_NEAR(s.median, 100'000, 2'000) << "median " << s.median << " ns";
  EXPECT_EQ(rec.mode, "cold");
  EXPECT_GE(rec.l2_flush_bytes, 2 * ctx.record().l2_bytes);
  // Every sample carries a plausible SM clock from the probe.
  ASSERT_EQ(rec.sm_clock_mhz.size(), rec.samples_ns.size());
  for (double mhz : rec.sm_clock_mhz) {
    EXPECT_GT(mhz, 200);
    EXPECT_LT(mhz, 1.05 * ctx.record().max_sm_clock_mhz + 50);
  }
}

TEST(ColdSampler, LaunchOverheadIsHidden) {
  ASSAY_REQUIRE_GPU();
  gpu::DeviceContext ctx(0);
  SpinInstance spin(2'000);  // 2 us: a visible launch overhead would be a large fraction
  measure::ColdSampler cold(ctx, spin);
  const auto s = stats::summarize(measure::run_measurement(cold, config()).samples_ns);
  EXPECT_LT(s.median, 2'000 + 1'500) << "median " << s.median << " ns";
  EXPECT_GE(s.median, 2'000);
}

TEST(HotAndGraphSamplers, MeasureASpinPerCall) {
  ASSAY_REQUIRE_GPU();
  gpu::DeviceContext ctx(0);
  SpinInstance spin(20'000);
  measure::HotSampler hot(ctx, spin, 0);
  const auto h = stats::summarize(measure::run_measurement(hot, config()).samples_ns);
  EXPECT_NEAR(h.median, 20'000, 1'000) << "hot median " << h.median;
  EXPECT_GT(hot.calls_per_sample(), 1u);
  measure::GraphSampler graph(ctx, spin, 0, 16);
  const auto g = stats::summarize(measure::run_measurement(graph, config()).samples_ns);
  EXPECT_NEAR(g.median, 20'000, 1'000) << "graph median " << g.median;
  EXPECT_EQ(graph.calls_per_sample(), 16u);
}

TEST(HostSampler, IncludesTheCallAndTheSync) {
  ASSAY_REQUIRE_GPU();
  gpu::DeviceContext ctx(0);
  SpinInstance spin(100'000);
  measure::HostSampler host(ctx, spin);
  const auto s = stats::summarize(measure::run_measurement(host, config()).samples_ns);
  EXPECT_GE(s.median, 100'000);
  EXPECT_LT(s.median, 200'000);
}
