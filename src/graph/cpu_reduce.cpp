// Reductions and normalisations on the CPU, in double.
#include <cmath>
#include <limits>

#include "graph/cpu_kernels.hpp"

namespace assay::graph::cpu {

namespace {

std::vector<float> reduce_dims(const Node& n, const HostValue& a) {
  // Output strides over the input's dims: 0 along reduced dims, so each input element lands on
  // its output element whether or not keepdim kept the reduced dims as 1.
  Shape kept;
  for (int d = 0; d < a.shape.rank; ++d) kept.push_back((n.attrs.dims >> d) & 1 ? 1 : a.shape[d]);
  Strides st = contiguous_strides(kept);
  std::int64_t count = 1;
  for (int d = 0; d < a.shape.rank; ++d)
    if ((n.attrs.dims >> d) & 1) {
      st[static_cast<std::size_t>(d)] = 0;
      count *= a.shape[d];
    }
  const bool is_max = n.op == OpKind::max;
  std::vector<double> acc(static_cast<std::size_t>(n.shape.numel()), is_max ? -std::numeric_limits<double>::infinity() : 0.0);
  for_each_strided(a.shape, st, 0, [&](std::int64_t i, std::int64_t o) {
    const double x = a.values[static_cast<std::size_t>(i)];
    double& r = acc[static_cast<std::size_t>(o)];
    r = is_max ? (std::isnan(x) || std::isnan(r) ? std::numeric_limits<double>::quiet_NaN() : std::max(r, x)) : r + x;
  });
  std::vector<float> out(acc.size());
  for (std::size_t i = 0; i < acc.size(); ++i)
    out[i] = static_cast<float>(n.op == OpKind::mean ? acc[i] / static_cast<double>(count) : acc[i]);
  return out;
}

// softmax / log_softmax along one dim: outer x len x inner.
std::vector<float> softmax(const Node& n, const HostValue& a) {
  int d = 0;
  while (!((n.attrs.dims >> d) & 1)) ++d;
  std::int64_t outer = 1, inner = 1;
  for (int i = 0; i < d; ++i) outer *= a.shape[i];
  for (int i = d + 1; i < a.shape.rank; ++i) inner *= a.shape[i];
  const std::int64_t len = a.shape.rank ? a.shape[d] : 1;
  std::vector<float> out(a.values.size());
  const auto idx = [&](std::int64_t o, std::int64_t j, std::int64_t in) { return static_cast<std::size_t>((o * len + j) * inner + in); };
  for (std::int64_t o = 0; o < outer; ++o)
    for (std::int64_t in = 0; in < inner; ++in) {
      double mx = -std::numeric_limits<double>::infinity(), z = 0;
      for (std::int64_t j = 0; j < len; ++j) mx = std::max(mx, static_cast<double>(a.values[idx(o, j, in)]));
      for (std::int64_t j = 0; j < len; ++j) z += std::exp(a.values[idx(o, j, in)] - mx);
      for (std::int64_t j = 0; j < len; ++j) {
        const double x = a.values[idx(o, j, in)] - mx;
        out[idx(o, j, in)] = static_cast<float>(n.op == OpKind::softmax ? std::exp(x) / z : x - std::log(z));
      }
    }
  return out;
}

std::vector<float> layer_norm(const Node& n, const Inputs& in) {
  const HostValue& a = *in[0];
  const HostValue* w = (n.attrs.flags & kHasWeight) ? in[1] : nullptr;
  const HostValue* b = (n.attrs.flags & kHasBias) ? in[w ? 2 : 1] : nullptr;
  std::int64_t len = 1;
  for (int d = 0; d < a.shape.rank; ++d)
    if ((n.attrs.dims >> d) & 1) len *= a.shape[d];
  const std::int64_t rows = len ? a.shape.numel() / len : 0;
  std::vector<float> out(a.values.size());
  for (std::int64_t r = 0; r < rows; ++r) {
    const float* x = a.values.data() + r * len;
    double mean = 0, var = 0;
    for (std::int64_t j = 0; j < len; ++j) mean += x[j];
    mean /= static_cast<double>(len);
    for (std::int64_t j = 0; j < len; ++j) var += (x[j] - mean) * (x[j] - mean);
    var /= static_cast<double>(len);  // biased, as PyTorch's layer_norm
    const double inv = 1.0 / std::sqrt(var + n.attrs.value);
    for (std::int64_t j = 0; j < len; ++j) {
      double y = (x[j] - mean) * inv;
      if (w) y *= w->values[static_cast<std::size_t>(j)];
      if (b) y += b->values[static_cast<std::size_t>(j)];
      out[static_cast<std::size_t>(r * len + j)] = static_cast<float>(y);
    }
  }
  return out;
}

}  // namespace

std::vector<float> reduction(const Node& n, const Inputs& in) {
  if (n.op == OpKind::softmax || n.op == OpKind::log_softmax) return softmax(n, *in[0]);
  if (n.op == OpKind::layer_norm) return layer_norm(n, in);
  return reduce_dims(n, *in[0]);
}

}  // namespace assay::graph::cpu
