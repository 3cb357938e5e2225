#pragma once
// gemm: C[m,n] = A[m,k] * B[k,n], row-major, fp32 accumulation, C in the input dtype.
// f8e4m3: C[m,n] = scale_a * scale_b * A[m,k] * B[n,k]^T, B stored n x k row-major (K-major,
// the only layout cuBLASLt and wgmma take for fp8), per-tensor fp32 scales, C in bf16.
// FLOPs 2mnk; minimum bytes: A and B read once, C written once.
#include "workloads/workload.hpp"

namespace assay {

class GemmProblem final : public Problem {
 public:
  GemmProblem(std::int64_t m, std::int64_t n, std::int64_t k, DType dtype);
  std::string workload() const override { return "gemm"; }
  const Params& params() const override { return params_; }
  std::vector<std::string> input_names() const override;  // {"A", "B"}, f8e4m3: + {"scale_a", "scale_b"}
  std::string output_name() const override { return "C"; }
  DType dtype() const override { return dtype_; }
  double flops() const override;
  double min_bytes() const override;
  std::uint64_t device_bytes() const override;
  std::vector<HostTensor> make_inputs(std::uint64_t seed) const override;  // in input_names order
  HostTensor output_like() const override;
  Reference reference(const std::vector<HostTensor>& inputs, std::int64_t sampled_rows) const override;
  DType output_dtype() const { return dtype_ == DType::f8e4m3 ? DType::bf16 : dtype_; }
  // B (inputs[1]) as k x n row-major floats, whichever layout the dtype stores it in.
  std::vector<float> b_k_by_n(const std::vector<HostTensor>& inputs) const;
  // scale_a * scale_b, or 1 for the dtypes without scales.
  double scale(const std::vector<HostTensor>& inputs) const;
  std::int64_t m() const { return m_; }
  std::int64_t n() const { return n_; }
  std::int64_t k() const { return k_; }

 private:
  std::int64_t m_, n_, k_;
  DType dtype_;
  Params params_;
};

class GemmWorkload final : public Workload {
 public:
  std::string name() const override { return "gemm"; }
  std::string description() const override {
    return "C[m,n] = A[m,k]*B[k,n], row-major, fp32 accumulate, output in the input dtype; "
           "f8e4m3: C = scale_a*scale_b*A[m,k]*B[n,k]^T (B stored n x k), fp32 scales, bf16 output";
  }
  std::vector<std::string> param_names() const override { return {"m", "n", "k"}; }
  std::vector<DType> dtypes() const override { return {DType::f32, DType::f16, DType::bf16, DType::f8e4m3}; }
  std::unique_ptr<Problem> make(const Params& params, DType dtype) const override;
};

// The next value of the splitmix64 generator whose state is `state` (advanced).
std::uint64_t splitmix64(std::uint64_t& state);
// Deterministic uniform values in [-scale, scale) rounded to `dtype`, from a seed (splitmix64).
void fill_uniform(HostTensor& t, std::uint64_t seed, double scale = 1.0);
// Elements of a tensor as float (exact for every dtype).
std::vector<float> to_floats(const HostTensor& t);

}  // namespace assay
