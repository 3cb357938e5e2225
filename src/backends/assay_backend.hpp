#pragma once
#include "backends/backend.hpp"

namespace assay {

// assay's own implementations: GEMM kernels (src/kernels/gemm: wgmma/TMA on Hopper, mma.sync
// elsewhere and for operands TMA cannot address, FFMA for fp32, a CUDA-core fp8 fallback) and
// attention (a fused flash kernel; cuBLAS GEMMs around assay's softmax kernel as the reference).
//
// "assay" lets the heuristics pick the kernel; "assay@<config>" pins one GEMM configuration
// (kernels::gemm_configs(), e.g. assay@wgmma_128x128) or one attention configuration
// (kernels::kAttentionConfigNames, e.g. assay@flash_m64) for sweeps, and skips the cases it
// cannot run (wrong device, alignment, dtype or head dim) with the reason.
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

// The pinned variants, one per GEMM configuration other than "auto" and one per attention
// configuration.
const std::vector<AssayBackend>& assay_variants();

std::unique_ptr<Instance> make_assay_gemm_instance(const Problem& problem, const std::vector<HostTensor>& inputs,
                                                   const std::string& gemm_config);
// config: "auto" (any GEMM config name counts as auto here) or an attention config name.
std::unique_ptr<Instance> make_assay_attention_instance(const Problem& problem, const std::vector<HostTensor>& inputs,
                                                        const std::string& config);

}  // namespace assay
