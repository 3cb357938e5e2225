// Elementwise ops on the CPU: each input read through broadcast strides, the op in double.
#include <cmath>

#include "graph/cpu_kernels.hpp"

namespace assay::graph::cpu {

namespace {

double apply_unary(const Node& n, double x) {
  switch (n.op) {
    case OpKind::neg: return -x;
    case OpKind::exp: return std::exp(x);
    case OpKind::log: return std::log(x);
    case OpKind::sqrt: return std::sqrt(x);
    case OpKind::relu: return std::isnan(x) || x > 0 ? x : 0.0;  // NaN stays NaN, as in PyTorch
    case OpKind::sigmoid: return 1.0 / (1.0 + std::exp(-x));
    case OpKind::tanh: return std::tanh(x);
    case OpKind::gelu:
      if (n.attrs.flags & kTanh)
        return 0.5 * x * (1.0 + std::tanh(0.7978845608028654 * (x + 0.044715 * x * x * x)));
      return 0.5 * x * (1.0 + std::erf(x * 0.7071067811865476));
    default: return x;  // cast: the driver rounds to the target type
  }
}

double apply_binary(OpKind k, double a, double b) {
  switch (k) {
    case OpKind::add: return a + b;
    case OpKind::sub: return a - b;
    case OpKind::mul: return a * b;
    default: return a / b;
  }
}

}  // namespace

std::vector<float> elementwise(const Node& n, const Inputs& in) {
  std::vector<float> out(static_cast<std::size_t>(n.shape.numel()));
  std::array<Strides, 3> st{};
  for (std::size_t j = 0; j < in.size(); ++j) st[j] = broadcast_strides(in[j]->shape, n.shape);
  const auto at = [&](std::size_t j, std::int64_t off) {
    return static_cast<double>(in[j]->values[static_cast<std::size_t>(off)]);
  };
  if (in.size() == 1) {
    for_each_strided(n.shape, st[0], 0, [&](std::int64_t i, std::int64_t o) {
      out[static_cast<std::size_t>(i)] = static_cast<float>(apply_unary(n, at(0, o)));
    });
    return out;
  }
  // Binary and where: gather each input to the output shape, then combine.
  std::array<std::vector<double>, 3> g;
  for (std::size_t j = 0; j < in.size(); ++j) {
    g[j].resize(out.size());
    for_each_strided(n.shape, st[j], 0, [&](std::int64_t i, std::int64_t o) { g[j][static_cast<std::size_t>(i)] = at(j, o); });
  }
  for (std::size_t i = 0; i < out.size(); ++i)
    out[i] = static_cast<float>(n.op == OpKind::where ? (g[0][i] != 0 ? g[1][i] : g[2][i]) : apply_binary(n.op, g[0][i], g[1][i]));
  return out;
}

}  // namespace assay::graph::cpu
