#include "workloads/attention.hpp"

#include <cmath>
#include <limits>

#include "core/error.hpp"
#include "core/parallel_for.hpp"
#include "workloads/gemm.hpp"
#include "workloads/sampled_rows.hpp"

namespace assay {

AttentionProblem::AttentionProblem(std::int64_t b, std::int64_t h, std::int64_t s, std::int64_t d, bool causal,
                                   DType dtype)
    : b_(b), h_(h), s_(s), d_(d), causal_(causal), dtype_(dtype),
      params_{{"b", b}, {"h", h}, {"s", s}, {"d", d}, {"causal", causal ? 1 : 0}} {}

double AttentionProblem::flops() const {
  const double f = 4.0 * b_ * h_ * static_cast<double>(s_) * s_ * d_;
  return causal_ ? f / 2 : f;
}

double AttentionProblem::min_bytes() const {
  return 4.0 * b_ * h_ * s_ * d_ * static_cast<double>(dtype_size(dtype_));
}

std::uint64_t AttentionProblem::device_bytes() const {
  // Q, K, V, O, plus fp32 scores and the probabilities of the reference backend (b*h*s*s each).
  const double scores = static_cast<double>(b_) * h_ * s_ * s_;
  return static_cast<std::uint64_t>(min_bytes() + scores * (4 + dtype_size(dtype_)));
}

std::vector<HostTensor> AttentionProblem::make_inputs(std::uint64_t seed) const {
  std::vector<HostTensor> t;
  for (int i = 0; i < 3; ++i) {
    t.push_back(HostTensor::zeros(dtype_, {b_, h_, s_, d_}));
    fill_uniform(t.back(), seed * 4 + i + 1);
  }
  return t;
}

HostTensor AttentionProblem::output_like() const { return HostTensor::zeros(dtype_, {b_, h_, s_, d_}); }

Reference AttentionProblem::reference(const std::vector<HostTensor>& in, std::int64_t sampled_rows) const {
  const auto rows = pick_rows(b_ * h_ * s_, sampled_rows);
  const auto q = to_floats(in.at(0)), k = to_floats(in.at(1)), v = to_floats(in.at(2));
  const double scale = 1.0 / std::sqrt(static_cast<double>(d_));
  Reference ref;
  ref.oracle = rows.size() == static_cast<std::size_t>(b_ * h_ * s_) ? "fp64-cpu" : "fp64-cpu-sampled-rows";
  ref.index.resize(rows.size() * d_);
  ref.value.resize(rows.size() * d_);
  parallel_for(rows.size(), [&](std::size_t rb, std::size_t re) {
    std::vector<double> p(s_), o(d_);
    for (std::size_t r = rb; r < re; ++r) {
      const std::int64_t row = rows[r], bh = row / s_, i = row % s_;
      const float* qi = &q[row * d_];
      const std::int64_t last = causal_ ? i : s_ - 1;  // keys 0..last are visible
      double mx = -std::numeric_limits<double>::infinity();
      for (std::int64_t j = 0; j <= last; ++j) {
        const float* kj = &k[(bh * s_ + j) * d_];
        double dot = 0;
        for (std::int64_t e = 0; e < d_; ++e) dot += static_cast<double>(qi[e]) * kj[e];
        p[j] = dot * scale;
        mx = std::max(mx, p[j]);
      }
      double sum = 0;
      for (std::int64_t j = 0; j <= last; ++j) sum += (p[j] = std::exp(p[j] - mx));
      std::fill(o.begin(), o.end(), 0.0);
      for (std::int64_t j = 0; j <= last; ++j) {
        const float* vj = &v[(bh * s_ + j) * d_];
        const double w = p[j] / sum;
        for (std::int64_t e = 0; e < d_; ++e) o[e] += w * vj[e];
      }
      for (std::int64_t e = 0; e < d_; ++e) {
        ref.index[r * d_ + e] = static_cast<std::size_t>(row * d_ + e);
        ref.value[r * d_ + e] = o[e];
      }
    }
  });
  return ref;
}

std::unique_ptr<Problem> AttentionWorkload::make(const Params& params, DType dtype) const {
  reject_unknown_params(params, "attention", {"b", "h", "s", "d", "causal"});
  const std::int64_t b = require_param(params, "attention", "b", 1, 2147483647);
  const std::int64_t h = require_param(params, "attention", "h", 1, 2147483647);
  const std::int64_t s = require_param(params, "attention", "s", 1, 2147483647);
  const std::int64_t d = require_param(params, "attention", "d", 1, 2147483647);
  const std::int64_t causal = require_param(params, "attention", "causal", 0, 1);
  std::int64_t bh;
  if (__builtin_mul_overflow(b, h, &bh)) throw InputError("attention: b*h overflows");
  checked_bytes("attention", {{bh, s * d}, {bh, s * s}}, DType::f32);
  return std::make_unique<AttentionProblem>(b, h, s, d, causal != 0, dtype);
}

}  // namespace assay
