#include <cstdint>
#include "kernels/gemm/hopper/hopper_ptx.cuh"
#include "kernels/gemm/hopper/wgmma_ops.cuh"
using namespace assay::kernels::hopper;
template <int LB>
__global__ void __launch_bounds__(512, LB) k(float* out, std::uint64_t da, std::uint64_t db, int iters) {
  const int wg = __shfl_sync(0xffffffffu, static_cast<int>(threadIdx.x / 128), 0);
  if (wg == 0) { regs_release<24>(); return; }
  regs_claim<160>();
  float d[128];
  for (int i = 0; i < 128; ++i) d[i] = 0;
  for (int it = 0; it < iters; ++it) {
    wgmma_fence();
    wgmma_f16<256>(d, da + it, db, 1);
    wgmma_commit();
    wgmma_wait<0>();
  }
  float s = 0;
  for (int i = 0; i < 128; ++i) s += d[i];
  out[threadIdx.x] = s;
}
template __global__ void k<1>(float*, std::uint64_t, std::uint64_t, int);
