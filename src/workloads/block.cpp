#include "workloads/block.hpp"

#include <cmath>
#include <limits>
#include <map>

#include "core/error.hpp"
#include "core/parallel_for.hpp"
#include "workloads/gemm.hpp"
#include "workloads/mlp.hpp"
#include "workloads/sampled_rows.hpp"

namespace assay {

namespace {

enum Input { kX, kLn1W, kLn1B, kWq, kWk, kWv, kWo, kLn2W, kLn2B, kW1, kB1, kW2, kB2, kInputs };

// out = LN(x) * w + b over n values, eps 1e-5 (biased variance, as PyTorch).
void layer_norm(const double* x, const float* w, const float* b, std::int64_t n, double* out) {
  double mean = 0, var = 0;
  for (std::int64_t i = 0; i < n; ++i) mean += x[i];
  mean /= static_cast<double>(n);
  for (std::int64_t i = 0; i < n; ++i) var += (x[i] - mean) * (x[i] - mean);
  const double inv = 1.0 / std::sqrt(var / static_cast<double>(n) + 1e-5);
  for (std::int64_t i = 0; i < n; ++i) out[i] = (x[i] - mean) * inv * w[i] + b[i];
}

// out[0..m) = x[0..n)·W (W [n, m] row-major) (+ bias).
void vec_mat(const double* x, const float* w, std::int64_t n, std::int64_t m, double* out, const float* bias = nullptr) {
  for (std::int64_t j = 0; j < m; ++j) out[j] = bias ? bias[j] : 0.0;
  for (std::int64_t p = 0; p < n; ++p) {
    const double xv = x[p];
    const float* row = w + p * m;
    for (std::int64_t j = 0; j < m; ++j) out[j] += xv * row[j];
  }
}

}  // namespace

BlockProblem::BlockProblem(std::int64_t batch, std::int64_t seq, std::int64_t hidden, std::int64_t heads, bool causal,
                           DType dtype)
    : batch_(batch), seq_(seq), hidden_(hidden), heads_(heads), causal_(causal), dtype_(dtype),
      params_{{"batch", batch}, {"seq", seq}, {"hidden", hidden}, {"heads", heads}, {"causal", causal ? 1 : 0}} {}

std::vector<std::string> BlockProblem::input_names() const {
  return {"X", "ln1_w", "ln1_b", "Wq", "Wk", "Wv", "Wo", "ln2_w", "ln2_b", "W1", "b1", "W2", "b2"};
}

double BlockProblem::flops() const {
  const double rows = static_cast<double>(batch_) * seq_, h = static_cast<double>(hidden_);
  const double attention = 4.0 * batch_ * static_cast<double>(seq_) * seq_ * h;
  return 24.0 * rows * h * h + (causal_ ? attention / 2 : attention);
}

double BlockProblem::min_bytes() const {
  const double rows = static_cast<double>(batch_) * seq_, h = static_cast<double>(hidden_);
  return static_cast<double>(dtype_size(dtype_)) * (2 * rows * h + 12 * h * h + 9 * h);
}

std::uint64_t BlockProblem::device_bytes() const {
  // Inputs, output, and the activations a backend keeps: Q, K, V, A, R and the [rows, 4H]
  // hidden (10 H per row), and fp32 scores of one head at a time in the worst case (all heads).
  const double rows = static_cast<double>(batch_) * seq_;
  const double scores = static_cast<double>(batch_) * heads_ * seq_ * seq_ * 4;
  return static_cast<std::uint64_t>(min_bytes() + 10.0 * rows * hidden_ * dtype_size(dtype_) + scores);
}

std::vector<HostTensor> BlockProblem::make_inputs(std::uint64_t seed) const {
  const std::int64_t h = hidden_, f = 4 * hidden_;
  std::vector<HostTensor> t = {HostTensor::zeros(dtype_, {batch_, seq_, h}),
                               HostTensor::zeros(dtype_, {h}),
                               HostTensor::zeros(dtype_, {h}),
                               HostTensor::zeros(dtype_, {h, h}),
                               HostTensor::zeros(dtype_, {h, h}),
                               HostTensor::zeros(dtype_, {h, h}),
                               HostTensor::zeros(dtype_, {h, h}),
                               HostTensor::zeros(dtype_, {h}),
                               HostTensor::zeros(dtype_, {h}),
                               HostTensor::zeros(dtype_, {h, f}),
                               HostTensor::zeros(dtype_, {f}),
                               HostTensor::zeros(dtype_, {f, h}),
                               HostTensor::zeros(dtype_, {h})};
  const double in_h = 1.0 / std::sqrt(static_cast<double>(h)), in_f = 1.0 / std::sqrt(static_cast<double>(f));
  const double scale[kInputs] = {1.0, 0.1, 0.1, in_h, in_h, in_h, in_h, 0.1, 0.1, in_h, in_h, in_f, in_f};
  for (std::size_t i = 0; i < t.size(); ++i) fill_uniform(t[i], seed * 16 + i + 1, scale[i]);
  for (const int ln_weight : {kLn1W, kLn2W}) {  // 1 + U(-0.1, 0.1)
    auto& w = t[static_cast<std::size_t>(ln_weight)];
    for (std::size_t i = 0; i < w.numel(); ++i)
      store_from_float(dtype_, w.data.data(), i, static_cast<float>(1.0 + load_as_double(dtype_, w.data.data(), i)));
  }
  return t;
}

HostTensor BlockProblem::output_like() const { return HostTensor::zeros(dtype_, {batch_, seq_, hidden_}); }

Reference BlockProblem::reference(const std::vector<HostTensor>& in, std::int64_t sampled_rows) const {
  const std::int64_t h = hidden_, f = 4 * hidden_, l = seq_, nh = heads_, d = hidden_ / heads_;
  const auto rows = pick_rows(batch_ * seq_, sampled_rows);
  std::vector<std::vector<float>> v;
  for (const auto& t : in) v.push_back(to_floats(t));
  // The sampled rows by sequence: each sequence's keys and values are computed once.
  std::map<std::int64_t, std::vector<std::size_t>> by_sequence;
  for (std::size_t r = 0; r < rows.size(); ++r) by_sequence[rows[r] / l].push_back(r);
  std::vector<std::int64_t> sequences;
  for (const auto& [s, _] : by_sequence) sequences.push_back(s);

  Reference ref;
  ref.oracle = rows.size() == static_cast<std::size_t>(batch_ * seq_) ? "fp64-cpu" : "fp64-cpu-sampled-rows";
  ref.index.resize(rows.size() * h);
  ref.value.resize(rows.size() * h);
  const double scale = 1.0 / std::sqrt(static_cast<double>(d));
  parallel_for(sequences.size(), [&](std::size_t sb, std::size_t se) {
    std::vector<double> x(h), a(l * h), k(l * h), val(l * h), q(h), att(h), r(h), n2(h), hid(f), out(h), p(l), tmp(h);
    for (std::size_t si = sb; si < se; ++si) {
      const std::int64_t s = sequences[si];
      const float* xs = &v[kX][s * l * h];
      for (std::int64_t i = 0; i < l; ++i) {
        for (std::int64_t e = 0; e < h; ++e) x[e] = xs[i * h + e];
        layer_norm(x.data(), v[kLn1W].data(), v[kLn1B].data(), h, &a[i * h]);
        vec_mat(&a[i * h], v[kWk].data(), h, h, &k[i * h]);
        vec_mat(&a[i * h], v[kWv].data(), h, h, &val[i * h]);
      }
      for (const std::size_t rr : by_sequence.at(s)) {
        const std::int64_t i = rows[rr] % l;
        vec_mat(&a[i * h], v[kWq].data(), h, h, q.data());
        const std::int64_t last = causal_ ? i : l - 1;
        for (std::int64_t head = 0; head < nh; ++head) {
          const std::int64_t o = head * d;
          double mx = -std::numeric_limits<double>::infinity();
          for (std::int64_t j = 0; j <= last; ++j) {
            double dot = 0;
            for (std::int64_t e = 0; e < d; ++e) dot += q[o + e] * k[j * h + o + e];
            p[j] = dot * scale;
            mx = std::max(mx, p[j]);
          }
          double sum = 0;
          for (std::int64_t j = 0; j <= last; ++j) sum += (p[j] = std::exp(p[j] - mx));
          for (std::int64_t e = 0; e < d; ++e) att[o + e] = 0;
          for (std::int64_t j = 0; j <= last; ++j)
            for (std::int64_t e = 0; e < d; ++e) att[o + e] += p[j] / sum * val[j * h + o + e];
        }
        vec_mat(att.data(), v[kWo].data(), h, h, tmp.data());
        for (std::int64_t e = 0; e < h; ++e) r[e] = xs[i * h + e] + tmp[e];
        layer_norm(r.data(), v[kLn2W].data(), v[kLn2B].data(), h, n2.data());
        vec_mat(n2.data(), v[kW1].data(), h, f, hid.data(), v[kB1].data());
        for (auto& z : hid) z = gelu_erf(z);
        vec_mat(hid.data(), v[kW2].data(), f, h, out.data(), v[kB2].data());
        for (std::int64_t e = 0; e < h; ++e) {
          ref.index[rr * h + e] = static_cast<std::size_t>(rows[rr] * h + e);
          ref.value[rr * h + e] = r[e] + out[e];
        }
      }
    }
  });
  return ref;
}

std::unique_ptr<Problem> BlockWorkload::make(const Params& params, DType dtype) const {
  reject_unknown_params(params, "block", {"batch", "seq", "hidden", "heads", "causal"});
  const std::int64_t batch = require_param(params, "block", "batch", 1, 2147483647);
  const std::int64_t seq = require_param(params, "block", "seq", 1, 2147483647);
  const std::int64_t hidden = require_param(params, "block", "hidden", 1, 2147483647 / 4);
  const std::int64_t heads = require_param(params, "block", "heads", 1, 2147483647);
  const std::int64_t causal = require_param(params, "block", "causal", 0, 1);
  if (hidden % heads != 0)
    throw InputError("block: hidden " + std::to_string(hidden) + " is not a multiple of heads " + std::to_string(heads));
  std::int64_t rows;
  if (__builtin_mul_overflow(batch, seq, &rows)) throw InputError("block: batch*seq overflows");
  checked_bytes("block", {{rows, 4 * hidden}, {hidden, 4 * hidden}, {batch * heads, seq * seq}}, dtype);
  return std::make_unique<BlockProblem>(batch, seq, hidden, heads, causal != 0, dtype);
}

}  // namespace assay
