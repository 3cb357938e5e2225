// Factories and views on the CPU: both only place values, no arithmetic.
#include "graph/cpu_kernels.hpp"
#include "graph/random.hpp"

namespace assay::graph::cpu {

Strides contiguous_strides(const Shape& s) {
  Strides st{};
  std::int64_t acc = 1;
  for (int d = s.rank - 1; d >= 0; --d) {
    st[static_cast<std::size_t>(d)] = acc;
    acc *= s[d];
  }
  return st;
}

Strides broadcast_strides(const Shape& in, const Shape& out) {
  const Strides c = contiguous_strides(in);
  Strides st{};
  for (int d = 0; d < out.rank; ++d) {
    const int j = d - (out.rank - in.rank);
    st[static_cast<std::size_t>(d)] = (j < 0 || in[j] == 1) ? 0 : c[static_cast<std::size_t>(j)];
  }
  return st;
}

std::vector<float> factory(const Node& n) {
  const auto count = static_cast<std::size_t>(n.shape.numel());
  switch (n.op) {
    case OpKind::randn: {
      std::vector<float> v(count);
      for (std::size_t i = 0; i < count; ++i) v[i] = static_cast<float>(randn_value(n.attrs.seed, i));
      return v;
    }
    case OpKind::zeros: return std::vector<float>(count, 0.0f);
    case OpKind::ones: return std::vector<float>(count, 1.0f);
    case OpKind::full: return std::vector<float>(count, static_cast<float>(n.attrs.value));
    default: return *n.data;  // constant
  }
}

std::vector<float> view(const Node& n, const Inputs& in) {
  const HostValue& a = *in[0];
  if (n.op == OpKind::reshape) return a.values;  // same row-major order
  Strides st{};
  std::int64_t base = 0;
  const Strides c = contiguous_strides(a.shape);
  if (n.op == OpKind::permute) {
    for (int i = 0; i < n.shape.rank; ++i) st[static_cast<std::size_t>(i)] = c[static_cast<std::size_t>(n.attrs.ints[static_cast<std::size_t>(i)])];
  } else if (n.op == OpKind::slice) {
    st = c;
    const auto d = static_cast<std::size_t>(n.attrs.ints[0]);
    base = n.attrs.ints[1] * c[d];
    st[d] *= n.attrs.ints[3];
  } else {  // expand
    st = broadcast_strides(a.shape, n.shape);
  }
  std::vector<float> out(static_cast<std::size_t>(n.shape.numel()));
  for_each_strided(n.shape, st, base, [&](std::int64_t i, std::int64_t off) {
    out[static_cast<std::size_t>(i)] = a.values[static_cast<std::size_t>(off)];
  });
  return out;
}

}  // namespace assay::graph::cpu
