#pragma once
#include "backends/backend.hpp"

namespace assay {

// assay's own implementations: GEMM kernels (src/kernels/gemm: wgmma/TMA on Hopper, mma.sync
// elsewhere and for operands TMA cannot address, FFMA for fp32, a CUDA-core fp8 fallback) and
// the reference attention (cuBLAS GEMMs around assay's softmax kernel).
//
// "assay" lets the GEMM heuristic pick the kernel; "assay@<config>" pins one GEMM
// configuration (kernels::gemm_configs(), e.g. assay@wgmma_128x128) for sweeps, and skips
// the cases it cannot run (wrong device, alignment or dtype) with the reason.
class AssayBackend final : public Backend {
 public:
  explicit AssayBackend(std::string gemm_config = "auto");
  std::string name() const override;
  std::string description() const override;
  Target target() const override { return Target::cuda; }
  bool supports(const std::string& workload, DType) const override;
  std::unique_ptr<Instance> instantiate(const Problem& problem, const std::vector<HostTensor>& inputs) const override;

 private:
  std::string gemm_config_;
};

// The pinned variants, one per GEMM configuration other than "auto".
const std::vector<AssayBackend>& assay_gemm_variants();

std::unique_ptr<Instance> make_assay_gemm_instance(const Problem& problem, const std::vector<HostTensor>& inputs,
                                                   const std::string& gemm_config);
std::unique_ptr<Instance> make_assay_attention_instance(const Problem& problem, const std::vector<HostTensor>& inputs);

}  // namespace assay
