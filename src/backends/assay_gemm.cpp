#include "backends/assay_backend.hpp"

#include "backends/gpu_instance.hpp"
#include "core/error.hpp"
#include "gpu/cuda_check.hpp"
#include "kernels/attention/attention_configs.hpp"
#include "kernels/gemm/gemm_kernels.hpp"
#include "workloads/gemm.hpp"

namespace assay {

namespace {

kernels::GemmDtype kernel_dtype(DType t) {
  switch (t) {
    case DType::f32: return kernels::GemmDtype::f32;
    case DType::f16: return kernels::GemmDtype::f16;
    case DType::bf16: return kernels::GemmDtype::bf16;
    case DType::f8e4m3: return kernels::GemmDtype::f8e4m3;
  }
  return kernels::GemmDtype::f32;
}

class AssayGemmInstance final : public GpuInstance {
 public:
  AssayGemmInstance(const GemmProblem& p, const std::vector<HostTensor>& inputs, std::string config)
      : GpuInstance(p, inputs), problem_(p), config_(std::move(config)) {}
  std::string variant() const override { return plan_.name; }

 protected:
  void launch(cudaStream_t stream, const std::vector<const void*>& in, void* c) override {
    kernels::GemmCall call;
    call.dtype = kernel_dtype(problem_.dtype());
    call.m = static_cast<int>(problem_.m());
    call.n = static_cast<int>(problem_.n());
    call.k = static_cast<int>(problem_.k());
    call.a = in[0];
    call.b = in[1];
    call.c = c;
    if (call.dtype == kernels::GemmDtype::f8e4m3) {  // inputs {A, B, scale_a, scale_b}
      call.scale_a = static_cast<const float*>(in.at(2));
      call.scale_b = static_cast<const float*>(in.at(3));
    }
    // Planned once, on the first call: the timed loop only launches.
    if (plan_.name.empty()) {
      plan_ = kernels::plan_gemm(call, config_);
      if (plan_.name.empty()) throw SkipError("assay@" + config_ + ": " + plan_.unavailable);
    }
    ASSAY_CUDA(kernels::launch_gemm(plan_, call, stream));
  }

 private:
  GemmProblem problem_;
  std::string config_;
  kernels::GemmPlan plan_;  // its name is the variant
};

}  // namespace

AssayBackend::AssayBackend(std::string gemm_config) : gemm_config_(std::move(gemm_config)) {}

std::string AssayBackend::name() const { return gemm_config_ == "auto" ? "assay" : "assay@" + gemm_config_; }

std::string AssayBackend::description() const {
  if (kernels::is_attention_config(gemm_config_)) return "assay's attention pinned to the " + gemm_config_ + " configuration";
  if (gemm_config_ != "auto") return "assay's GEMM pinned to the " + gemm_config_ + " configuration";
  return "assay's own kernels: GEMM (wgmma+TMA on sm_90, mma.sync on sm_80+), attention (fused flash kernel on "
         "mma.sync or wgmma for f16/bf16, d 64/128; FP8 wgmma for f8e4m3 on Hopper, d 64/128/256; cuBLAS + softmax "
         "reference otherwise)";
}

// All dtypes of both workloads (f8e4m3 attention: the FP8 wgmma kernel on Hopper; where a
// configuration cannot run a problem, instantiate skips, saying why).
bool AssayBackend::supports(const std::string& workload, DType /*dtype*/) const {
  if (kernels::is_attention_config(gemm_config_)) return workload == "attention";
  return workload == "gemm" || (gemm_config_ == "auto" && workload == "attention");
}

const std::vector<AssayBackend>& assay_variants() {
  static const std::vector<AssayBackend> v = [] {
    std::vector<AssayBackend> r;
    for (const auto& c : kernels::gemm_configs())
      if (c != "auto") r.emplace_back(c);
    for (std::string_view c : kernels::kAttentionConfigNames) r.emplace_back(std::string(c));
    return r;
  }();
  return v;
}

std::unique_ptr<Instance> make_assay_gemm_instance(const Problem& problem, const std::vector<HostTensor>& inputs,
                                                   const std::string& gemm_config) {
  return std::make_unique<AssayGemmInstance>(dynamic_cast<const GemmProblem&>(problem), inputs, gemm_config);
}

std::unique_ptr<Instance> AssayBackend::instantiate(const Problem& problem, const std::vector<HostTensor>& inputs) const {
  if (problem.workload() == "attention") return make_assay_attention_instance(problem, inputs, gemm_config_);
  return make_assay_gemm_instance(problem, inputs, gemm_config_);
}

}  // namespace assay
