#include "gpu/timing_kernels.hpp"

namespace assay::gpu {

namespace {

__device__ __forceinline__ unsigned long long global_timer_ns() {
  unsigned long long t;
  asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(t));
  return t;
}

__global__ void blocking_kernel(const volatile int* release, int* timed_out, unsigned long long timeout_ns) {
  const unsigned long long start = global_timer_ns();
  while (*release == 0) {
    if (global_timer_ns() - start > timeout_ns) {
      *timed_out = 1;
      return;
    }
  }
}

__global__ void clock_probe_kernel(ClockProbe* out, unsigned long long window_ns) {
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
}

__global__ void spin_kernel(unsigned long long ns) {
  const unsigned long long start = global_timer_ns();
  while (global_timer_ns() - start < ns) {}
}

}  // namespace

cudaError_t launch_blocking_kernel(const volatile int* release, int* timed_out,
                                   unsigned long long timeout_ns, cudaStream_t stream) {
  blocking_kernel<<<1, 1, 0, stream>>>(release, timed_out, timeout_ns);
  return cudaGetLastError();
}

cudaError_t launch_clock_probe(ClockProbe* out, unsigned long long window_ns, cudaStream_t stream) {
  clock_probe_kernel<<<1, 1, 0, stream>>>(out, window_ns);
  return cudaGetLastError();
}

cudaError_t launch_spin_kernel(unsigned long long ns, int blocks, cudaStream_t stream) {
  spin_kernel<<<blocks, 1, 0, stream>>>(ns);
  return cudaGetLastError();
}

}  // namespace assay::gpu
