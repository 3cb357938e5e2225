#include "backends/assay_gemm.hpp"

#include "backends/gpu_gemm_instance.hpp"
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

class AssayGemmInstance final : public GpuGemmInstance {
 public:
  using GpuGemmInstance::GpuGemmInstance;
  std::string variant() const override { return variant_; }

 protected:
  void launch(cudaStream_t stream, const void* a, const void* b, void* c) override {
    const auto t = kernel_dtype(problem_.dtype());
    const int m = static_cast<int>(problem_.m()), n = static_cast<int>(problem_.n()),
              k = static_cast<int>(problem_.k());
    if (variant_.empty()) variant_ = kernels::gemm_config_name(t, m, n, k, a, b, c);
    ASSAY_CUDA(kernels::launch_gemm(t, m, n, k, a, b, c, stream));
  }

 private:
  std::string variant_;
};

}  // namespace

std::unique_ptr<Instance> AssayGemmBackend::instantiate(const Problem& problem,
                                                        const std::vector<HostTensor>& inputs) const {
  return std::make_unique<AssayGemmInstance>(dynamic_cast<const GemmProblem&>(problem), inputs);
}

}  // namespace assay
