#include "backends/cublas_gemm.hpp"

#include "backends/cublas_api.hpp"
#include "backends/gpu_instance.hpp"
#include "workloads/gemm.hpp"
#include "gpu/cuda_check.hpp"

namespace assay {

namespace {

using cublas::api;
using cublas::check;
using cublas::cuda_type;

class CublasGemmInstance final : public GpuInstance {
 public:
  CublasGemmInstance(const GemmProblem& p, const std::vector<HostTensor>& inputs)
      : GpuInstance(p, inputs), problem_(p) {
    check(api().create(&handle_), "cublasCreate");
    // The precision policy of every baseline: no TF32 and no reduced-precision (fp16/bf16)
    // split-K reduction, which the default math mode allows and which fails the gate at
    // 1000x999x1001 bf16 (max abs error 0.2 on values near 0.3, seen on an H100).
    check(api().set_math_mode(handle_, cublas::strict_math()), "cublasSetMathMode");
  }
  ~CublasGemmInstance() override { api().destroy(handle_); }
  std::string variant() const override { return "cublasGemmEx/COMPUTE_32F/DISALLOW_REDUCED_PRECISION_REDUCTION"; }

 protected:
  void launch(cudaStream_t stream, const std::vector<const void*>& in, void* c) override {
    const void* a = in[0];
    const void* b = in[1];
    check(api().set_stream(handle_, stream), "cublasSetStream");
    const float alpha = 1.0f, beta = 0.0f;
    const auto t = cuda_type(problem_.dtype());
    const int m = static_cast<int>(problem_.m()), n = static_cast<int>(problem_.n()),
              k = static_cast<int>(problem_.k());
    // Row-major C = A*B is column-major C^T = B^T * A^T: swap the operands, no transposes.
    check(api().gemm_ex(handle_, CUBLAS_OP_N, CUBLAS_OP_N, n, m, k, &alpha, b, t, n, a, t, k, &beta, c, t, n,
                        CUBLAS_COMPUTE_32F, CUBLAS_GEMM_DEFAULT),
          "cublasGemmEx");
  }

 private:
  GemmProblem problem_;
  cublasHandle_t handle_ = nullptr;
};

}  // namespace

std::string CublasGemmBackend::unavailable_reason() const { return api().error; }

std::string CublasGemmBackend::library_version() const {
  if (!api().error.empty()) return {};
  int major = 0, minor = 0, patch = 0;
  api().get_property(MAJOR_VERSION, &major);
  api().get_property(MINOR_VERSION, &minor);
  api().get_property(PATCH_LEVEL, &patch);
  return std::to_string(major) + "." + std::to_string(minor) + "." + std::to_string(patch);
}

std::unique_ptr<Instance> CublasGemmBackend::instantiate(const Problem& problem,
                                                         const std::vector<HostTensor>& inputs) const {
  if (!api().error.empty()) throw SkipError(api().error);
  return std::make_unique<CublasGemmInstance>(dynamic_cast<const GemmProblem&>(problem), inputs);
}

}  // namespace assay
