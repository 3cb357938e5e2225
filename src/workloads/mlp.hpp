#pragma once
// mlp: Y = GELU(X·W1 + b1)·W2 + b2, X[batch,H], W1[H,4H], W2[4H,H] (row-major), GELU the
// exact erf form (PyTorch's default). FLOPs 16·batch·H² (the two GEMMs); minimum bytes:
// the inputs read once and Y written once (the hidden activations need not leave the chip).
// Weights and biases are U(-1,1)/sqrt(fan_in), as a Linear layer is initialised, so the
// outputs stay O(1) and elementwise tolerances mean something.
#include "workloads/workload.hpp"

namespace assay {

class MlpProblem final : public Problem {
 public:
  MlpProblem(std::int64_t batch, std::int64_t hidden, DType dtype);
  std::string workload() const override { return "mlp"; }
  const Params& params() const override { return params_; }
  DType dtype() const override { return dtype_; }
  std::vector<std::string> input_names() const override { return {"X", "W1", "b1", "W2", "b2"}; }
  std::string output_name() const override { return "Y"; }
  double flops() const override;
  double min_bytes() const override;
  std::uint64_t device_bytes() const override;
  std::vector<HostTensor> make_inputs(std::uint64_t seed) const override;
  HostTensor output_like() const override;
  Reference reference(const std::vector<HostTensor>& inputs, std::int64_t sampled_rows) const override;
  std::int64_t batch() const { return batch_; }
  std::int64_t hidden() const { return hidden_; }

 private:
  std::int64_t batch_, hidden_;
  DType dtype_;
  Params params_;
};

class MlpWorkload final : public Workload {
 public:
  std::string name() const override { return "mlp"; }
  std::string description() const override {
    return "Y = GELU(X*W1 + b1)*W2 + b2, Linear(H->4H) -> GELU(erf) -> Linear(4H->H), batch rows";
  }
  std::vector<std::string> param_names() const override { return {"batch", "hidden"}; }
  std::vector<DType> dtypes() const override { return {DType::f32, DType::f16, DType::bf16}; }
  std::unique_ptr<Problem> make(const Params& params, DType dtype) const override;
};

double gelu_erf(double x);

}  // namespace assay
