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

cudaError_t launch_spin_kernel(unsigned long long ns, int blocks, cudaStream_t stream) {
  spin_kernel<<<blocks, 1, 0, stream>>>(ns);
  return cudaGetLastError();
}

}  // namespace assay::gpu
