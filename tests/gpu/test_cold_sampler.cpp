// The samplers measure a kernel of known duration: a %globaltimer spin of 100 us.
#include <algorithm>
#include <iostream>
#include <memory>

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

// Streams 32 MiB from DRAM (the read flush kernel over its own buffer).
class ReadInstance final : public Instance {
 public:
  ReadInstance() {
    ASSAY_CUDA(cudaMalloc(&buf_, kBytes));
    ASSAY_CUDA(cudaMemset(buf_, 0, kBytes));
    ASSAY_CUDA(cudaMalloc(&sink_, sizeof(unsigned)));
  }
  ~ReadInstance() override {
    cudaFree(sink_);
    cudaFree(buf_);
  }
  std::string variant() const override { return "read"; }
  void call(void* stream) override {
    ASSAY_CUDA(gpu::launch_l2_read_flush(buf_, kBytes, sink_, 1024, static_cast<cudaStream_t>(stream)));
  }
  void poison_output() override {}
  HostTensor read_output() override { return {}; }

 private:
  static constexpr std::uint64_t kBytes = 32ull << 20;
  void* buf_ = nullptr;
  unsigned* sink_ = nullptr;
};

struct Settings {
  measure::Method method;
  measure::Criterion criterion;
};

Settings config() {
  Settings c;
  c.criterion.min_samples = 50;
  c.criterion.min_time_s = 0.05;
  c.criterion.timeout_s = 5;
  return c;
}
}  // namespace

// Median of `mode` samples of a spin kernel of `ns` nanoseconds.
double median_of(const std::string& mode, gpu::DeviceContext& ctx, unsigned long long ns,
                 MeasurementRecord* rec_out = nullptr) {
  SpinInstance spin(ns);
  std::unique_ptr<measure::Sampler> sampler;
  if (mode == "cold") sampler = std::make_unique<measure::ColdSampler>(ctx, spin);
  if (mode == "hot") sampler = std::make_unique<measure::HotSampler>(ctx, spin, 0);
  if (mode == "graph") sampler = std::make_unique<measure::GraphSampler>(ctx, spin, 0, 16);
  if (mode == "host") sampler = std::make_unique<measure::HostSampler>(ctx, spin);
  auto rec = measure::run_measurement(*sampler, config().method, config().criterion);
  const double median = stats::summarize(rec.samples_ns).median;
  if (rec_out) *rec_out = std::move(rec);
  return median;
}

// An event window around one kernel costs a fixed ~3.1 us on an H100 (dispatch and retire;
// measured 2026-11-22, whatever the flush and the clock probes), so the known duration is
// checked against an empty kernel, and the floor shows the launch overhead (~2.7 us) hidden.
TEST(ColdSampler, MeasuresA100usSpinWithin2Percent) {
  ASSAY_REQUIRE_GPU();
  gpu::DeviceContext ctx(0);
  MeasurementRecord rec;
  const double spin = median_of("cold", ctx, 100'000, &rec);
  const double floor = median_of("cold", ctx, 0);
  EXPECT_NEAR(spin - floor, 100'000, 2'000) << "spin " << spin << " ns, empty kernel " << floor << " ns";
  EXPECT_EQ(rec.mode, "cold");
  EXPECT_GE(rec.l2_flush_bytes, 2 * ctx.record().l2_bytes);
  // Every sample carries a plausible SM clock from the probe.
  ASSERT_EQ(rec.sm_clock_mhz.size(), rec.samples_ns.size());
  for (double mhz : rec.sm_clock_mhz) {
    EXPECT_GT(mhz, 200);
    EXPECT_LT(mhz, 1.05 * ctx.record().max_sm_clock_mhz + 50);
  }
}

// A kernel streaming 32 MiB from DRAM: after a memset flush it also writes back the dirty
// lines its reads evict; after a clean (read) flush it has none (docs/measurement-notes.md,
// "The flush leaves dirty lines": 19.7 against 16.1 us for a 34 MB GEMM on an H100).
TEST(ColdSampler, ACleanFlushLeavesNoDirtyLinesToWriteBack) {
  ASSAY_REQUIRE_GPU();
  ReadInstance read;
  gpu::DeviceContext ctx(0);
  const auto median = [&](bool clean, MeasurementRecord& rec) {
    ctx.set_l2_flush_clean(clean);
    measure::ColdSampler sampler(ctx, read);
    rec = measure::run_measurement(sampler, config().method, config().criterion);
    return stats::summarize(rec.samples_ns).median;
  };
  MeasurementRecord dirty_rec, clean_rec, warm_rec;
  const double dirty = median(false, dirty_rec), clean = median(true, clean_rec);
  // Unflushed, back to back, the 32 MiB stay in L2: a clean flush must time well above this.
  measure::HotSampler hot(ctx, read, 0);
  warm_rec = measure::run_measurement(hot, config().method, config().criterion);
  const double warm = stats::summarize(warm_rec.samples_ns).median;
  EXPECT_EQ(dirty_rec.l2_flush, "");
  EXPECT_EQ(clean_rec.l2_flush, "clean");
  EXPECT_LT(clean, 0.9 * dirty) << "32 MiB read after a clean flush " << clean << " ns, after a memset " << dirty << " ns";
  EXPECT_GT(clean, 1.5 * warm) << "32 MiB read after a clean flush " << clean << " ns, from L2 " << warm << " ns";
  std::cout << "32 MiB read: after memset " << dirty << " ns, after a clean flush " << clean << " ns, from L2 " << warm
            << " ns\n";
}

TEST(ColdSampler, LaunchOverheadIsHidden) {
  ASSAY_REQUIRE_GPU();
  gpu::DeviceContext ctx(0);
  const double cold = median_of("cold", ctx, 0);
  const double host = median_of("host", ctx, 0);  // launch + sync, nothing hidden
  EXPECT_LT(cold, 4'500) << "empty kernel, cold: " << cold << " ns";
  EXPECT_LT(cold, host) << "host " << host << " ns";
}

TEST(HotAndGraphSamplers, MeasureASpinPerCall) {
  ASSAY_REQUIRE_GPU();
  gpu::DeviceContext ctx(0);
  for (const char* mode : {"hot", "graph"}) {
    const double spin = median_of(mode, ctx, 20'000), floor = median_of(mode, ctx, 0);
    EXPECT_NEAR(spin - floor, 20'000, 400) << mode << ": spin " << spin << " ns, empty " << floor << " ns";
  }
  SpinInstance spin(20'000);
  measure::HotSampler hot(ctx, spin, 0);
  EXPECT_GT(hot.calls_per_sample(), 1u);
  measure::GraphSampler graph(ctx, spin, 0, 16);
  EXPECT_EQ(graph.calls_per_sample(), 16u);
}

TEST(HostSampler, IncludesTheCallAndTheSync) {
  ASSAY_REQUIRE_GPU();
  gpu::DeviceContext ctx(0);
  SpinInstance spin(100'000);
  measure::HostSampler host(ctx, spin);
  const auto s = stats::summarize(measure::run_measurement(host, config().method, config().criterion).samples_ns);
  EXPECT_GE(s.median, 100'000);
  EXPECT_LT(s.median, 200'000);
}

// With a sample gap the GPU idles that long between samples whatever the host takes: 50
// samples 2 ms apart take at least 49 gaps, the spin times as before, and a gap far shorter
// than the host's turnaround is overrun by nearly every sample.
TEST(ColdSampler, KeepsTheSampleGapAndCountsOverruns) {
  ASSAY_REQUIRE_GPU();
  gpu::DeviceContext ctx(0);
  Settings c = config();
  c.criterion.max_samples = c.criterion.min_samples;  // exactly 50 samples
  c.method.warmup.min_s = 0;             // elapsed_s is then the samples and the gaps
  c.method.warmup.calls = 1;
  c.method.throttle.threshold = 0;     // a dropped sample's back-off would overrun the next gap
  SpinInstance spin(100'000);
  const double plain = median_of("cold", ctx, 100'000);

  ctx.set_sample_gap_ns(2'000'000);
  measure::ColdSampler gapped(ctx, spin);
  const auto rec = measure::run_measurement(gapped, c.method, c.criterion);
  ASSERT_EQ(rec.samples_ns.size(), 50u);
  EXPECT_EQ(rec.gap_us, 2000.0);
  EXPECT_GE(rec.elapsed_s, 49 * 2e-3) << "the 49 gaps alone take 98 ms";
  EXPECT_LE(rec.gap_overruns, 2u) << "the host enqueues a sample well within 2 ms";
  EXPECT_NEAR(stats::summarize(rec.samples_ns).median, plain, 0.02 * plain);

  ctx.set_sample_gap_ns(1'000);  // 1 us: shorter than any host turnaround
  measure::ColdSampler tight(ctx, spin);
  const auto over = measure::run_measurement(tight, c.method, c.criterion);
  EXPECT_GE(over.gap_overruns, 45u);
  EXPECT_EQ(over.gap_us, 1.0);

  ctx.set_sample_gap_ns(0);
  measure::ColdSampler none(ctx, spin);
  const auto off = measure::run_measurement(none, c.method, c.criterion);
  EXPECT_EQ(off.gap_us, 0.0);
  EXPECT_EQ(off.gap_overruns, 0u);
}
