#pragma once
// Small kernels the samplers and the gpu tests use. All launch on the given stream.
#include <cuda_runtime.h>

#include <cstdint>

namespace assay::gpu {

struct ClockProbe {
  unsigned long long ns;      // %globaltimer interval the probe spun for
  unsigned long long cycles;  // clock64 cycles over the same interval, on the same SM
};

// What the blocking kernel keeps between samples, in device memory.
struct BlockState {
  int timed_out;                  // set when the host did not release within the timeout
  int overran;                    // this sample: the host released after the gap had ended
  unsigned long long last_end_ns; // %globaltimer at the end of the last sample (0: none yet)
};

// Spins until *release != 0, or until timeout_ns of %globaltimer have passed, in which case
// it sets state->timed_out. Queued work behind it starts as soon as the host releases it, so
// the launch overhead of that work is not in the measured interval. With gap_ns > 0 it also
// holds the stream until gap_ns after state->last_end_ns, so that the GPU idles the same time
// between samples whatever the host took to enqueue them (state->overran: it took longer).
cudaError_t launch_blocking_kernel(const volatile int* release, BlockState* state, unsigned long long timeout_ns,
                                   unsigned long long gap_ns, cudaStream_t stream);

// One thread measures its SM clock: clock64 cycles over >= window_ns of %globaltimer,
// aligned to timer ticks so the interval is exact. With `end_ns`, it writes the timer there
// when it is done (the end of a sample, for the blocking kernel's gap).
cudaError_t launch_clock_probe(ClockProbe* out, unsigned long long window_ns, cudaStream_t stream,
                               unsigned long long* end_ns = nullptr);

// Reads `bytes` (a multiple of 16) from `buf` on `blocks` blocks: a flush of L2 that leaves only
// clean lines there (what was dirty is written back while it runs). `sink` is written only if the
// buffer's XOR is a constant no zeroed buffer has, which keeps the loads.
cudaError_t launch_l2_read_flush(const void* buf, std::uint64_t bytes, unsigned* sink, int blocks, cudaStream_t stream);

// Spins for `ns` of %globaltimer on `blocks` blocks of one thread (a kernel of known duration).
cudaError_t launch_spin_kernel(unsigned long long ns, int blocks, cudaStream_t stream);

}  // namespace assay::gpu
