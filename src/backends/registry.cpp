#include "backends/cpu_gemm.hpp"
#include "backends/external_backend.hpp"
#ifdef ASSAY_HAVE_CUDA
#include "backends/assay_gemm.hpp"
#include "backends/cublas_gemm.hpp"
#else
#include "backends/unbuilt_backend.hpp"
#endif

namespace assay {

namespace {
std::vector<const Backend*> with_external(std::vector<const Backend*> native) {
  static const std::vector<ExternalBackend> external = [] {
    std::vector<ExternalBackend> v;
    for (const auto& spec : external_backend_specs()) v.emplace_back(spec);
    return v;
  }();
  for (const auto& b : external) native.push_back(&b);
  return native;
}
}  // namespace

std::vector<const Backend*> all_backends() {
  static const CpuGemmBackend cpu;
#ifdef ASSAY_HAVE_CUDA
  static const AssayGemmBackend assay_gemm;
  static const CublasGemmBackend cublas;
  static const auto all = with_external({&assay_gemm, &cublas, &cpu});
  return all;
#else
  static const UnbuiltBackend assay_gemm("assay", "assay's own CUDA GEMM kernels (not built)");
  static const UnbuiltBackend cublas("cublas", "cuBLAS cublasGemmEx (not built)");
  static const auto all = with_external({&assay_gemm, &cublas, &cpu});
  return all;
#endif
}

const Backend* find_backend(const std::string& name) {
  for (const Backend* b : all_backends())
    if (b->name() == name) return b;
  return nullptr;
}

}  // namespace assay
