#include "gpu/device_context.hpp"

#include <algorithm>
#include <atomic>

#include "gpu/cuda_check.hpp"
#include "gpu/device_info.hpp"

namespace assay::gpu {

namespace {
// Generous: a blocked stream only waits for the host to finish enqueueing one sample.
constexpr unsigned long long kBlockTimeoutNs = 10'000'000'000ull;
constexpr unsigned long long kProbeWindowNs = 4'000;
}  // namespace

DeviceContext::DeviceContext(int index) : record_(query_device(index)) {
  ASSAY_CUDA(cudaSetDevice(index));
  ASSAY_CUDA(cudaStreamCreateWithFlags(&stream_, cudaStreamNonBlocking));
  // Twice L2, at least 64 MiB: writing it (memset) or reading it (clean) evicts everything the
  // previous sample left there.
  flush_bytes_ = std::max<std::uint64_t>(2 * record_.l2_bytes, 64ull << 20);
  ASSAY_CUDA(cudaMalloc(&flush_, flush_bytes_));
  ASSAY_CUDA(cudaMemsetAsync(flush_, 0, flush_bytes_, stream_));  // the read flush reads defined bytes
  ASSAY_CUDA(cudaMalloc(&flush_sink_, sizeof(unsigned)));
  ASSAY_CUDA(cudaHostAlloc(reinterpret_cast<void**>(&release_host_), sizeof(int), cudaHostAllocMapped));
  ASSAY_CUDA(cudaHostGetDevicePointer(reinterpret_cast<void**>(&release_dev_), release_host_, 0));
  ASSAY_CUDA(cudaMalloc(&block_state_, sizeof(BlockState)));
  ASSAY_CUDA(cudaMemset(block_state_, 0, sizeof(BlockState)));
  ASSAY_CUDA(cudaMalloc(&probes_, 2 * sizeof(ClockProbe)));
  *release_host_ = 1;
}

DeviceContext::~DeviceContext() {
  // Never leave a blocking kernel spinning behind us.
  if (release_host_) *static_cast<volatile int*>(release_host_) = 1;
  if (stream_) cudaStreamSynchronize(stream_);
  cudaFree(probes_);
  cudaFree(block_state_);
  cudaFreeHost(release_host_);
  cudaFree(flush_sink_);
  cudaFree(flush_);
  if (stream_) cudaStreamDestroy(stream_);
}

std::uint64_t DeviceContext::free_memory() const {
  std::size_t free = 0, total = 0;
  ASSAY_CUDA(cudaMemGetInfo(&free, &total));
  return free;
}

void DeviceContext::enqueue_l2_flush() {
  if (flush_clean_) {
    // Eight blocks of 256 threads per SM: enough loads in flight to read at DRAM speed.
    ASSAY_CUDA(launch_l2_read_flush(flush_, flush_bytes_ & ~15ull, flush_sink_, 8 * std::max(record_.sm_count, 1), stream_));
  } else {
    ASSAY_CUDA(cudaMemsetAsync(flush_, 0, flush_bytes_, stream_));
  }
}

void DeviceContext::enqueue_block() {
  *static_cast<volatile int*>(release_host_) = 0;
  std::atomic_thread_fence(std::memory_order_seq_cst);
  ASSAY_CUDA(launch_blocking_kernel(release_dev_, block_state_, kBlockTimeoutNs, gap_ns_, stream_));
}

void DeviceContext::release() {
  std::atomic_thread_fence(std::memory_order_seq_cst);
  *static_cast<volatile int*>(release_host_) = 1;
}

void DeviceContext::enqueue_clock_probe(int slot) {
  ASSAY_CUDA(launch_clock_probe(probes_ + slot, kProbeWindowNs, stream_, slot == 1 ? &block_state_->last_end_ns : nullptr));
}

void DeviceContext::set_sample_gap_ns(std::uint64_t ns) {
  ASSAY_CUDA(cudaMemsetAsync(block_state_, 0, sizeof(BlockState), stream_));
  gap_ns_ = ns;
  gap_overruns_ = 0;
}

double DeviceContext::finish_sample() {
  BlockState state{};
  ClockProbe p[2];
  ASSAY_CUDA(cudaMemcpyAsync(&state, block_state_, sizeof state, cudaMemcpyDeviceToHost, stream_));
  ASSAY_CUDA(cudaMemcpyAsync(p, probes_, sizeof p, cudaMemcpyDeviceToHost, stream_));
  ASSAY_CUDA(cudaStreamSynchronize(stream_));
  if (state.timed_out) {
    ASSAY_CUDA(cudaMemsetAsync(&block_state_->timed_out, 0, sizeof(int), stream_));
    throw InternalError("the blocking kernel timed out: the measured work was not enqueued within 10 s");
  }
  if (state.overran) ++gap_overruns_;
  double sum = 0;
  for (const auto& probe : p) {
    if (probe.ns == 0) return 0;
    sum += static_cast<double>(probe.cycles) * 1e3 / static_cast<double>(probe.ns);
  }
  return sum / 2;
}

}  // namespace assay::gpu
