#include "workloads/attention.hpp"

#include <algorithm>
#include <cmath>
#include <cstring>
#include <limits>
#include <string>

#include "core/error.hpp"
#include "core/parallel_for.hpp"
#include "workloads/gemm.hpp"
#include "workloads/sampled_rows.hpp"

namespace assay {

namespace {
constexpr float kOutlierFactor = 16.0f;
constexpr double kE4m3Max = 448.0;

// Each length-d row x of v becomes x·D·H/√d in place (D = diag(signs), H Sylvester's d×d
// Walsh-Hadamard matrix): the signs, then the fast transform's log2(d) butterfly passes, in fp64.
void rotate_rows(std::vector<float>& v, const std::vector<float>& signs) {
  const std::size_t d = signs.size();
  const double norm = 1.0 / std::sqrt(static_cast<double>(d));
  parallel_for(v.size() / d, [&](std::size_t rb, std::size_t re) {
    std::vector<double> x(d);
    for (std::size_t r = rb; r < re; ++r) {
      float* row = &v[r * d];
      for (std::size_t j = 0; j < d; ++j) x[j] = static_cast<double>(row[j]) * signs[j];
      for (std::size_t len = 1; len < d; len *= 2)
        for (std::size_t i = 0; i < d; i += 2 * len)
          for (std::size_t j = i; j < i + len; ++j) {
            const double a = x[j], b = x[j + len];
            x[j] = a + b;
            x[j + len] = a - b;
          }
      for (std::size_t j = 0; j < d; ++j) row[j] = static_cast<float>(x[j] * norm);
    }
  }, std::max<std::size_t>(1, (1 << 16) / d));
}
}  // namespace

AttentionProblem::AttentionProblem(std::int64_t b, std::int64_t h, std::int64_t s, std::int64_t d, bool causal,
                                   DType dtype, std::int64_t outliers, bool per_head_scales, bool hadamard)
    : b_(b), h_(h), s_(s), d_(d), causal_(causal), dtype_(dtype), outliers_(outliers),
      per_head_scales_(per_head_scales), hadamard_(hadamard),
      params_{{"b", b}, {"h", h}, {"s", s}, {"d", d}, {"causal", causal ? 1 : 0}} {
  if (outliers_ > 0) params_["outliers"] = outliers_;
  if (per_head_scales_) params_["per_head_scales"] = 1;
  if (hadamard_) params_["hadamard"] = 1;
}

std::vector<std::string> AttentionProblem::input_names() const {
  if (dtype_ == DType::f8e4m3) return {"Q", "K", "V", "q_descale", "k_descale", "v_descale"};
  return {"Q", "K", "V"};
}

double AttentionProblem::flops() const {
  const double f = 4.0 * b_ * h_ * static_cast<double>(s_) * s_ * d_;
  return causal_ ? f / 2 : f;
}

double AttentionProblem::min_bytes() const {
  const double n = static_cast<double>(b_) * h_ * s_ * d_;
  const double descales = dtype_ == DType::f8e4m3 ? 3.0 * (per_head_scales_ ? b_ * h_ : 1) * sizeof(float) : 0;
  return 3.0 * n * static_cast<double>(dtype_size(dtype_)) + n * static_cast<double>(dtype_size(output_dtype())) +
         descales;
}

std::uint64_t AttentionProblem::device_bytes() const {
  // The fused kernels' working set: Q, K, V, O and, for f8e4m3, V transposed (assay's pre-pass,
  // s padded to 128) and cuDNN's e4m3 O. The unfused reference's b·h·s² scores are its own
  // scratch, checked when it is built (backends/assay_attention.cpp): counted here, they refused
  // every long-context case (16 heads at 32k tokens "needed" 96 GiB).
  const double n = static_cast<double>(b_) * h_ * s_ * d_;
  const double fp8_extra = dtype_ == DType::f8e4m3 ? static_cast<double>(b_) * h_ * ((s_ + 127) / 128 * 128) * d_ + n : 0;
  return static_cast<std::uint64_t>(min_bytes() + fp8_extra);
}

std::vector<float> AttentionProblem::values(std::uint64_t seed, int which) const {
  HostTensor t = HostTensor::zeros(DType::f32, {b_, h_, s_, d_});
  fill_uniform(t, seed * 4 + static_cast<std::uint64_t>(which) + 1);
  std::vector<float> v(t.numel());
  std::memcpy(v.data(), t.data.data(), t.bytes());
  if (outliers_ > 0) {
    // Entry i is an outlier when its own draw from the seed falls under outliers per million.
    parallel_for(v.size(), [&](std::size_t b, std::size_t e) {
      for (std::size_t i = b; i < e; ++i) {
        std::uint64_t state = (seed * 4 + static_cast<std::uint64_t>(which)) * 0x9e3779b97f4a7c15ull + i;
        if (static_cast<std::int64_t>(splitmix64(state) % 1000000) < outliers_) v[i] *= kOutlierFactor;
      }
    }, 1 << 16);
  }
  return v;
}

std::vector<float> AttentionProblem::hadamard_signs(std::uint64_t seed) const {
  // The signs of a uniform draw from seed * 4, the stream Q, K and V (seed * 4 + 1..3) leave free.
  HostTensor u = HostTensor::zeros(DType::f32, {d_});
  fill_uniform(u, seed * 4);
  std::vector<float> signs = to_floats(u);
  for (float& x : signs) x = x < 0 ? -1.0f : 1.0f;
  return signs;
}

std::vector<HostTensor> AttentionProblem::make_inputs(std::uint64_t seed) const {
  std::vector<HostTensor> t;
  if (dtype_ != DType::f8e4m3) {
    for (int i = 0; i < 3; ++i) {
      t.push_back(HostTensor::zeros(dtype_, {b_, h_, s_, d_}));
      if (outliers_ == 0) {
        fill_uniform(t.back(), seed * 4 + i + 1);
      } else {
        const auto v = values(seed, i);
        for (std::size_t j = 0; j < v.size(); ++j) store_from_float(dtype_, t.back().data.data(), j, v[j]);
      }
    }
    return t;
  }
  // e4m3 with a scale per tensor or per (batch, head) that maps the amax to e4m3's largest value.
  const std::int64_t groups = per_head_scales_ ? b_ * h_ : 1;
  const std::size_t per_group = static_cast<std::size_t>(b_ * h_ * s_ * d_ / groups);
  std::vector<HostTensor> descales;
  const std::vector<float> signs = hadamard_ ? hadamard_signs(seed) : std::vector<float>{};
  for (int i = 0; i < 3; ++i) {
    auto v = values(seed, i);
    if (hadamard_ && i < 2) rotate_rows(v, signs);  // Q and K only: QKᵀ is unchanged, a rotated V would rotate O
    HostTensor q = HostTensor::zeros(DType::f8e4m3, {b_, h_, s_, d_});
    HostTensor ds = HostTensor::zeros(DType::f32, per_head_scales_ ? std::vector<std::int64_t>{b_, h_}
                                                                   : std::vector<std::int64_t>{1});
    for (std::int64_t g = 0; g < groups; ++g) {
      float amax = 0;
      for (std::size_t j = g * per_group; j < (g + 1) * per_group; ++j) amax = std::max(amax, std::fabs(v[j]));
      const float scale = amax > 0 ? static_cast<float>(kE4m3Max / amax) : 1.0f;
      for (std::size_t j = g * per_group; j < (g + 1) * per_group; ++j)
        store_from_float(DType::f8e4m3, q.data.data(), j, v[j] * scale);
      store_from_float(DType::f32, ds.data.data(), static_cast<std::size_t>(g), 1.0f / scale);
    }
    t.push_back(std::move(q));
    descales.push_back(std::move(ds));
  }
  for (auto& ds : descales) t.push_back(std::move(ds));
  return t;
}

HostTensor AttentionProblem::output_like() const { return HostTensor::zeros(output_dtype(), {b_, h_, s_, d_}); }

std::vector<float> AttentionProblem::dequantised(const std::vector<HostTensor>& in, int which) const {
  auto v = to_floats(in.at(static_cast<std::size_t>(which)));
  if (dtype_ != DType::f8e4m3) return v;
  const auto ds = to_floats(in.at(static_cast<std::size_t>(3 + which)));
  const std::size_t per_group = v.size() / ds.size();
  for (std::size_t j = 0; j < v.size(); ++j) v[j] *= ds[j / per_group];
  return v;
}

Reference AttentionProblem::reference(const std::vector<HostTensor>& in, std::int64_t sampled_rows) const {
  return compute(dequantised(in, 0), dequantised(in, 1), dequantised(in, 2), sampled_rows);
}

Reference AttentionProblem::oracle(const std::vector<HostTensor>& in, std::uint64_t seed,
                                   std::int64_t sampled_rows) const {
  if (dtype_ != DType::f8e4m3) return reference(in, sampled_rows);
  return compute(values(seed, 0), values(seed, 1), values(seed, 2), sampled_rows);
}

Reference AttentionProblem::compute(const std::vector<float>& q, const std::vector<float>& k,
                                    const std::vector<float>& v, std::int64_t sampled_rows) const {
  const auto rows = pick_rows(b_ * h_ * s_, sampled_rows);
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
  reject_unknown_params(params, "attention",
                        {"b", "h", "s", "d", "causal", "outliers", "per_head_scales", "hadamard"});
  const std::int64_t b = require_param(params, "attention", "b", 1, 2147483647);
  const std::int64_t h = require_param(params, "attention", "h", 1, 2147483647);
  const std::int64_t s = require_param(params, "attention", "s", 1, 2147483647);
  const std::int64_t d = require_param(params, "attention", "d", 1, 2147483647);
  const std::int64_t causal = require_param(params, "attention", "causal", 0, 1);
  const std::int64_t outliers = params.count("outliers") ? require_param(params, "attention", "outliers", 0, 1000000) : 0;
  // The e4m3 path's flags: the other dtypes are not quantised, so they have no use for them.
  const auto f8_flag = [&](const char* name, const char* why) {
    const bool on = params.count(name) && require_param(params, "attention", name, 0, 1) != 0;
    if (on && dtype != DType::f8e4m3)
      throw InputError(std::string(name) + ": " + why + " (this case is " + std::string(dtype_name(dtype)) + ")");
    return on;
  };
  const bool per_head = f8_flag("per_head_scales", "only f8e4m3 has scales");
  const bool hadamard = f8_flag("hadamard", "only f8e4m3 is quantised, so only it is rotated");
  if (hadamard && (d & (d - 1)) != 0)
    throw InputError("hadamard: the Walsh-Hadamard matrix needs d to be a power of two, not " + std::to_string(d));
  std::int64_t bh;
  if (__builtin_mul_overflow(b, h, &bh)) throw InputError("attention: b*h overflows");
  checked_bytes("attention", {{bh, s * d}, {bh, s * s}}, DType::f32);
  return std::make_unique<AttentionProblem>(b, h, s, d, causal != 0, dtype, outliers, per_head, hadamard);
}

}  // namespace assay
