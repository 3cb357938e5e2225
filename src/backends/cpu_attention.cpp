// The cpu backend's attention: every dtype, f8e4m3 included. It is the workload's own fp64
// computation on the inputs it was given (f8e4m3 dequantised with their descales), rounded to
// the output dtype (bf16 for f8e4m3): for f8e4m3, whose oracle is on the unquantised values,
// its error is the quantisation's alone, the floor any FP8 kernel starts from.
#include <cstring>

#include "backends/cpu_gemm.hpp"
#include "workloads/attention.hpp"

namespace assay {

namespace {

class CpuAttentionInstance final : public Instance {
 public:
  CpuAttentionInstance(const AttentionProblem& p, const std::vector<HostTensor>& inputs)
      : p_(p), inputs_(inputs), out_(p.output_like()) {}
  std::string variant() const override { return p_.dtype() == DType::f8e4m3 ? "dequantised-fp64" : "fp64"; }
  void call(void*) override {
    const Reference r = p_.reference(inputs_, 0);
    for (std::size_t i = 0; i < r.index.size(); ++i)
      store_from_float(out_.dtype, out_.data.data(), r.index[i], static_cast<float>(r.value[i]));
  }
  void poison_output() override { std::memset(out_.data.data(), 0xff, out_.data.size()); }
  HostTensor read_output() override { return out_; }
  bool replace_inputs(const std::vector<HostTensor>& inputs) override {
    inputs_ = inputs;
    return true;
  }

 private:
  AttentionProblem p_;
  std::vector<HostTensor> inputs_;
  HostTensor out_;
};

}  // namespace

std::unique_ptr<Instance> make_cpu_attention_instance(const Problem& problem, const std::vector<HostTensor>& inputs) {
  return std::make_unique<CpuAttentionInstance>(dynamic_cast<const AttentionProblem&>(problem), inputs);
}

}  // namespace assay
