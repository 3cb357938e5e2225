#pragma once
#include "backends/backend.hpp"

namespace assay {

// cuBLAS through cublasGemmEx, loaded at run time (libcublas.so.13) so that the assay
// binary starts where cuBLAS is missing and says so. CUBLAS_COMPUTE_32F for every dtype
// (fp32: TF32 off), and reduced-precision split-K reduction disallowed. f8e4m3 goes through
// cublasLtMatmul (libcublasLt.so.13) with the same policy and no fp8 fast accumulation.
class CublasGemmBackend final : public Backend {
 public:
  std::string name() const override { return "cublas"; }
  std::string description() const override { return "cuBLAS cublasGemmEx (TF32 off, fp32 compute); f8e4m3: cublasLtMatmul"; }
  Target target() const override { return Target::cuda; }
  bool supports(const std::string& workload, DType) const override { return workload == "gemm"; }
  std::string unavailable_reason() const override;
  std::string library_version() const override;
  std::unique_ptr<Instance> instantiate(const Problem& problem,
                                        const std::vector<HostTensor>& inputs) const override;
};

}  // namespace assay
