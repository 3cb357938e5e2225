#include "gpu/timing_kernels.hpp"

namespace assay::gpu {

namespace {

__device__ __forceinline__ unsigned long long global_timer_ns() {
  unsigned long long t;
  asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(t));
  return t;
}

__global__ void blocking_kernel(const volatile int* release, BlockState* state, unsigned long long timeout_ns,
                                unsigned long long gap_ns) {
  const unsigned long long start = global_timer_ns();
  const unsigned long long last_end = state->last_end_ns;
  const unsigned long long not_before = gap_ns > 0 && last_end > 0 ? last_end + gap_ns : 0;
  while (*release == 0) {
    if (global_timer_ns() - start > timeout_ns) {
      state->timed_out = 1;
      return;
    }
  }
  unsigned long long now = global_timer_ns();
  state->overran = not_before > 0 && now > not_before ? 1 : 0;
  while (now < not_before) now = global_timer_ns();
}

__global__ void clock_probe_kernel(ClockProbe* out, unsigned long long window_ns, unsigned long long* end_ns) {
  // Start on a timer tick edge so that the interval is a whole number of ticks.
  unsigned long long t0 = global_timer_ns();
  while (global_timer_ns() == t0) {}
  t0 = global_timer_ns();
  const long long c0 = clock64();
  unsigned long long t1 = t0;
  while (t1 - t0 < window_ns) t1 = global_timer_ns();
  const long long c1 = clock64();
  out->ns = t1 - t0;
  out->cycles = static_cast<unsigned long long>(c1 - c0);
  if (end_ns) *end_ns = global_timer_ns();
}

__global__ void l2_read_flush_kernel(const uint4* buf, unsigned long long n, unsigned* sink) {
  const unsigned long long stride = static_cast<unsigned long long>(gridDim.x) * blockDim.x;
  unsigned acc = 0;
  unsigned long long i = static_cast<unsigned long long>(blockIdx.x) * blockDim.x + threadIdx.x;
  // Four loads in flight per thread, then the tail.
  for (; i + 3 * stride < n; i += 4 * stride) {
    const uint4 a = buf[i], b = buf[i + stride], c = buf[i + 2 * stride], d = buf[i + 3 * stride];
    acc ^= a.x ^ a.y ^ a.z ^ a.w ^ b.x ^ b.y ^ b.z ^ b.w ^ c.x ^ c.y ^ c.z ^ c.w ^ d.x ^ d.y ^ d.z ^ d.w;
  }
  for (; i < n; i += stride) {
    const uint4 a = buf[i];
    acc ^= a.x ^ a.y ^ a.z ^ a.w;
  }
  if (acc == 0x9e3779b9u) *sink = acc;
}

__global__ void spin_kernel(unsigned long long ns) {
  const unsigned long long start = global_timer_ns();
  while (global_timer_ns() - start < ns) {}
}

}  // namespace

cudaError_t launch_blocking_kernel(const volatile int* release, BlockState* state, unsigned long long timeout_ns,
                                   unsigned long long gap_ns, cudaStream_t stream) {
  blocking_kernel<<<1, 1, 0, stream>>>(release, state, timeout_ns, gap_ns);
  return cudaGetLastError();
}

cudaError_t launch_clock_probe(ClockProbe* out, unsigned long long window_ns, cudaStream_t stream,
                               unsigned long long* end_ns) {
  clock_probe_kernel<<<1, 1, 0, stream>>>(out, window_ns, end_ns);
  return cudaGetLastError();
}

cudaError_t launch_l2_read_flush(const void* buf, std::uint64_t bytes, unsigned* sink, int blocks, cudaStream_t stream) {
  l2_read_flush_kernel<<<blocks, 256, 0, stream>>>(static_cast<const uint4*>(buf), bytes / 16, sink);
  return cudaGetLastError();
}

cudaError_t launch_spin_kernel(unsigned long long ns, int blocks, cudaStream_t stream) {
  spin_kernel<<<blocks, 1, 0, stream>>>(ns);
  return cudaGetLastError();
}

}  // namespace assay::gpu
