#pragma once
// attention: O = softmax(Q·Kᵀ/√d [causal: j > i masked])·V per (batch, head); Q, K, V, O are
// [b, h, s, d] row-major. FLOPs 4·b·h·s²·d, halved when causal; minimum bytes: Q, K, V read
// and O written once.
#include "workloads/workload.hpp"

namespace assay {

class AttentionProblem final : public Problem {
 public:
  AttentionProblem(std::int64_t b, std::int64_t h, std::int64_t s, std::int64_t d, bool causal, DType dtype);
  std::string workload() const override { return "attention"; }
  const Params& params() const override { return params_; }
  DType dtype() const override { return dtype_; }
  std::vector<std::string> input_names() const override { return {"Q", "K", "V"}; }
  std::string output_name() const override { return "O"; }
  double flops() const override;
  double min_bytes() const override;
  std::uint64_t device_bytes() const override;  // includes the s x s score matrices of the reference backend
  std::vector<HostTensor> make_inputs(std::uint64_t seed) const override;
  HostTensor output_like() const override;
  // A "row" is one query row (d outputs); sampled rows are spread over all b*h*s of them.
  Reference reference(const std::vector<HostTensor>& inputs, std::int64_t sampled_rows) const override;
  std::int64_t b() const { return b_; }
  std::int64_t h() const { return h_; }
  std::int64_t s() const { return s_; }
  std::int64_t d() const { return d_; }
  bool causal() const { return causal_; }

 private:
  std::int64_t b_, h_, s_, d_;
  bool causal_;
  DType dtype_;
  Params params_;
};

class AttentionWorkload final : public Workload {
 public:
  std::string name() const override { return "attention"; }
  std::string description() const override {
    return "O = softmax(Q*K^T/sqrt(d), causal mask if causal=1)*V, [b,h,s,d]";
  }
  std::vector<std::string> param_names() const override { return {"b", "h", "s", "d", "causal"}; }
  std::vector<DType> dtypes() const override { return {DType::f32, DType::f16, DType::bf16}; }
  std::pair<std::int64_t, std::int64_t> param_range(const std::string& name) const override {
    return name == "causal" ? std::pair<std::int64_t, std::int64_t>{0, 1} : Workload::param_range(name);
  }
  std::unique_ptr<Problem> make(const Params& params, DType dtype) const override;
};

}  // namespace assay
