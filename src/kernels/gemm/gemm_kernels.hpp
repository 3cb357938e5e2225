#pragma once
// The GEMM kernels that assay owns, behind one launch function: f16/bf16 run the mma.sync
// tensor-core kernel (mma_sync_gemm.cu), f32 the FFMA SIMT kernel (simt_gemm_f32.cu).
#include <cuda_runtime.h>

namespace assay::kernels {

enum class GemmDtype { f32, f16, bf16 };

// C[m,n] = A[m,k] * B[k,n]; all row-major, densely packed (lda=k, ldb=n, ldc=n).
// fp32 accumulation; C is written in the input type (round to nearest even).
// Correct for every m, n, k >= 1 (any alignment of rows); returns the launch error
// (cudaErrorInvalidValue for a size below 1, without launching; the launch's own error past
// m = 8,388,480, the grid.y limit of 65535 row tiles).
cudaError_t launch_gemm(GemmDtype dtype, int m, int n, int k, const void* a, const void* b,
                        void* c, cudaStream_t stream);

// A short name of the kernel configuration chosen for this shape, e.g.
// "mma16816_128x128x32_s3_aligned"; the same choice launch_gemm makes for these arguments.
const char* gemm_config_name(GemmDtype dtype, int m, int n, int k, const void* a, const void* b,
                             const void* c);

}  // namespace assay::kernels
