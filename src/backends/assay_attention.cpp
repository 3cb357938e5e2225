// assay's attention. f16/bf16 with d = 64 or 128 (and 256 on Hopper) run the fused flash kernel
// (kernels/attention/flash_attention.hpp); f8e4m3 runs the FP8 flash kernel on Hopper
// (kernels/attention/flash_attention_fp8.hpp; nothing else takes e4m3 inputs, so other devices
// and head dims skip); everything else (f32, other head dims) runs the
// reference: S = Q·Kᵀ (cuBLAS, fp32 out), P = softmax(S/√d, causal mask) (assay's kernel, P in
// the input dtype), O = P·V (cuBLAS, fp32 accumulate), which materialises the b·h·s² scores.
#include "backends/assay_backend.hpp"
#include "gpu/cublas_api.hpp"
#include "backends/gpu_instance.hpp"
#include "gpu/cuda_check.hpp"
#include "kernels/attention/attention_configs.hpp"
#include "kernels/attention/flash_attention.hpp"
#include "kernels/attention/flash_attention_fp8.hpp"
#include "kernels/attention/softmax.hpp"
#include "kernels/gemm/hopper/tensor_maps.hpp"
#include "workloads/attention.hpp"

#include <cmath>
#include <cstdlib>

namespace assay {

namespace {

using cublas::api;
using cublas::check;

class AttentionReferenceInstance final : public GpuInstance {
 public:
  AttentionReferenceInstance(const AttentionProblem& p, const std::vector<HostTensor>& inputs)
      : GpuInstance(p, inputs), p_(p) {
    const std::size_t scores = static_cast<std::size_t>(p.b() * p.h() * p.s() * p.s());
    // The s x s scores are not in the problem's device_bytes (the fused kernels need none): a
    // problem too large for them here is a skip with the sizes, not a failed allocation.
    std::size_t free = 0, total = 0;
    ASSAY_CUDA(cudaMemGetInfo(&free, &total));
    const double need = static_cast<double>(scores) * (sizeof(float) + dtype_size(p.dtype()));
    if (need > 0.9 * static_cast<double>(free))
      throw SkipError("the unfused reference needs " + std::to_string(static_cast<long long>(need / (1 << 20))) +
                      " MiB for the b*h*s*s scores and probabilities; " +
                      std::to_string(static_cast<long long>(free >> 20)) + " MiB is free");
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

// The shape fields both flash kernels' arguments have.
template <class Args>
Args shape_args(const AttentionProblem& p) {
  Args a;
  a.heads = static_cast<int>(p.b() * p.h());
  a.s = static_cast<int>(p.s());
  a.d = static_cast<int>(p.d());
  a.causal = p.causal();
  a.scale = static_cast<float>(1.0 / std::sqrt(static_cast<double>(p.d())));
  return a;
}

kernels::FlashAttentionArgs args(const AttentionProblem& p, const void* q, const void* k, const void* v, void* o) {
  auto a = shape_args<kernels::FlashAttentionArgs>(p);
  a.q = q;
  a.k = k;
  a.v = v;
  a.o = o;
  a.dtype = p.dtype();
  return a;
}

class FlashAttentionInstance final : public GpuInstance {
 public:
  FlashAttentionInstance(const AttentionProblem& p, const std::vector<HostTensor>& inputs,
                         const kernels::FlashConfig& config)
      : GpuInstance(p, inputs), p_(p), config_(config) {}
  std::string variant() const override { return config_.name(static_cast<int>(p_.d())); }

 protected:
  void launch(cudaStream_t stream, const std::vector<const void*>& in, void* out) override {
    ASSAY_CUDA(kernels::launch_flash_attention(args(p_, in[0], in[1], in[2], out), config_, stream));
  }

 private:
  AttentionProblem p_;
  kernels::FlashConfig config_;
};

// The FP8 kernel's arguments; `in` empty: the shape alone (for the configuration choice).
kernels::FlashFp8Args fp8_args(const AttentionProblem& p, const std::vector<const void*>& in, void* out,
                               void* workspace) {
  auto a = shape_args<kernels::FlashFp8Args>(p);
  if (!in.empty()) {
    a.q = in[0];
    a.k = in[1];
    a.v = in[2];
    a.q_descale = static_cast<const float*>(in[3]);
    a.k_descale = static_cast<const float*>(in[4]);
    a.v_descale = static_cast<const float*>(in[5]);
  }
  a.per_head_scales = p.per_head_scales();
  a.o = out;
  a.workspace = workspace;
  return a;
}

// The FP8 kernel: inputs Q, K, V (e4m3) and their descales; a pre-pass configuration's Vt
// lives in scratch.
class FlashFp8Instance final : public GpuInstance {
 public:
  FlashFp8Instance(const AttentionProblem& p, const std::vector<HostTensor>& inputs,
                   const kernels::FlashFp8Config& config)
      : GpuInstance(p, inputs), p_(p), config_(config) {
    const std::size_t bytes = kernels::flash_fp8_workspace_bytes(config, p.b() * p.h(), p.s(), p.d());
    if (bytes) workspace_ = scratch(bytes);
  }
  std::string variant() const override { return config_.name(static_cast<int>(p_.d())); }

 protected:
  void launch(cudaStream_t stream, const std::vector<const void*>& in, void* out) override {
    ASSAY_CUDA(kernels::launch_flash_attention_fp8(fp8_args(p_, in, out, workspace_), config_, stream));
  }

 private:
  AttentionProblem p_;
  kernels::FlashFp8Config config_;
  void* workspace_ = nullptr;
};

// ASSAY_FP8_BLOCK_KEYS=128 or 224 pins the FP8 kernel's key block where both exist (d = 128, two
// consumers, V by the pre-pass), for an `assay ab --base-env` of one binary against itself; unset,
// the cost model chooses (kernels::fp8_block_keys_by_cost).
int pinned_fp8_block_keys() {
  const char* env = std::getenv("ASSAY_FP8_BLOCK_KEYS");
  if (env == nullptr || *env == '\0') return 0;
  const std::string v = env;
  if (v != "128" && v != "224") throw InputError("ASSAY_FP8_BLOCK_KEYS='" + v + "': expected 128 or 224");
  return std::stoi(v);
}

// ASSAY_FP8_VT=kernel or pass pins where the FP8 kernel transposes V (d <= 128: the producer warp
// group, or the pre-pass), for the same kind of `assay ab`; unset, the keys per query tile choose.
kernels::Fp8VtPin pinned_fp8_vt() {
  const char* env = std::getenv("ASSAY_FP8_VT");
  if (env == nullptr || *env == '\0') return kernels::Fp8VtPin::automatic;
  const std::string v = env;
  if (v == "kernel") return kernels::Fp8VtPin::in_kernel;
  if (v == "pass") return kernels::Fp8VtPin::pre_pass;
  throw InputError("ASSAY_FP8_VT='" + v + "': expected kernel or pass");
}

std::unique_ptr<Instance> make_fp8_instance(const AttentionProblem& p, const std::vector<HostTensor>& inputs,
                                            const std::string& config, const kernels::hopper::DeviceFacts& facts) {
  const bool automatic = config == "auto";
  const std::string label = automatic ? "assay" : "assay@" + config;
  const kernels::FlashConfig pinned = automatic ? kernels::FlashConfig{true, 64} : kernels::flash_config_named(config);
  if (!pinned.wgmma || pinned.splits > 1)
    throw SkipError(label + ": f8e4m3 runs on the FP8 wgmma kernel only (wgmma_m64, wgmma_m128; no split-KV)");
  if (!facts.hopper) throw SkipError(label + ": the FP8 kernel runs on compute capability 9.0 (Hopper) only");
  const std::string unsupported = kernels::flash_fp8_unsupported(p.b() * p.h(), p.s(), p.d());
  if (!unsupported.empty()) throw SkipError(label + ": " + unsupported);
  return std::make_unique<FlashFp8Instance>(p, inputs,
                                            kernels::choose_flash_fp8_config(fp8_args(p, {}, nullptr, nullptr), facts.sms,
                                                                             automatic ? 0 : pinned.rows / 64,
                                                                             pinned_fp8_block_keys(), pinned_fp8_vt()));
}

}  // namespace

std::unique_ptr<Instance> make_assay_attention_instance(const Problem& problem, const std::vector<HostTensor>& inputs,
                                                        const std::string& config) {
  const auto& p = dynamic_cast<const AttentionProblem&>(problem);
  int device = 0;
  ASSAY_CUDA(cudaGetDevice(&device));
  const auto& facts = kernels::hopper::device_facts(device);
  const std::string flash_unsupported =
      kernels::flash_attention_unsupported(p.dtype(), p.b() * p.h(), p.s(), p.d(), facts.hopper);
  if (p.dtype() == DType::f8e4m3) return make_fp8_instance(p, inputs, config, facts);
  const bool pinned = kernels::is_attention_config(config) && config != "reference";
  if (pinned) {
    const kernels::FlashConfig c = kernels::flash_config_named(config);
    if (!flash_unsupported.empty()) throw SkipError("assay@" + config + ": " + flash_unsupported);
    const std::string config_unsupported = kernels::flash_config_unsupported(c, p.d());
    if (!config_unsupported.empty()) throw SkipError("assay@" + config + ": " + config_unsupported);
    if (c.wgmma && !facts.hopper)
      throw SkipError("assay@" + config + ": the wgmma kernel runs on compute capability 9.0 (Hopper) only");
    return std::make_unique<FlashAttentionInstance>(p, inputs, c);
  }
  if (config != "reference" && flash_unsupported.empty()) {
    const auto a = args(p, nullptr, nullptr, nullptr, nullptr);
    const auto chosen = kernels::choose_flash_config(a, facts.sms, facts.hopper, kernels::device_cluster_capacity(a));
    return std::make_unique<FlashAttentionInstance>(p, inputs, chosen);
  }
  if (!api().error.empty()) throw SkipError(api().error);
  return std::make_unique<AttentionReferenceInstance>(p, inputs);
}

}  // namespace assay
