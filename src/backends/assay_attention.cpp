// assay's reference attention: S = Q·Kᵀ (cuBLAS, fp32 out), P = softmax(S/√d, causal mask)
// (assay's kernel, P in the input dtype), O = P·V (cuBLAS, fp32 accumulate). Not fused: it
// materialises the b·h·s² scores, which is what makes it a reference, not a contender.
#include "backends/assay_backend.hpp"
#include "backends/cublas_api.hpp"
#include "backends/gpu_instance.hpp"
#include "gpu/cuda_check.hpp"
#include "kernels/attention/softmax.hpp"
#include "workloads/attention.hpp"

#include <cmath>

namespace assay {

namespace {

using cublas::api;
using cublas::check;

class AttentionReferenceInstance final : public GpuInstance {
 public:
  AttentionReferenceInstance(const AttentionProblem& p, const std::vector<HostTensor>& inputs)
      : GpuInstance(p, inputs), p_(p) {
    const std::size_t scores = static_cast<std::size_t>(p.b() * p.h() * p.s() * p.s());
    scores_ = static_cast<float*>(scratch(scores * sizeof(float)));
    probs_ = scratch(scores * dtype_size(p.dtype()));
    check(api().create(&handle_), "cublasCreate");
    check(api().set_math_mode(handle_, cublas::strict_math()), "cublasSetMathMode");
  }
  ~AttentionReferenceInstance() override { api().destroy(handle_); }
  std::string variant() const override { return "cublas-gemm+softmax+cublas-gemm"; }

 protected:
  void launch(cudaStream_t stream, const std::vector<const void*>& in, void* out) override {
    check(api().set_stream(handle_, stream), "cublasSetStream");
    const int s = static_cast<int>(p_.s()), d = static_cast<int>(p_.d());
    const int batch = static_cast<int>(p_.b() * p_.h());
    const long long sd = static_cast<long long>(s) * d, ss = static_cast<long long>(s) * s;
    const auto t = cublas::cuda_type(p_.dtype());
    const float one = 1.0f, zero = 0.0f;
    // Column-major view of row-major data: S (s x s, row i = query i) is computed as
    // Sᵀ_cm = Kᵀ... i.e. C[j, i] = sum_e K[j, e] Q[i, e]: op(A) = T on K (d x s, ld d), B = Q.
    check(api().gemm_strided_batched_ex(handle_, CUBLAS_OP_T, CUBLAS_OP_N, s, s, d, &one, in[1], t, d, sd, in[0], t,
                                        d, sd, &zero, scores_, CUDA_R_32F, s, ss, batch, CUBLAS_COMPUTE_32F,
                                        CUBLAS_GEMM_DEFAULT),
          "cublasGemmStridedBatchedEx (scores)");
    ASSAY_CUDA(kernels::launch_scaled_masked_softmax(scores_, probs_, p_.dtype(), static_cast<long long>(batch) * s, s,
                                                     static_cast<float>(1.0 / std::sqrt(static_cast<double>(d))),
                                                     p_.causal(), stream));
    // O[i, e] = sum_j P[i, j] V[j, e]: column-major Oᵀ (d x s) = Vᵀ (d x s) · Pᵀ (s x s).
    check(api().gemm_strided_batched_ex(handle_, CUBLAS_OP_N, CUBLAS_OP_N, d, s, s, &one, in[2], t, d, sd, probs_, t,
                                        s, ss, &zero, out, t, d, sd, batch, CUBLAS_COMPUTE_32F, CUBLAS_GEMM_DEFAULT),
          "cublasGemmStridedBatchedEx (output)");
  }

 private:
  AttentionProblem p_;
  float* scores_ = nullptr;
  void* probs_ = nullptr;
  cublasHandle_t handle_ = nullptr;
};

}  // namespace

std::unique_ptr<Instance> make_assay_attention_instance(const Problem& problem, const std::vector<HostTensor>& inputs) {
  if (!api().error.empty()) throw SkipError(api().error);
  return std::make_unique<AttentionReferenceInstance>(dynamic_cast<const AttentionProblem&>(problem), inputs);
}

}  // namespace assay
