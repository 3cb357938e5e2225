#pragma once
#include "backends/backend.hpp"

namespace assay {

// The CPU backend: a blocked, multithreaded fp32-accumulate GEMM, output rounded to the
// problem's output dtype like the GPU backends (f8e4m3: B transposed to k x n once, when
// the instance is made, and the scales applied to the fp32 sums). What CPU-only runs measure.
class CpuGemmBackend final : public Backend {
 public:
  std::string name() const override { return "cpu"; }
  std::string description() const override {
    return "multithreaded CPU reference: blocked GEMM (fp32 accumulate), attention (fp64, f8e4m3 dequantised)";
  }
  Target target() const override { return Target::cpu; }
  bool supports(const std::string& workload, DType) const override { return workload == "gemm" || workload == "attention"; }
  std::unique_ptr<Instance> instantiate(const Problem& problem,
                                        const std::vector<HostTensor>& inputs) const override;
};

// The attention instance (backends/cpu_attention.cpp).
std::unique_ptr<Instance> make_cpu_attention_instance(const Problem& problem, const std::vector<HostTensor>& inputs);

// C = A * B in fp32 on the host, for row-major float arrays (exposed for tests).
void cpu_gemm_f32(std::int64_t m, std::int64_t n, std::int64_t k, const float* a, const float* b, float* c);

}  // namespace assay
