// The cpu backend's attention: every dtype, f8e4m3 included (its inputs dequantised with their
// descales, O rounded to bf16), in fp32 with double accumulators, query rows spread over the
// host's threads. A reference to run attention suites and FP8 accuracy studies without a GPU.
#include <cmath>
#include <cstring>
#include <limits>

#include "backends/cpu_gemm.hpp"
#include "core/parallel_for.hpp"
#include "workloads/attention.hpp"

namespace assay {

namespace {

class CpuAttentionInstance final : public Instance {
 public:
  CpuAttentionInstance(const AttentionProblem& p, const std::vector<HostTensor>& inputs)
      : p_(p), out_(p.output_like()) {
    replace_inputs(inputs);
  }
  std::string variant() const override { return p_.dtype() == DType::f8e4m3 ? "dequantised-fp32" : "fp32"; }
  void call(void*) override {
    const std::int64_t s = p_.s(), d = p_.d(), rows = p_.b() * p_.h() * s;
    const double scale = 1.0 / std::sqrt(static_cast<double>(d));
    parallel_for(static_cast<std::size_t>(rows), [&](std::size_t rb, std::size_t re) {
      std::vector<double> w(static_cast<std::size_t>(s)), o(static_cast<std::size_t>(d));
      for (std::size_t row = rb; row < re; ++row) {
        const std::int64_t bh = static_cast<std::int64_t>(row) / s, i = static_cast<std::int64_t>(row) % s;
        const float* qi = &q_[row * d];
        const std::int64_t last = p_.causal() ? i : s - 1;
        double mx = -std::numeric_limits<double>::infinity();
        for (std::int64_t j = 0; j <= last; ++j) {
          const float* kj = &k_[(bh * s + j) * d];
          double dot = 0;
          for (std::int64_t e = 0; e < d; ++e) dot += static_cast<double>(qi[e]) * kj[e];
          w[j] = dot * scale;
          mx = std::max(mx, w[j]);
        }
        double sum = 0;
        for (std::int64_t j = 0; j <= last; ++j) sum += (w[j] = std::exp(w[j] - mx));
        std::fill(o.begin(), o.end(), 0.0);
        for (std::int64_t j = 0; j <= last; ++j) {
          const float* vj = &v_[(bh * s + j) * d];
          for (std::int64_t e = 0; e < d; ++e) o[e] += w[j] / sum * vj[e];
        }
        for (std::int64_t e = 0; e < d; ++e)
          store_from_float(out_.dtype, out_.data.data(), row * d + e, static_cast<float>(o[e]));
      }
    }, 16);
  }
  void poison_output() override { std::memset(out_.data.data(), 0xff, out_.data.size()); }
  HostTensor read_output() override { return out_; }
  bool replace_inputs(const std::vector<HostTensor>& inputs) override {
    q_ = p_.dequantised(inputs, 0);
    k_ = p_.dequantised(inputs, 1);
    v_ = p_.dequantised(inputs, 2);
    return true;
  }

 private:
  AttentionProblem p_;
  std::vector<float> q_, k_, v_;
  HostTensor out_;
};

}  // namespace

std::unique_ptr<Instance> make_cpu_attention_instance(const Problem& problem, const std::vector<HostTensor>& inputs) {
  return std::make_unique<CpuAttentionInstance>(dynamic_cast<const AttentionProblem&>(problem), inputs);
}

}  // namespace assay
