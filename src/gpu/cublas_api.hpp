#pragma once
// cuBLAS and cuBLASLt, opened at run time (libcublas.so.13, libcublasLt.so.13) so that the
// assay binary starts where they are missing; only the entry points assay calls.
#include <cublasLt.h>
#include <cublas_v2.h>

#include <cstdint>
#include <string>

#include "core/dtype.hpp"

namespace assay::cublas {

struct Api {
  decltype(&cublasCreate_v2) create = nullptr;
  decltype(&cublasDestroy_v2) destroy = nullptr;
  decltype(&cublasSetStream_v2) set_stream = nullptr;
  decltype(&cublasSetMathMode) set_math_mode = nullptr;
  decltype(&cublasGetProperty) get_property = nullptr;
  decltype(&cublasSetWorkspace_v2) set_workspace = nullptr;  // needed before stream capture
  // Spelled out: C++ sees overloads of these taking a cudaDataType compute type.
  cublasStatus_t (*gemm_ex)(cublasHandle_t, cublasOperation_t, cublasOperation_t, int, int, int, const void*,
                            const void*, cudaDataType, int, const void*, cudaDataType, int, const void*, void*,
                            cudaDataType, int, cublasComputeType_t, cublasGemmAlgo_t) = nullptr;
  cublasStatus_t (*gemm_strided_batched_ex)(cublasHandle_t, cublasOperation_t, cublasOperation_t, int, int, int,
                                            const void*, const void*, cudaDataType, int, long long, const void*,
                                            cudaDataType, int, long long, const void*, void*, cudaDataType, int,
                                            long long, int, cublasComputeType_t, cublasGemmAlgo_t) = nullptr;
  std::string error;  // empty when every entry point was found
};

struct LtApi {
  decltype(&cublasLtCreate) create = nullptr;
  decltype(&cublasLtDestroy) destroy = nullptr;
  decltype(&cublasLtMatmulDescCreate) desc_create = nullptr;
  decltype(&cublasLtMatmulDescDestroy) desc_destroy = nullptr;
  decltype(&cublasLtMatmulDescSetAttribute) desc_set = nullptr;
  decltype(&cublasLtMatrixLayoutCreate) layout_create = nullptr;
  decltype(&cublasLtMatrixLayoutDestroy) layout_destroy = nullptr;
  decltype(&cublasLtMatmulPreferenceCreate) pref_create = nullptr;
  decltype(&cublasLtMatmulPreferenceDestroy) pref_destroy = nullptr;
  decltype(&cublasLtMatmulPreferenceSetAttribute) pref_set = nullptr;
  decltype(&cublasLtMatmulAlgoGetHeuristic) heuristic = nullptr;
  decltype(&cublasLtMatmul) matmul = nullptr;
  decltype(&cublasLtGetVersion) version = nullptr;
  std::string error;
};

const Api& api();
const LtApi& lt_api();

// Throws InternalError naming the call when a status is not success.
void check(cublasStatus_t s, const char* what);

inline cudaDataType_t cuda_type(DType t) {
  switch (t) {
    case DType::f32: return CUDA_R_32F;
    case DType::f16: return CUDA_R_16F;
    case DType::bf16: return CUDA_R_16BF;
    case DType::f8e4m3: return CUDA_R_8F_E4M3;
  }
  return CUDA_R_32F;
}

// The first cuBLASLt algorithm for these descriptors (C and D share layout c) under the
// baselines' precision policy: at most `workspace_bytes` of workspace, split-K partial sums
// only in the fp32 compute type, never in a 16-bit output type. Returns the heuristic's
// status (preference set-up failures throw); `found` is 0 when no algorithm applies.
cublasStatus_t lt_first_algorithm(cublasLtHandle_t handle, cublasLtMatmulDesc_t desc, cublasLtMatrixLayout_t a,
                                  cublasLtMatrixLayout_t b, cublasLtMatrixLayout_t c, std::uint64_t workspace_bytes,
                                  cublasLtMatmulHeuristicResult_t& result, int& found);

// CUBLAS_DEFAULT_MATH with reduced-precision split-K reduction disallowed: the precision
// policy of every cuBLAS baseline (TF32 stays off with CUBLAS_COMPUTE_32F).
cublasMath_t strict_math();

}  // namespace assay::cublas
