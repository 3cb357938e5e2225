#include "backends/cublaslt_mlp.hpp"

#include "gpu/cublas_api.hpp"
#include "backends/gpu_instance.hpp"
#include "core/error.hpp"
#include "workloads/mlp.hpp"

namespace assay {

namespace {

using cublas::check;
using cublas::lt_api;

constexpr std::size_t kWorkspaceBytes = 32u << 20;

// One cuBLASLt matmul, column-major: C (m x n) = A (m x k) · B (k x n) + bias[m] with an
// epilogue, its algorithm chosen once by the heuristic.
class LtMatmul {
 public:
  LtMatmul(cublasLtHandle_t lt, cudaDataType_t t, int m, int n, int k, cublasLtEpilogue_t epilogue, const void* bias)
      : lt_(lt), desc_(nullptr) {
    const auto& a = lt_api();
    check(a.desc_create(&desc_, CUBLAS_COMPUTE_32F, CUDA_R_32F), "cublasLtMatmulDescCreate");
    check(a.desc_set(desc_, CUBLASLT_MATMUL_DESC_EPILOGUE, &epilogue, sizeof epilogue), "epilogue");
    check(a.desc_set(desc_, CUBLASLT_MATMUL_DESC_BIAS_POINTER, &bias, sizeof bias), "bias pointer");
    check(a.layout_create(&la_, t, m, k, m), "layout A");
    check(a.layout_create(&lb_, t, k, n, k), "layout B");
    check(a.layout_create(&lc_, t, m, n, m), "layout C");
    int found = 0;
    check(cublas::lt_first_algorithm(lt_, desc_, la_, lb_, lc_, kWorkspaceBytes, heuristic_, found),
          "cublasLtMatmulAlgoGetHeuristic");
    if (found == 0) throw InternalError("cuBLASLt found no algorithm for this mlp matmul");
  }
  ~LtMatmul() {
    const auto& a = lt_api();
    a.layout_destroy(la_);
    a.layout_destroy(lb_);
    a.layout_destroy(lc_);
    a.desc_destroy(desc_);
  }
  void run(const void* A, const void* B, void* C, void* workspace, cudaStream_t stream) const {
    const float one = 1.0f, zero = 0.0f;
    check(lt_api().matmul(lt_, desc_, &one, A, la_, B, lb_, &zero, C, lc_, C, lc_, &heuristic_.algo, workspace,
                          kWorkspaceBytes, stream),
          "cublasLtMatmul");
  }

 private:
  cublasLtHandle_t lt_;
  cublasLtMatmulDesc_t desc_;
  cublasLtMatrixLayout_t la_ = nullptr, lb_ = nullptr, lc_ = nullptr;
  cublasLtMatmulHeuristicResult_t heuristic_{};
};

class CublasLtMlpInstance final : public GpuInstance {
 public:
  CublasLtMlpInstance(const MlpProblem& p, const std::vector<HostTensor>& inputs) : GpuInstance(p, inputs), p_(p) {
    check(lt_api().create(&lt_), "cublasLtCreate");
    hidden_ = scratch(static_cast<std::size_t>(p.batch() * 4 * p.hidden()) * dtype_size(p.dtype()));
    workspace_ = scratch(kWorkspaceBytes);
  }
  ~CublasLtMlpInstance() override {
    first_.reset();
    second_.reset();
    lt_api().destroy(lt_);
  }
  std::string variant() const override { return "lt:GELU_BIAS+BIAS"; }

 protected:
  // Row-major X[B,H]·W1[H,4H] is, column-major, W1ᵀ_cm(4H x H)·Xᵀ_cm(H x B) = H1ᵀ_cm(4H x B): the
  // bias runs along m = 4H, as the epilogue wants. Likewise Yᵀ_cm(H x B) = W2ᵀ_cm(H x 4H)·Gᵀ_cm.
  void launch(cudaStream_t stream, const std::vector<const void*>& in, void* out) override {
    const int b = static_cast<int>(p_.batch()), h = static_cast<int>(p_.hidden());
    const auto t = cublas::cuda_type(p_.dtype());
    if (!first_) {  // bias pointers are fixed per input set; input rotation is not used here
      first_ = std::make_unique<LtMatmul>(lt_, t, 4 * h, b, h, CUBLASLT_EPILOGUE_GELU_BIAS, in[2]);
      second_ = std::make_unique<LtMatmul>(lt_, t, h, b, 4 * h, CUBLASLT_EPILOGUE_BIAS, in[4]);
    }
    first_->run(in[1], in[0], hidden_, workspace_, stream);
    second_->run(in[3], hidden_, out, workspace_, stream);
  }

 private:
  MlpProblem p_;
  cublasLtHandle_t lt_ = nullptr;
  void* hidden_ = nullptr;
  void* workspace_ = nullptr;
  std::unique_ptr<LtMatmul> first_, second_;
};

}  // namespace

std::string CublasLtMlpBackend::unavailable_reason() const { return lt_api().error; }

std::string CublasLtMlpBackend::library_version() const {
  if (!lt_api().error.empty()) return {};
  const std::size_t v = lt_api().version();
  return std::to_string(v / 10000) + "." + std::to_string((v / 100) % 100) + "." + std::to_string(v % 100);
}

std::unique_ptr<Instance> CublasLtMlpBackend::instantiate(const Problem& problem,
                                                          const std::vector<HostTensor>& inputs) const {
  if (!lt_api().error.empty()) throw SkipError(lt_api().error);
  return std::make_unique<CublasLtMlpInstance>(dynamic_cast<const MlpProblem&>(problem), inputs);
}

}  // namespace assay
