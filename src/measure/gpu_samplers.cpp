#include "measure/gpu_samplers.hpp"

#include <algorithm>
#include <chrono>
#include <cmath>

#include "gpu/cuda_check.hpp"

namespace assay::measure {

namespace {
// Batches and graphs are sized so that one sample lasts about this long: long enough that
// event resolution (~0.5 us) is noise, short enough for many samples per case.
constexpr double kTargetSampleNs = 200'000;
// A blocked stream holds every launch queued behind it; stay far below the queue depth.
constexpr std::uint64_t kMaxCallsPerSample = 256;

std::uint64_t calls_for(double call_ns) {
  const double n = std::ceil(kTargetSampleNs / std::max(call_ns, 1.0));
  return std::clamp<std::uint64_t>(static_cast<std::uint64_t>(n), 1, kMaxCallsPerSample);
}

// Input copies so that back-to-back calls do not find their inputs in L2 (none needed when
// one set is larger than twice the L2).
unsigned sets_for(std::uint64_t device_bytes, std::uint64_t l2_bytes) {
  if (device_bytes == 0 || device_bytes >= 2 * l2_bytes) return 1;
  return static_cast<unsigned>(std::min<std::uint64_t>(16, (3 * l2_bytes) / device_bytes + 1));
}
}  // namespace

GpuSampler::GpuSampler(gpu::DeviceContext& ctx, Instance& inst) : ctx_(ctx), inst_(inst) {
  ASSAY_CUDA(cudaEventCreate(&start_));
  ASSAY_CUDA(cudaEventCreate(&stop_));
}

GpuSampler::~GpuSampler() {
  cudaEventDestroy(start_);
  cudaEventDestroy(stop_);
}

std::optional<double> GpuSampler::energy_counter_j() {
  const auto& lib = gpu::nvml::system_library();
  if (!nvml_looked_up_) {
    nvml_looked_up_ = true;
    if (!ctx_.record().uuid.empty()) nvml_device_ = lib.device_by_uuid(ctx_.record().uuid);
  }
  if (!nvml_device_) return std::nullopt;
  return lib.total_energy_j(*nvml_device_);
}

void GpuSampler::warmup_call() {
  inst_.call(ctx_.stream());
  ASSAY_CUDA(cudaGetLastError());
  ASSAY_CUDA(cudaStreamSynchronize(ctx_.stream()));
}

template <class Fn>
Sample GpuSampler::timed(Fn&& enqueue, double divide_by) {
  // Without a gap the flush runs while the host enqueues the rest. With one, it runs after the
  // block, so that every sample's GPU time from one end to the next is the same: the gap, the
  // flush, the probes, and the measured work.
  const bool gap = ctx_.sample_gap_ns() > 0;
  if (flush_before_ && !gap) ctx_.enqueue_l2_flush();
  ctx_.enqueue_block();
  try {
    if (flush_before_ && gap) ctx_.enqueue_l2_flush();
    ctx_.enqueue_clock_probe(0);
    ASSAY_CUDA(cudaEventRecord(start_, ctx_.stream()));
    enqueue();
    ASSAY_CUDA(cudaGetLastError());
    ASSAY_CUDA(cudaEventRecord(stop_, ctx_.stream()));
    ctx_.enqueue_clock_probe(1);
  } catch (...) {
    ctx_.release();  // never leave the stream blocked
    throw;
  }
  ctx_.release();
  const double mhz = ctx_.finish_sample();
  float ms = 0;
  ASSAY_CUDA(cudaEventElapsedTime(&ms, start_, stop_));
  return {ms * 1e6 / divide_by, mhz};
}

double GpuSampler::probe_call_ns() {
  constexpr int kCalls = 3;
  ASSAY_CUDA(cudaEventRecord(start_, ctx_.stream()));
  for (int i = 0; i < kCalls; ++i) inst_.call(ctx_.stream());
  ASSAY_CUDA(cudaGetLastError());
  ASSAY_CUDA(cudaEventRecord(stop_, ctx_.stream()));
  ASSAY_CUDA(cudaEventSynchronize(stop_));
  float ms = 0;
  ASSAY_CUDA(cudaEventElapsedTime(&ms, start_, stop_));
  return ms * 1e6 / kCalls;
}

ColdSampler::ColdSampler(gpu::DeviceContext& ctx, Instance& inst) : GpuSampler(ctx, inst) {
  flush_before_ = true;
}

Sample ColdSampler::sample() {
  return timed([&] { inst_.call(ctx_.stream()); }, 1);
}

HotSampler::HotSampler(gpu::DeviceContext& ctx, Instance& inst, std::uint64_t device_bytes)
    : GpuSampler(ctx, inst) {
  sets_ = inst_.rotate_inputs(sets_for(device_bytes, ctx.record().l2_bytes));
  warmup_call();
  batch_ = calls_for(probe_call_ns());
}

Sample HotSampler::sample() {
  return timed([&] { for (std::uint64_t i = 0; i < batch_; ++i) inst_.call(ctx_.stream()); },
               static_cast<double>(batch_));
}

GraphSampler::GraphSampler(gpu::DeviceContext& ctx, Instance& inst, std::uint64_t device_bytes,
                           std::uint64_t calls)
    : GpuSampler(ctx, inst) {
  sets_ = inst_.rotate_inputs(sets_for(device_bytes, ctx.record().l2_bytes));
  warmup_call();
  calls_ = calls > 0 ? calls : calls_for(probe_call_ns());
  // Capture only this thread's work; any other stream activity during capture is an error.
  ASSAY_CUDA(cudaStreamBeginCapture(ctx_.stream(), cudaStreamCaptureModeThreadLocal));
  try {
    for (std::uint64_t i = 0; i < calls_; ++i) inst_.call(ctx_.stream());
  } catch (...) {
    cudaGraph_t g = nullptr;
    cudaStreamEndCapture(ctx_.stream(), &g);
    if (g) cudaGraphDestroy(g);
    throw;
  }
  ASSAY_CUDA(cudaStreamEndCapture(ctx_.stream(), &graph_));
  ASSAY_CUDA(cudaGraphInstantiate(&exec_, graph_, 0));
  ASSAY_CUDA(cudaGraphUpload(exec_, ctx_.stream()));
}

GraphSampler::~GraphSampler() {
  if (exec_) cudaGraphExecDestroy(exec_);
  if (graph_) cudaGraphDestroy(graph_);
}

Sample GraphSampler::sample() {
  return timed([&] { ASSAY_CUDA(cudaGraphLaunch(exec_, ctx_.stream())); }, static_cast<double>(calls_));
}

Sample HostSampler::sample() {
  const auto t0 = std::chrono::steady_clock::now();
  inst_.call(ctx_.stream());
  ASSAY_CUDA(cudaStreamSynchronize(ctx_.stream()));
  const auto t1 = std::chrono::steady_clock::now();
  ASSAY_CUDA(cudaGetLastError());
  return {std::chrono::duration<double, std::nano>(t1 - t0).count(), 0};
}

}  // namespace assay::measure
