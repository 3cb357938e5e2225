#include "workloads/gemm.hpp"

#include <algorithm>

#include "core/error.hpp"
#include "core/parallel_for.hpp"
#include "workloads/sampled_rows.hpp"

namespace assay {

std::uint64_t splitmix64(std::uint64_t& state) {
  std::uint64_t z = (state += 0x9e3779b97f4a7c15ull);
  z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
  z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
  return z ^ (z >> 31);
}

void fill_uniform(HostTensor& t, std::uint64_t seed, double scale) {
  const std::size_t n = t.numel();
  // One independent stream per chunk so that the values do not depend on the thread count.
  constexpr std::size_t kChunk = 1 << 16;
  parallel_for((n + kChunk - 1) / kChunk, [&](std::size_t b, std::size_t e) {
    for (std::size_t c = b; c < e; ++c) {
      std::uint64_t state = seed * 0x100000001b3ull + c;
      for (std::size_t i = c * kChunk; i < std::min(n, (c + 1) * kChunk); ++i) {
        const double u = static_cast<double>(splitmix64(state) >> 11) * 0x1.0p-53;  // [0, 1)
        store_from_float(t.dtype, t.data.data(), i, static_cast<float>(scale * (2.0 * u - 1.0)));
      }
    }
  });
}

std::vector<float> to_floats(const HostTensor& t) {
  std::vector<float> out(t.numel());
  parallel_for(out.size(), [&](std::size_t b, std::size_t e) {
    for (std::size_t i = b; i < e; ++i) out[i] = static_cast<float>(load_as_double(t.dtype, t.data.data(), i));
  }, 1 << 16);
  return out;
}

GemmProblem::GemmProblem(std::int64_t m, std::int64_t n, std::int64_t k, DType dtype)
    : m_(m), n_(n), k_(k), dtype_(dtype), params_{{"m", m}, {"n", n}, {"k", k}} {}

double GemmProblem::flops() const { return 2.0 * m_ * n_ * k_; }

double GemmProblem::min_bytes() const {
  return static_cast<double>(dtype_size(dtype_)) *
             (static_cast<double>(m_) * k_ + static_cast<double>(k_) * n_) +
         static_cast<double>(dtype_size(output_dtype())) * static_cast<double>(m_) * n_;
}

std::uint64_t GemmProblem::device_bytes() const {
  const std::uint64_t scales = dtype_ == DType::f8e4m3 ? 2 * sizeof(float) : 0;
  return static_cast<std::uint64_t>(min_bytes()) + scales;
}

std::vector<std::string> GemmProblem::input_names() const {
  if (dtype_ == DType::f8e4m3) return {"A", "B", "scale_a", "scale_b"};
  return {"A", "B"};
}

std::vector<HostTensor> GemmProblem::make_inputs(std::uint64_t seed) const {
  const bool fp8 = dtype_ == DType::f8e4m3;
  HostTensor a = HostTensor::zeros(dtype_, {m_, k_});
  HostTensor b = fp8 ? HostTensor::zeros(dtype_, {n_, k_}) : HostTensor::zeros(dtype_, {k_, n_});
  // fp8 values reach into [1, 2) too, the binade where e4m3 steps by 0.125.
  const double range = fp8 ? 2.0 : 1.0;
  fill_uniform(a, seed * 2 + 1, range);
  fill_uniform(b, seed * 2 + 2, range);
  if (!fp8) return {std::move(a), std::move(b)};
  // Scales in disjoint bands of [0.5, 1.5) that hold no power of two, so that a kernel that
  // ignores one scale, or both, or applies one twice is off by at least 6% and fails the check.
  auto draw_scale = [](std::uint64_t state, double lo) {
    HostTensor t = HostTensor::zeros(DType::f32, {1});
    const double u = static_cast<double>(splitmix64(state) >> 11) * 0x1.0p-53;  // [0, 1)
    store_from_float(DType::f32, t.data.data(), 0, static_cast<float>(lo + 0.15 * u));
    return t;
  };
  return {std::move(a), std::move(b), draw_scale(seed * 2 + 3, 0.55), draw_scale(seed * 2 + 4, 0.75)};
}

HostTensor GemmProblem::output_like() const { return HostTensor::zeros(output_dtype(), {m_, n_}); }

std::vector<float> GemmProblem::b_k_by_n(const std::vector<HostTensor>& inputs) const {
  std::vector<float> b = to_floats(inputs.at(1));
  if (dtype_ != DType::f8e4m3) return b;
  std::vector<float> t(b.size());
  parallel_for(static_cast<std::size_t>(k_), [&](std::size_t pb, std::size_t pe) {
    for (std::size_t p = pb; p < pe; ++p)
      for (std::int64_t j = 0; j < n_; ++j) t[p * n_ + j] = b[j * k_ + p];
  });
  return t;
}

double GemmProblem::scale(const std::vector<HostTensor>& inputs) const {
  if (dtype_ != DType::f8e4m3) return 1.0;
  return load_as_double(DType::f32, inputs.at(2).data.data(), 0) *
         load_as_double(DType::f32, inputs.at(3).data.data(), 0);
}

Reference GemmProblem::reference(const std::vector<HostTensor>& inputs, std::int64_t sampled_rows) const {
  const std::vector<std::int64_t> rows = pick_rows(m_, sampled_rows);
  const std::vector<float> a = to_floats(inputs.at(0));
  const std::vector<float> b = b_k_by_n(inputs);
  const double s = scale(inputs);
  Reference ref;
  ref.oracle = rows.size() == static_cast<std::size_t>(m_) ? "fp64-cpu" : "fp64-cpu-sampled-rows";
  ref.index.resize(rows.size() * n_);
  ref.value.resize(rows.size() * n_);
  parallel_for(rows.size(), [&](std::size_t rb, std::size_t re) {
    std::vector<double> acc(n_);
    for (std::size_t r = rb; r < re; ++r) {
      std::fill(acc.begin(), acc.end(), 0.0);
      const std::int64_t i = rows[r];
      for (std::int64_t p = 0; p < k_; ++p) {
        const double av = a[i * k_ + p];
        const float* brow = &b[p * n_];
        for (std::int64_t j = 0; j < n_; ++j) acc[j] += av * brow[j];
      }
      for (std::int64_t j = 0; j < n_; ++j) {
        ref.index[r * n_ + j] = static_cast<std::size_t>(i * n_ + j);
        ref.value[r * n_ + j] = acc[j] * s;
      }
    }
  });
  return ref;
}

std::unique_ptr<Problem> GemmWorkload::make(const Params& params, DType dtype) const {
  reject_unknown_params(params, "gemm", {"m", "n", "k"});
  const std::int64_t m = require_param(params, "gemm", "m", 1, 2147483647);
  const std::int64_t n = require_param(params, "gemm", "n", 1, 2147483647);
  const std::int64_t k = require_param(params, "gemm", "k", 1, 2147483647);
  auto problem = std::make_unique<GemmProblem>(m, n, k, dtype);
  checked_bytes("gemm", {{m, k}, {k, n}}, dtype);
  checked_bytes("gemm", {{m, n}}, problem->output_dtype());
  return problem;
}

}  // namespace assay
