#pragma once
// The kernels behind launch_gemm (gemm_dispatch.cpp), one per file.
#include <cuda_runtime.h>

namespace assay::kernels::detail {

// fp32 on the CUDA cores (simt_gemm_f32.cu); any shape.
cudaError_t launch_simt_gemm_f32(int m, int n, int k, const float* a, const float* b, float* c,
                                 cudaStream_t stream);
const char* simt_gemm_f32_config_name(int n, int k, const void* a, const void* b, const void* c);

// f16 / bf16 with mma.sync (mma_sync_gemm.cu); any shape, sm_80 and newer.
cudaError_t launch_mma_sync_gemm(bool bf16, int m, int n, int k, const void* a, const void* b, void* c,
                                 cudaStream_t stream);
const char* mma_sync_config_name(int n, int k, const void* a, const void* b, const void* c);

// e4m3 x e4m3 -> bf16 with per-tensor scales on the CUDA cores (f8_simt_gemm.cu); any shape,
// any architecture. B is n x k. The fallback where the Hopper kernel cannot run.
cudaError_t launch_f8_simt_gemm(int m, int n, int k, const void* a, const void* b, void* c,
                                const float* scale_a, const float* scale_b, cudaStream_t stream);

}  // namespace assay::kernels::detail
