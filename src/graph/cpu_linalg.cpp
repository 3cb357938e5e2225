// matmul (batch dims broadcast), linear and attention on the CPU: double dot products, the
// i-k-j loop order so that the inner loop runs along rows.
#include <cmath>
#include <limits>

#include "graph/cpu_kernels.hpp"

namespace assay::graph::cpu {

namespace {

// Offsets of each batch of an operand of shape s (trailing 2 dims the matrix) broadcast to the
// batch shape `batch`.
std::vector<std::int64_t> batch_offsets(const Shape& s, const Shape& batch) {
  Shape sb = s;
  sb.rank -= 2;
  Strides st = broadcast_strides(sb, batch);
  const std::int64_t mat = s[s.rank - 2] * s[s.rank - 1];
  for (auto& x : st) x *= mat;
  std::vector<std::int64_t> offs(static_cast<std::size_t>(batch.numel()));
  for_each_strided(batch, st, 0, [&](std::int64_t i, std::int64_t o) { offs[static_cast<std::size_t>(i)] = o; });
  return offs;
}

// c[m,n] = a[m,k] @ b[k,n], rows of a and b at the given offsets.
void gemm(const float* a, const float* b, float* c, std::int64_t m, std::int64_t k, std::int64_t n) {
  std::vector<double> row(static_cast<std::size_t>(n));
  for (std::int64_t i = 0; i < m; ++i) {
    std::fill(row.begin(), row.end(), 0.0);
    for (std::int64_t p = 0; p < k; ++p) {
      const double x = a[i * k + p];
      const float* br = b + p * n;
      for (std::int64_t j = 0; j < n; ++j) row[static_cast<std::size_t>(j)] += x * br[j];
    }
    for (std::int64_t j = 0; j < n; ++j) c[i * n + j] = static_cast<float>(row[static_cast<std::size_t>(j)]);
  }
}

std::vector<float> matmul(const Node& n, const HostValue& a, const HostValue& b) {
  const Shape& o = n.shape;
  const std::int64_t m = o[o.rank - 2], nn = o[o.rank - 1], k = a.shape[a.shape.rank - 1];
  Shape batch = o;
  batch.rank -= 2;
  const auto ao = batch_offsets(a.shape, batch), bo = batch_offsets(b.shape, batch);
  std::vector<float> out(static_cast<std::size_t>(o.numel()));
  for (std::size_t bi = 0; bi < ao.size(); ++bi)
    gemm(a.values.data() + ao[bi], b.values.data() + bo[bi], out.data() + static_cast<std::int64_t>(bi) * m * nn, m, k, nn);
  return out;
}

std::vector<float> linear(const Node& n, const Inputs& in) {
  const HostValue &x = *in[0], &w = *in[1];
  const std::int64_t out_f = w.shape[0], in_f = w.shape[1], rows = x.shape.outer(1);
  std::vector<float> out(static_cast<std::size_t>(n.shape.numel()));
  for (std::int64_t r = 0; r < rows; ++r)
    for (std::int64_t o = 0; o < out_f; ++o) {
      double acc = (n.attrs.flags & kHasBias) ? in[2]->values[static_cast<std::size_t>(o)] : 0.0;
      for (std::int64_t p = 0; p < in_f; ++p)
        acc += static_cast<double>(x.values[static_cast<std::size_t>(r * in_f + p)]) * w.values[static_cast<std::size_t>(o * in_f + p)];
      if (n.attrs.flags & kRelu) acc = std::isnan(acc) || acc > 0 ? acc : 0.0;
      if (n.attrs.flags & kGelu)
        acc = (n.attrs.flags & kTanh) ? 0.5 * acc * (1.0 + std::tanh(0.7978845608028654 * (acc + 0.044715 * acc * acc * acc)))
                                      : 0.5 * acc * (1.0 + std::erf(acc * 0.7071067811865476));
      out[static_cast<std::size_t>(r * out_f + o)] = static_cast<float>(acc);
    }
  return out;
}

std::vector<float> attention(const Node& n, const HostValue& q, const HostValue& k, const HostValue& v) {
  const int r = q.shape.rank;
  const std::int64_t L = q.shape[r - 2], E = q.shape[r - 1], S = k.shape[r - 2], Ev = v.shape[r - 1];
  const std::int64_t batches = q.shape.outer(2);
  const bool causal = n.attrs.flags & kCausal;
  std::vector<float> out(static_cast<std::size_t>(n.shape.numel()));
  std::vector<double> p(static_cast<std::size_t>(S));
  const auto at = [](const HostValue& t, std::int64_t i) { return static_cast<double>(t.values[static_cast<std::size_t>(i)]); };
  for (std::int64_t b = 0; b < batches; ++b) {
    const std::int64_t qo = b * L * E, ko = b * S * E, vo = b * S * Ev, oo = b * L * Ev;
    for (std::int64_t i = 0; i < L; ++i) {
      double mx = -std::numeric_limits<double>::infinity();
      for (std::int64_t j = 0; j < S; ++j) {
        double s = -std::numeric_limits<double>::infinity();
        if (!causal || j <= i) {
          s = 0;
          for (std::int64_t e = 0; e < E; ++e) s += at(q, qo + i * E + e) * at(k, ko + j * E + e);
          s *= n.attrs.value;
        }
        p[static_cast<std::size_t>(j)] = s;
        mx = std::max(mx, s);
      }
      double z = 0;
      for (auto& x : p) z += (x = std::exp(x - mx));
      for (std::int64_t e = 0; e < Ev; ++e) {
        double acc = 0;
        for (std::int64_t j = 0; j < S; ++j) acc += p[static_cast<std::size_t>(j)] * at(v, vo + j * Ev + e);
        // No keys (S = 0): softmax over nothing, an empty sum of V rows, as torch's math path gives.
        out[static_cast<std::size_t>(oo + i * Ev + e)] = S == 0 ? 0.0f : static_cast<float>(acc / z);
      }
    }
  }
  return out;
}

}  // namespace

std::vector<float> linalg(const Node& n, const Inputs& in) {
  if (n.op == OpKind::matmul) return matmul(n, *in[0], *in[1]);
  if (n.op == OpKind::linear) return linear(n, in);
  return attention(n, *in[0], *in[1], *in[2]);
}

}  // namespace assay::graph::cpu
