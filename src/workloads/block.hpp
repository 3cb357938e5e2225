#pragma once
// block: one pre-norm transformer block, the lazy-tensor playbook's unit (issue 31 item 6).
//   A  = LN(X; ln1_w, ln1_b)                       X [batch, seq, H], LayerNorm eps 1e-5
//   Q, K, V = A·Wq, A·Wk, A·Wv  in `heads` heads of H/heads
//   R  = X + SDPA(Q, K, V; causal)·Wo               softmax(Q·Kᵀ/√(H/heads) [causal])·V
//   Y  = R + GELU(LN(R; ln2_w, ln2_b)·W1 + b1)·W2 + b2   W1 [H,4H], W2 [4H,H], GELU the erf form
// Weights are [in, out] row-major (X·W), U(-1,1)/sqrt(fan_in) like a Linear layer; LayerNorm
// weights 1 + U(-0.1, 0.1), biases U(-0.1, 0.1). FLOPs 24·batch·seq·H² (the six GEMMs) plus
// the attention's 4·batch·seq²·H (half when causal). The oracle is fp64 from the inputs: a
// backend that rounds its intermediates to f16 differs from it by that rounding, which the
// suite's tolerance must allow.
#include "workloads/workload.hpp"

namespace assay {

class BlockProblem final : public Problem {
 public:
  BlockProblem(std::int64_t batch, std::int64_t seq, std::int64_t hidden, std::int64_t heads, bool causal, DType dtype);
  std::string workload() const override { return "block"; }
  const Params& params() const override { return params_; }
  DType dtype() const override { return dtype_; }
  std::vector<std::string> input_names() const override;
  std::string output_name() const override { return "Y"; }
  double flops() const override;
  double min_bytes() const override;
  std::uint64_t device_bytes() const override;
  std::vector<HostTensor> make_inputs(std::uint64_t seed) const override;
  HostTensor output_like() const override;
  // Sampled rows are (sequence, position) rows of Y; each needs its whole sequence's keys.
  Reference reference(const std::vector<HostTensor>& inputs, std::int64_t sampled_rows) const override;

 private:
  std::int64_t batch_, seq_, hidden_, heads_;
  bool causal_;
  DType dtype_;
  Params params_;
};

class BlockWorkload final : public Workload {
 public:
  std::string name() const override { return "block"; }
  std::string description() const override {
    return "pre-norm transformer block: LN -> attention -> residual -> LN -> MLP(4H, GELU erf) -> residual";
  }
  std::vector<std::string> param_names() const override { return {"batch", "seq", "hidden", "heads", "causal"}; }
  std::vector<DType> dtypes() const override { return {DType::f32, DType::f16, DType::bf16}; }
  std::pair<std::int64_t, std::int64_t> param_range(const std::string& name) const override {
    return name == "causal" ? std::pair<std::int64_t, std::int64_t>{0, 1} : Workload::param_range(name);
  }
  std::unique_ptr<Problem> make(const Params& params, DType dtype) const override;
};

}  // namespace assay
