#include "backends/cublas_gemm.hpp"

#include <cublas_v2.h>
#include <dlfcn.h>

#include "backends/gpu_gemm_instance.hpp"
#include "gpu/cuda_check.hpp"

namespace assay {

namespace {

// The few entry points used, resolved from the shared library at first use.
struct CublasApi {
  decltype(&cublasCreate_v2) create = nullptr;
  decltype(&cublasDestroy_v2) destroy = nullptr;
  decltype(&cublasSetStream_v2) set_stream = nullptr;
  decltype(&cublasSetMathMode) set_math_mode = nullptr;
  // Spelled out: C++ sees an overload of cublasGemmEx taking a cudaDataType compute type.
  cublasStatus_t (*gemm_ex)(cublasHandle_t, cublasOperation_t, cublasOperation_t, int, int, int, const void*,
                            const void*, cudaDataType, int, const void*, cudaDataType, int, const void*, void*,
                            cudaDataType, int, cublasComputeType_t, cublasGemmAlgo_t) = nullptr;
  decltype(&cublasGetProperty) get_property = nullptr;
  std::string error;
};

const CublasApi& api() {
  static const CublasApi a = [] {
    CublasApi r;
    void* lib = dlopen("libcublas.so.13", RTLD_NOW | RTLD_LOCAL);
    if (!lib) {
      r.error = std::string("libcublas.so.13 not found: ") + dlerror();
      return r;
    }
    const auto sym = [&](auto& fn, const char* name) {
      fn = reinterpret_cast<std::remove_reference_t<decltype(fn)>>(dlsym(lib, name));
      if (!fn && r.error.empty()) r.error = std::string("libcublas.so.13 lacks ") + name;
    };
    sym(r.create, "cublasCreate_v2");
    sym(r.destroy, "cublasDestroy_v2");
    sym(r.set_stream, "cublasSetStream_v2");
    sym(r.set_math_mode, "cublasSetMathMode");
    sym(r.gemm_ex, "cublasGemmEx");
    sym(r.get_property, "cublasGetProperty");
    return r;
  }();
  return a;
}

void check(cublasStatus_t s, const char* what) {
  if (s != CUBLAS_STATUS_SUCCESS)
    throw InternalError(std::string("cuBLAS ") + what + " failed with status " + std::to_string(s));
}

cudaDataType_t cuda_type(DType t) {
  switch (t) {
    case DType::f32: return CUDA_R_32F;
    case DType::f16: return CUDA_R_16F;
    case DType::bf16: return CUDA_R_16BF;
  }
  return CUDA_R_32F;
}

class CublasGemmInstance final : public GpuGemmInstance {
 public:
  CublasGemmInstance(const GemmProblem& p, const std::vector<HostTensor>& inputs)
      : GpuGemmInstance(p, inputs) {
    check(api().create(&handle_), "cublasCreate");
    // The precision policy of every baseline: no TF32 and no reduced-precision (fp16/bf16)
    // split-K reduction, which the default math mode allows and which fails the gate at
    // 1000x999x1001 bf16 (max abs error 0.2 on values near 0.3, seen on an H100).
    check(api().set_math_mode(handle_, static_cast<cublasMath_t>(CUBLAS_DEFAULT_MATH |
                                                                 CUBLAS_MATH_DISALLOW_REDUCED_PRECISION_REDUCTION)),
          "cublasSetMathMode");
  }
  ~CublasGemmInstance() override { api().destroy(handle_); }
  std::string variant() const override { return "cublasGemmEx/COMPUTE_32F/DISALLOW_REDUCED_PRECISION_REDUCTION"; }

 protected:
  void launch(cudaStream_t stream, const void* a, const void* b, void* c) override {
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
