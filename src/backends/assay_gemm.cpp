#include "backends/assay_backend.hpp"

#include "backends/gpu_instance.hpp"
#include "workloads/gemm.hpp"
#include "gpu/cuda_check.hpp"
#include "kernels/gemm/gemm_kernels.hpp"

namespace assay {

namespace {

kernels::GemmDtype kernel_dtype(DType t) {
  switch (t) {
    case DType::f32: return kernels::GemmDtype::f32;
    case DType::f16: return kernels::GemmDtype::f16;
    case DType::bf16: return kernels::GemmDtype::bf16;
  }
  return kernels::GemmDtype::f32;
}

class AssayGemmInstance final : public GpuInstance {
 public:
  AssayGemmInstance(const GemmProblem& p, const std::vector<HostTensor>& inputs) : GpuInstance(p, inputs), problem_(p) {}
  std::string variant() const override { return variant_; }

 protected:
  void launch(cudaStream_t stream, const std::vector<const void*>& in, void* c) override {
    const void* a = in[0];
    const void* b = in[1];
    const auto t = kernel_dtype(problem_.dtype());
    const int m = static_cast<int>(problem_.m()), n = static_cast<int>(problem_.n()),
              k = static_cast<int>(problem_.k());
    if (variant_.empty()) variant_ = kernels::gemm_config_name(t, m, n, k, a, b, c);
    ASSAY_CUDA(kernels::launch_gemm(t, m, n, k, a, b, c, stream));
  }

 private:
  GemmProblem problem_;
  std::string variant_;
};

}  // namespace

std::unique_ptr<Instance> make_assay_gemm_instance(const Problem& problem, const std::vector<HostTensor>& inputs) {
  return std::make_unique<AssayGemmInstance>(dynamic_cast<const GemmProblem&>(problem), inputs);
}

std::unique_ptr<Instance> AssayBackend::instantiate(const Problem& problem, const std::vector<HostTensor>& inputs) const {
  if (problem.workload() == "attention") return make_assay_attention_instance(problem, inputs);
  return make_assay_gemm_instance(problem, inputs);
}

}  // namespace assay
