#pragma once
// Device pieces both Hopper flash attention kernels use (flash_hopper.cu for f16/bf16,
// flash_hopper_fp8.cu for e4m3): the stage ring's position, a 3-D TMA load, 2^x on the SFU.
#include <cuda.h>

#include <cstdint>

namespace assay::kernels::attention_hopper {

// Position in a ring of kStages slots: the slot, and the parity of its barriers' current phase.
template <int kStages>
struct StageRing {
  int stage = 0;
  unsigned phase = 0;
  __device__ __forceinline__ void advance() {
    if (++stage == kStages) {
      stage = 0;
      phase ^= 1;
    }
  }
};

// A box of the 3-D tensor map at (x, y, z) into shared memory at `dst`, completing on `bar`.
__device__ __forceinline__ void tma_load_3d(std::uint32_t dst, const CUtensorMap* map, std::uint32_t bar, int x, int y,
                                            int z) {
  asm volatile(
      "cp.async.bulk.tensor.3d.shared::cluster.global.tile.mbarrier::complete_tx::bytes"
      " [%0], [%1, {%3, %4, %5}], [%2];" ::"r"(dst),
      "l"(reinterpret_cast<std::uint64_t>(map)), "r"(bar), "r"(x), "r"(y), "r"(z)
      : "memory");
}

// 2^x on the SFU alone (MUFU.EX2), flushing denormal results to zero; exp2f adds a range
// fix-up around it for denormals, which softmax weights below 2^-126 do not need. 2^-inf = 0.
__device__ __forceinline__ float ex2(float x) {
  float y;
  asm("ex2.approx.ftz.f32 %0, %1;" : "=f"(y) : "f"(x));
  return y;
}

}  // namespace assay::kernels::attention_hopper
