#include "backends/cpu_gemm.hpp"
#ifdef ASSAY_HAVE_CUDA
#include "backends/assay_gemm.hpp"
#include "backends/cublas_gemm.hpp"
#else
#include "backends/unbuilt_backend.hpp"
#endif

namespace assay {

std::vector<const Backend*> all_backends() {
  static const CpuGemmBackend cpu;
#ifdef ASSAY_HAVE_CUDA
  static const AssayGemmBackend assay_gemm;
  static const CublasGemmBackend cublas;
  return {&assay_gemm, &cublas, &cpu};
#else
  static const UnbuiltBackend assay_gemm("assay", "assay's own CUDA GEMM kernels (not built)");
  static const UnbuiltBackend cublas("cublas", "cuBLAS cublasGemmEx (not built)");
  return {&assay_gemm, &cublas, &cpu};
#endif
}

const Backend* find_backend(const std::string& name) {
  for (const Backend* b : all_backends())
    if (b->name() == name) return b;
  return nullptr;
}

}  // namespace assay
