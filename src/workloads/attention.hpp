#pragma once
// attention: O = softmax(Q·Kᵀ/√d [causal: j > i masked])·V per (batch, head); Q, K, V, O are
// [b, h, s, d] row-major. FLOPs 4·b·h·s²·d, halved when causal; minimum bytes: Q, K, V read
// and O written once.
//
// Values: U(-1, 1) from the seed; with `outliers` = N, N entries per million (chosen from the
// seed) are multiplied by 16, the data FP8 fails on. f8e4m3: the same values, quantised by assay
// to e4m3 with a scale of 448/amax per tensor (or per (batch, head) with per_head_scales = 1);
// the inputs are Q, K, V in e4m3 and their descales (amax/448, f32, [1] or [b, h]); O is bf16;
// the oracle is on the unquantised values. The optional parameters are in params() only when
// set, so the case ids of the other cases do not change.
//
// hadamard = 1 (f8e4m3, d a power of two): Q and K, not V, are rotated before quantisation,
// each row x becoming x·D·H/√d, with H the d×d Sylvester Walsh-Hadamard matrix and D a diagonal
// of random signs from the seed, the same for Q and K. DH/√d is orthogonal, so (QDH)(KDH)ᵀ = QKᵀ:
// the rotation changes nothing but the rounding. It spreads an outlier over the whole row, which
// lowers the amax and keeps any one product of QKᵀ from carrying an outlier's rounding
// (FlashAttention-3's "incoherent processing": RMSE 9.1e-3 against 2.4e-2 on outlier data; the
// gain here is smaller, docs/kernels/attention.md). The oracle stays on the unrotated,
// unquantised values, so the error reported is the whole error of the rotated path;
// dequantised() and reference() see what the kernel was given (rotated), the same in exact math.
#include "workloads/workload.hpp"

namespace assay {

class AttentionProblem final : public Problem {
 public:
  AttentionProblem(std::int64_t b, std::int64_t h, std::int64_t s, std::int64_t d, bool causal, DType dtype,
                   std::int64_t outliers = 0, bool per_head_scales = false, bool hadamard = false);
  std::string workload() const override { return "attention"; }
  const Params& params() const override { return params_; }
  DType dtype() const override { return dtype_; }
  std::vector<std::string> input_names() const override;
  std::string output_name() const override { return "O"; }
  double flops() const override;
  double min_bytes() const override;
  std::uint64_t device_bytes() const override;  // the fused kernels' (the reference's s x s scores are not)
  std::vector<HostTensor> make_inputs(std::uint64_t seed) const override;
  HostTensor output_like() const override;
  // A "row" is one query row (d outputs); sampled rows are spread over all b*h*s of them.
  // f8e4m3: on the dequantised inputs (what the kernel was given).
  Reference reference(const std::vector<HostTensor>& inputs, std::int64_t sampled_rows) const override;
  // f8e4m3: on the unquantised values of `seed`.
  Reference oracle(const std::vector<HostTensor>& inputs, std::uint64_t seed, std::int64_t sampled_rows) const override;
  // Q, K or V (0, 1, 2) before any rounding: what every dtype's inputs are made from.
  std::vector<float> values(std::uint64_t seed, int which) const;
  // The dequantised Q, K or V of f8e4m3 inputs (element times its descale); the values as floats otherwise.
  std::vector<float> dequantised(const std::vector<HostTensor>& inputs, int which) const;
  // hadamard = 1: the d signs of D (±1), drawn from the seed; Q and K share them.
  std::vector<float> hadamard_signs(std::uint64_t seed) const;
  DType output_dtype() const { return dtype_ == DType::f8e4m3 ? DType::bf16 : dtype_; }
  std::int64_t outliers() const { return outliers_; }
  bool per_head_scales() const { return per_head_scales_; }
  bool hadamard() const { return hadamard_; }
  std::int64_t b() const { return b_; }
  std::int64_t h() const { return h_; }
  std::int64_t s() const { return s_; }
  std::int64_t d() const { return d_; }
  bool causal() const { return causal_; }

 private:
  Reference compute(const std::vector<float>& q, const std::vector<float>& k, const std::vector<float>& v,
                    std::int64_t sampled_rows) const;
  std::int64_t b_, h_, s_, d_;
  bool causal_;
  DType dtype_;
  std::int64_t outliers_;
  bool per_head_scales_;
  bool hadamard_;
  Params params_;
};

class AttentionWorkload final : public Workload {
 public:
  std::string name() const override { return "attention"; }
  std::string description() const override {
    return "O = softmax(Q*K^T/sqrt(d), causal mask if causal=1)*V, [b,h,s,d]";
  }
  std::vector<std::string> param_names() const override {
    return {"b", "h", "s", "d", "causal", "outliers", "per_head_scales", "hadamard"};
  }
  std::vector<DType> dtypes() const override { return {DType::f32, DType::f16, DType::bf16, DType::f8e4m3}; }
  std::pair<std::int64_t, std::int64_t> param_range(const std::string& name) const override {
    if (name == "causal" || name == "per_head_scales" || name == "hadamard") return {0, 1};
    if (name == "outliers") return {0, 1000000};
    return Workload::param_range(name);
  }
  bool param_optional(const std::string& name) const override {
    return name == "outliers" || name == "per_head_scales" || name == "hadamard";
  }
  bool param_keeps_values(const std::string& name) const override { return name == "hadamard"; }
  std::unique_ptr<Problem> make(const Params& params, DType dtype) const override;
};

}  // namespace assay
