#pragma once
// The Hopper (sm_90a) flash attention forward: TMA, mbarriers and wgmma. Compiled for sm_90a
// only (hopper_attention.cmake); callers check device_facts(device).hopper first.
#include <cuda_runtime.h>

#include "kernels/attention/flash_attention.hpp"

namespace assay::kernels::attention_hopper {

// Keys per K/V block: 128, or 80 at d = 256, where two stages of 128-key K and V blocks
// (256 KiB) would not fit beside Q (FlashAttention-3's choice there as well; 64-key blocks
// measured 6% slower at (1, 16, 8192, 256)). The kernel's layout and the configuration's name.
constexpr int block_keys(int d) { return d == 256 ? 80 : 128; }

// consumers: warp groups of 64 query rows each (1 or 2), beside one producer warp group;
// splits: CTAs (one cluster) sharing each query block's key blocks, 1, 2, 4 or 8 (more than 1
// with one consumer only).
cudaError_t launch(const FlashAttentionArgs& a, int consumers, int splits, cudaStream_t stream);

// How many clusters of `splits` CTAs the current device holds at once at one CTA per SM
// (cudaOccupancyMaxActiveClusters); 0 when the runtime cannot say.
int max_active_clusters(const FlashAttentionArgs& a, int splits);

// CTAs of the unsplit kernel for (a.d, a.dtype, consumers) one SM holds at once
// (cudaOccupancyMaxActiveBlocksPerMultiprocessor); 0 when the runtime cannot say.
int resident_ctas(const FlashAttentionArgs& a, int consumers);

}  // namespace assay::kernels::attention_hopper
