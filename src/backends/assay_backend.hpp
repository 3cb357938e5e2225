#pragma once
#include "backends/backend.hpp"

namespace assay {

// assay's own implementations: GEMM kernels (src/kernels/gemm: mma.sync tensor cores for
// fp16/bf16, a register-blocked FFMA kernel for fp32) and the reference attention
// (cuBLAS GEMMs around assay's softmax kernel).
class AssayBackend final : public Backend {
 public:
  std::string name() const override { return "assay"; }
  std::string description() const override {
    return "assay's own kernels: GEMM (mma.sync, sm_80+), reference attention (cuBLAS + softmax kernel)";
  }
  Target target() const override { return Target::cuda; }
  bool supports(const std::string& workload, DType) const override {
    return workload == "gemm" || workload == "attention";
  }
  std::unique_ptr<Instance> instantiate(const Problem& problem, const std::vector<HostTensor>& inputs) const override;
};

std::unique_ptr<Instance> make_assay_gemm_instance(const Problem& problem, const std::vector<HostTensor>& inputs);
std::unique_ptr<Instance> make_assay_attention_instance(const Problem& problem, const std::vector<HostTensor>& inputs);

}  // namespace assay
