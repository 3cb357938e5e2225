#include "backends/cpu_gemm.hpp"

#include <algorithm>
#include <cstring>

#include "core/parallel_for.hpp"
#include "workloads/gemm.hpp"

namespace assay {

void cpu_gemm_f32(std::int64_t m, std::int64_t n, std::int64_t k, const float* a, const float* b, float* c) {
  // Blocks of rows per thread; within a row block, k-blocks keep a slice of B in cache while
  // the inner loop runs over contiguous j (vectorisable).
  constexpr std::int64_t kRowBlock = 16, kKBlock = 256;
  const std::size_t row_blocks = static_cast<std::size_t>((m + kRowBlock - 1) / kRowBlock);
  parallel_for(row_blocks, [&](std::size_t rb, std::size_t re) {
    for (std::size_t blk = rb; blk < re; ++blk) {
      const std::int64_t i0 = static_cast<std::int64_t>(blk) * kRowBlock, i1 = std::min(m, i0 + kRowBlock);
      for (std::int64_t i = i0; i < i1; ++i) std::memset(c + i * n, 0, sizeof(float) * n);
      for (std::int64_t p0 = 0; p0 < k; p0 += kKBlock) {
        const std::int64_t p1 = std::min(k, p0 + kKBlock);
        for (std::int64_t i = i0; i < i1; ++i) {
          float* crow = c + i * n;
          for (std::int64_t p = p0; p < p1; ++p) {
            const float av = a[i * k + p];
            const float* brow = b + p * n;
            for (std::int64_t j = 0; j < n; ++j) crow[j] += av * brow[j];
          }
        }
      }
    }
  });
}

namespace {

class CpuGemmInstance final : public Instance {
 public:
  CpuGemmInstance(const GemmProblem& p, const std::vector<HostTensor>& inputs)
      : p_(p), a_(to_floats(inputs.at(0))), b_(p.b_k_by_n(inputs)), scale_(static_cast<float>(p.scale(inputs))),
        acc_(static_cast<std::size_t>(p.m() * p.n())), out_(p.output_like()) {}
  std::string variant() const override { return "blocked-16x256"; }
  void call(void*) override {
    cpu_gemm_f32(p_.m(), p_.n(), p_.k(), a_.data(), b_.data(), acc_.data());
    for (std::size_t i = 0; i < acc_.size(); ++i)
      store_from_float(out_.dtype, out_.data.data(), i, acc_[i] * scale_);
  }
  void poison_output() override { std::memset(out_.data.data(), 0xff, out_.data.size()); }
  HostTensor read_output() override { return out_; }
  bool replace_inputs(const std::vector<HostTensor>& inputs) override {
    a_ = to_floats(inputs.at(0));
    b_ = p_.b_k_by_n(inputs);
    scale_ = static_cast<float>(p_.scale(inputs));
    return true;
  }

 private:
  GemmProblem p_;
  std::vector<float> a_, b_;
  float scale_;
  std::vector<float> acc_;
  HostTensor out_;
};

}  // namespace

std::unique_ptr<Instance> CpuGemmBackend::instantiate(const Problem& problem,
                                                      const std::vector<HostTensor>& inputs) const {
  if (problem.workload() == "attention") return make_cpu_attention_instance(problem, inputs);
  return std::make_unique<CpuGemmInstance>(dynamic_cast<const GemmProblem&>(problem), inputs);
}

}  // namespace assay
