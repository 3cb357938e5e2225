#include "gpu/cublas_api.hpp"

#include <dlfcn.h>

#include <type_traits>

#include "core/dynamic_library.hpp"
#include "core/error.hpp"

namespace assay::cublas {

const Api& api() {
  static const Api a = [] {
    Api r;
    void* lib = open_library({"libcublas.so.13"}, r.error);
    if (!lib) return r;
    const char* so = "libcublas.so.13";
    resolve_symbol(lib, r.create, "cublasCreate_v2", so, r.error);
    resolve_symbol(lib, r.destroy, "cublasDestroy_v2", so, r.error);
    resolve_symbol(lib, r.set_stream, "cublasSetStream_v2", so, r.error);
    resolve_symbol(lib, r.set_math_mode, "cublasSetMathMode", so, r.error);
    resolve_symbol(lib, r.get_property, "cublasGetProperty", so, r.error);
    resolve_symbol(lib, r.set_workspace, "cublasSetWorkspace_v2", so, r.error);
    resolve_symbol(lib, r.gemm_ex, "cublasGemmEx", so, r.error);
    resolve_symbol(lib, r.gemm_strided_batched_ex, "cublasGemmStridedBatchedEx", so, r.error);
    return r;
  }();
  return a;
}

const LtApi& lt_api() {
  static const LtApi a = [] {
    LtApi r;
    void* lib = open_library({"libcublasLt.so.13"}, r.error);
    if (!lib) return r;
    const char* so = "libcublasLt.so.13";
    resolve_symbol(lib, r.create, "cublasLtCreate", so, r.error);
    resolve_symbol(lib, r.destroy, "cublasLtDestroy", so, r.error);
    resolve_symbol(lib, r.desc_create, "cublasLtMatmulDescCreate", so, r.error);
    resolve_symbol(lib, r.desc_destroy, "cublasLtMatmulDescDestroy", so, r.error);
    resolve_symbol(lib, r.desc_set, "cublasLtMatmulDescSetAttribute", so, r.error);
    resolve_symbol(lib, r.layout_create, "cublasLtMatrixLayoutCreate", so, r.error);
    resolve_symbol(lib, r.layout_destroy, "cublasLtMatrixLayoutDestroy", so, r.error);
    resolve_symbol(lib, r.pref_create, "cublasLtMatmulPreferenceCreate", so, r.error);
    resolve_symbol(lib, r.pref_destroy, "cublasLtMatmulPreferenceDestroy", so, r.error);
    resolve_symbol(lib, r.pref_set, "cublasLtMatmulPreferenceSetAttribute", so, r.error);
    resolve_symbol(lib, r.heuristic, "cublasLtMatmulAlgoGetHeuristic", so, r.error);
    resolve_symbol(lib, r.matmul, "cublasLtMatmul", so, r.error);
    resolve_symbol(lib, r.version, "cublasLtGetVersion", so, r.error);
    return r;
  }();
  return a;
}

void check(cublasStatus_t s, const char* what) {
  if (s != CUBLAS_STATUS_SUCCESS)
    throw InternalError(std::string("cuBLAS ") + what + " failed with status " + std::to_string(s));
}

cublasStatus_t lt_first_algorithm(cublasLtHandle_t handle, cublasLtMatmulDesc_t desc, cublasLtMatrixLayout_t a,
                                  cublasLtMatrixLayout_t b, cublasLtMatrixLayout_t c, std::uint64_t workspace_bytes,
                                  cublasLtMatmulHeuristicResult_t& result, int& found) {
  const auto& lt = lt_api();
  cublasLtMatmulPreference_t pref = nullptr;
  check(lt.pref_create(&pref), "cublasLtMatmulPreferenceCreate");
  const std::uint32_t reduction = CUBLASLT_REDUCTION_SCHEME_COMPUTE_TYPE;
  cublasStatus_t st = lt.pref_set(pref, CUBLASLT_MATMUL_PREF_MAX_WORKSPACE_BYTES, &workspace_bytes,
                                  sizeof workspace_bytes);
  if (st == CUBLAS_STATUS_SUCCESS)
    st = lt.pref_set(pref, CUBLASLT_MATMUL_PREF_REDUCTION_SCHEME_MASK, &reduction, sizeof reduction);
  found = 0;
  const cublasStatus_t heur = st == CUBLAS_STATUS_SUCCESS ? lt.heuristic(handle, desc, a, b, c, c, pref, 1, &result, &found)
                                                          : st;
  lt.pref_destroy(pref);
  check(st, "cublasLtMatmulPreferenceSetAttribute");
  return heur;
}

cublasMath_t strict_math() {
  return static_cast<cublasMath_t>(CUBLAS_DEFAULT_MATH | CUBLAS_MATH_DISALLOW_REDUCED_PRECISION_REDUCTION);
}

}  // namespace assay::cublas
