#pragma once
// The Hopper (sm_90a) flash attention forward: TMA, mbarriers and wgmma. Compiled for sm_90a
// only (hopper_attention.cmake); callers check device_facts(device).hopper first.
#include <cuda_runtime.h>

#include "kernels/attention/flash_attention.hpp"

namespace assay::kernels::attention_hopper {

// consumers: warp groups of 64 query rows each (1 or 2), beside one producer warp group.
cudaError_t launch(const FlashAttentionArgs& a, int consumers, cudaStream_t stream);

}  // namespace assay::kernels::attention_hopper
