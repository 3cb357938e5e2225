#pragma once
#include "backends/backend.hpp"

namespace assay {

// assay's own GEMM kernels (src/kernels/gemm): mma.sync tensor cores for fp16/bf16,
// a register-blocked FFMA kernel for fp32.
class AssayGemmBackend final : public Backend {
 public:
  std::string name() const override { return "assay"; }
  std::string description() const override { return "assay's own CUDA GEMM kernels (mma.sync, sm_80+)"; }
  Target target() const override { return Target::cuda; }
  bool supports(const std::string& workload, DType) const override { return workload == "gemm"; }
  std::unique_ptr<Instance> instantiate(const Problem& problem,
                                        const std::vector<HostTensor>& inputs) const override;
};

}  // namespace assay
