#include "backends/cublas_gemm.hpp"

#include "gpu/cublas_api.hpp"
#include "backends/gpu_instance.hpp"
#include "core/error.hpp"
#include "workloads/gemm.hpp"
#include "gpu/cuda_check.hpp"

namespace assay {

namespace {

using cublas::api;
using cublas::check;
using cublas::cuda_type;
using cublas::lt_api;

constexpr std::size_t kLtWorkspaceBytes = 32u << 20;

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

// f8e4m3 through cuBLASLt: cublasGemmEx takes no fp8, and cuBLASLt runs fp8 only in the TN
// form, which the K-major B of the fp8 problem gives without a copy. Row-major
// C[m,n] = A[m,k]*B[n,k]^T is column-major C^T (n x m, ld n) = op(A') * op(B'), where A' is the
// B buffer read as k x n (ld k) and transposed, and B' the A buffer read as k x m (ld k).
class CublasLtFp8GemmInstance final : public GpuInstance {
 public:
  CublasLtFp8GemmInstance(const GemmProblem& p, const std::vector<HostTensor>& inputs)
      : GpuInstance(p, inputs), problem_(p), workspace_(scratch(kLtWorkspaceBytes)) {
    check(lt_api().create(&handle_), "cublasLtCreate");
  }
  ~CublasLtFp8GemmInstance() override {
    const auto& lt = lt_api();
    for (auto* layout : {la_, lb_, lc_})
      if (layout) lt.layout_destroy(layout);
    if (desc_) lt.desc_destroy(desc_);
    lt.destroy(handle_);
  }
  std::string variant() const override { return "cublasLtMatmul/fp8e4m3/TN/COMPUTE_32F/bf16-out"; }

 protected:
  void launch(cudaStream_t stream, const std::vector<const void*>& in, void* c) override {
    const auto& lt = lt_api();
    if (!chosen_) choose_algorithm();
    // The scales follow the rotating input set. A' is the B buffer, so it takes scale_b.
    const void* scale_a = in[2];
    const void* scale_b = in[3];
    check(lt.desc_set(desc_, CUBLASLT_MATMUL_DESC_A_SCALE_POINTER, &scale_b, sizeof scale_b), "A scale pointer");
    check(lt.desc_set(desc_, CUBLASLT_MATMUL_DESC_B_SCALE_POINTER, &scale_a, sizeof scale_a), "B scale pointer");
    const float alpha = 1.0f, beta = 0.0f;
    check(lt.matmul(handle_, desc_, &alpha, in[1], la_, in[0], lb_, &beta, c, lc_, c, lc_, &heuristic_.algo,
                    workspace_, kLtWorkspaceBytes, stream),
          "cublasLtMatmul");
  }

 private:
  // Once per instance: input sets rotate, shapes do not.
  void choose_algorithm() {
    const auto& lt = lt_api();
    const auto m = static_cast<std::uint64_t>(problem_.m()), n = static_cast<std::uint64_t>(problem_.n()),
               k = static_cast<std::uint64_t>(problem_.k());
    const auto in_t = cuda_type(problem_.dtype()), out_t = cuda_type(problem_.output_dtype());
    check(lt.desc_create(&desc_, CUBLAS_COMPUTE_32F, CUDA_R_32F), "cublasLtMatmulDescCreate");
    const cublasOperation_t transa = CUBLAS_OP_T, transb = CUBLAS_OP_N;
    check(lt.desc_set(desc_, CUBLASLT_MATMUL_DESC_TRANSA, &transa, sizeof transa), "transa");
    check(lt.desc_set(desc_, CUBLASLT_MATMUL_DESC_TRANSB, &transb, sizeof transb), "transb");
    // The precision policy of every baseline: fp8 products promoted to fp32 periodically
    // (no fast accumulation); split-K in fp32 comes with lt_first_algorithm.
    const std::int8_t fast_accum = 0;
    check(lt.desc_set(desc_, CUBLASLT_MATMUL_DESC_FAST_ACCUM, &fast_accum, sizeof fast_accum), "fast accum");
    check(lt.layout_create(&la_, in_t, k, n, static_cast<std::int64_t>(k)), "layout A");
    check(lt.layout_create(&lb_, in_t, k, m, static_cast<std::int64_t>(k)), "layout B");
    check(lt.layout_create(&lc_, out_t, n, m, static_cast<std::int64_t>(n)), "layout C");
    int found = 0;
    const auto st = cublas::lt_first_algorithm(handle_, desc_, la_, lb_, lc_, kLtWorkspaceBytes, heuristic_, found);
    if (st == CUBLAS_STATUS_NOT_SUPPORTED || (st == CUBLAS_STATUS_SUCCESS && found == 0))
      throw SkipError("cuBLASLt has no fp8 e4m3 algorithm for " + problem_.shape_string() +
                      " here (fp8 wants sm_89 or newer, k % 16 == 0 and n % 8 == 0: 16-byte aligned rows)");
    check(st, "cublasLtMatmulAlgoGetHeuristic");
    chosen_ = true;
  }

  GemmProblem problem_;
  void* workspace_;
  cublasLtHandle_t handle_ = nullptr;
  cublasLtMatmulDesc_t desc_ = nullptr;
  cublasLtMatrixLayout_t la_ = nullptr, lb_ = nullptr, lc_ = nullptr;
  cublasLtMatmulHeuristicResult_t heuristic_{};
  bool chosen_ = false;
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
  const auto& gemm = dynamic_cast<const GemmProblem&>(problem);
  if (gemm.dtype() == DType::f8e4m3) {
    if (!lt_api().error.empty()) throw SkipError(lt_api().error);
    return std::make_unique<CublasLtFp8GemmInstance>(gemm, inputs);
  }
  if (!api().error.empty()) throw SkipError(api().error);
  return std::make_unique<CublasGemmInstance>(gemm, inputs);
}

}  // namespace assay
