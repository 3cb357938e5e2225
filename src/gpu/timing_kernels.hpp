#pragma once
// Small kernels the samplers and the gpu tests use. All launch on the given stream.
#include <cuda_runtime.h>

#include <cstdint>

namespace assay::gpu {

struct ClockProbe {
  unsigned long long ns;      // %globaltimer interval the probe spun for
  unsigned long long cycles;  // clock64 cycles over the same interval, on the same SM
};

// Spins until *release != 0, or until timeout_ns of %globaltimer have passed, in which case
// it sets *timed_out. Queued work behind it starts as soon as the host releases it, so the
// launch overhead of that work is not in the measured interval.
cudaError_t launch_blocking_kernel(const volatile int* release, int* timed_out,
                                   unsigned long long timeout_ns, cudaStream_t stream);

// One thread measures its SM clock: clock64 cycles over >= window_ns of %globaltimer,
// aligned to timer ticks so the interval is exact.
cudaError_t launch_clock_probe(ClockProbe* out, unsigned long long window_ns, cudaStream_t stream);

// Spins for `ns` of %globaltimer on `blocks` blocks of one thread (a kernel of known duration).
cudaError_t launch_spin_kernel(unsigned long long ns, int blocks, cudaStream_t stream);

}  // namespace assay::gpu
