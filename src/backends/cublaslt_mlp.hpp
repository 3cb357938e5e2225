#pragma once
#include "backends/backend.hpp"

namespace assay {

// The mlp workload on cuBLASLt: two matmuls with fused epilogues (GELU+bias, then bias),
// fp32 compute, no TF32, reductions only in the compute type. cuBLASLt's GELU epilogue is
// the tanh approximation; the oracle is the erf form, and the difference (< 1e-3 before the
// second layer) is far inside the suite's tolerance.
class CublasLtMlpBackend final : public Backend {
 public:
  std::string name() const override { return "cublaslt"; }
  std::string description() const override { return "cuBLASLt matmuls with fused GELU+bias / bias epilogues"; }
  Target target() const override { return Target::cuda; }
  bool supports(const std::string& workload, DType) const override { return workload == "mlp"; }
  std::string unavailable_reason() const override;
  std::string library_version() const override;
  std::unique_ptr<Instance> instantiate(const Problem& problem, const std::vector<HostTensor>& inputs) const override;
};

}  // namespace assay
