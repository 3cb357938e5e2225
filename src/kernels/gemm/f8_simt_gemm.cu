// e4m3 GEMM on the CUDA cores: C[m,n] = sa * sb * A[m,k] * B[n,k]^T, C in bf16.
// The any-shape, any-architecture fallback behind the Hopper fp8 kernel (which needs
// k % 16 == 0 and 16-byte aligned operands). Correctness is the point, not speed: 64 x 64
// output tiles, 256 threads with 4 x 4 outputs each, K in steps of 32 decoded to fp32 in
// shared memory (exact: every e4m3 value is a float), fp32 accumulation.
#include <cuda_bf16.h>
#include <cuda_fp16.h>
#include <cuda_fp8.h>

#include <cstddef>
#include <cstdint>

#include "kernels/gemm/gemm_detail.hpp"

namespace assay::kernels::detail {

namespace {

constexpr int kTile = 64;
constexpr int kStepK = 32;
constexpr int kThreads = 256;

__device__ __forceinline__ float decode_e4m3(std::uint8_t v) {
  return __half2float(__half(__nv_cvt_fp8_to_halfraw(static_cast<__nv_fp8_storage_t>(v), __NV_E4M3)));
}

__global__ void __launch_bounds__(kThreads) f8_simt_gemm_kernel(int m, int n, int k, const std::uint8_t* a,
                                                                const std::uint8_t* b, __nv_bfloat16* c,
                                                                const float* scale_a, const float* scale_b) {
  __shared__ float as[kStepK][kTile + 1];
  __shared__ float bs[kStepK][kTile + 1];
  const int tx = threadIdx.x % 16, ty = threadIdx.x / 16;
  const int row0 = blockIdx.y * kTile, col0 = blockIdx.x * kTile;
  float acc[4][4] = {};
  for (int k0 = 0; k0 < k; k0 += kStepK) {
    for (int i = threadIdx.x; i < kTile * kStepK; i += kThreads) {
      const int r = i / kStepK, kk = i % kStepK;
      const bool in_k = k0 + kk < k;
      as[kk][r] = in_k && row0 + r < m ? decode_e4m3(a[static_cast<std::size_t>(row0 + r) * k + k0 + kk]) : 0.0f;
      bs[kk][r] = in_k && col0 + r < n ? decode_e4m3(b[static_cast<std::size_t>(col0 + r) * k + k0 + kk]) : 0.0f;
    }
    __syncthreads();
#pragma unroll 8
    for (int kk = 0; kk < kStepK; ++kk)
#pragma unroll
      for (int i = 0; i < 4; ++i)
#pragma unroll
        for (int j = 0; j < 4; ++j) acc[i][j] += as[kk][ty + 16 * i] * bs[kk][tx + 16 * j];
    __syncthreads();
  }
  const float scale = *scale_a * *scale_b;
#pragma unroll
  for (int i = 0; i < 4; ++i)
#pragma unroll
    for (int j = 0; j < 4; ++j) {
      const int row = row0 + ty + 16 * i, col = col0 + tx + 16 * j;
      if (row < m && col < n) c[static_cast<std::size_t>(row) * n + col] = __float2bfloat16_rn(acc[i][j] * scale);
    }
}

}  // namespace

cudaError_t launch_f8_simt_gemm(int m, int n, int k, const void* a, const void* b, void* c,
                                const float* scale_a, const float* scale_b, cudaStream_t stream) {
  // grid.y <= 65535 bounds m to 4,194,240 rows; past that the launch error is returned.
  const dim3 grid((n - 1) / kTile + 1, (m - 1) / kTile + 1);
  f8_simt_gemm_kernel<<<grid, kThreads, 0, stream>>>(m, n, k, static_cast<const std::uint8_t*>(a),
                                                     static_cast<const std::uint8_t*>(b),
                                                     static_cast<__nv_bfloat16*>(c), scale_a, scale_b);
  return cudaGetLastError();
}

}  // namespace assay::kernels::detail
