// Reductions over a set of dims (sum, mean, max) and the normalisations along trailing dims
// (softmax, log_softmax over one dim, layer_norm over the normalized shape).
#include <string>

#include "graph/record_util.hpp"

namespace assay::graph {

namespace {

LazyTensor reduce(std::string_view op, OpKind k, LazyTensor a, const Dims& dims, bool keepdim, const Site& site) {
  Node n = detail::node_from(op, k, site, {a});
  detail::require_floating(op, a, site);
  const Shape& in = a.shape();
  std::uint32_t mask = 0;
  if (dims.n == 0) mask = (1u << in.rank) - 1;
  for (int i = 0; i < dims.n; ++i) {
    const int d = detail::normalize_dim(op, dims[i], in.rank, site);
    if (mask & (1u << d)) fail(op, "dim " + std::to_string(dims[i]) + " given twice for " + to_string(in), site);
    mask |= 1u << d;
  }
  for (int d = 0; d < in.rank; ++d) {
    const bool reduced = mask & (1u << d);
    if (reduced && in[d] == 0 && k == OpKind::max) fail(op, "max over an empty dim of " + to_string(in), site);
    if (!reduced) n.shape.push_back(in[d]);
    else if (keepdim) n.shape.push_back(1);
  }
  n.attrs.dims = mask;
  n.attrs.flags = keepdim ? kKeepDim : 0;
  return detail::emit(*a.graph, n);
}

LazyTensor along(std::string_view op, OpKind k, LazyTensor a, int dim, const Site& site) {
  Node n = detail::node_from(op, k, site, {a});
  detail::require_floating(op, a, site);
  n.shape = a.shape();
  n.attrs.dims = 1u << detail::normalize_dim(op, dim, a.dim(), site);
  return detail::emit(*a.graph, n);
}

}  // namespace

LazyTensor sum(LazyTensor a, Dims dims, bool keepdim, Site site) { return reduce("sum", OpKind::sum, a, dims, keepdim, site); }
LazyTensor mean(LazyTensor a, Dims dims, bool keepdim, Site site) {
  return reduce("mean", OpKind::mean, a, dims, keepdim, site);
}
LazyTensor max(LazyTensor a, Dims dims, bool keepdim, Site site) { return reduce("max", OpKind::max, a, dims, keepdim, site); }
LazyTensor softmax(LazyTensor a, int dim, Site site) { return along("softmax", OpKind::softmax, a, dim, site); }
LazyTensor log_softmax(LazyTensor a, int dim, Site site) {
  return along("log_softmax", OpKind::log_softmax, a, dim, site);
}

LazyTensor layer_norm(LazyTensor a, const Shape& normalized_shape, std::optional<LazyTensor> weight,
                      std::optional<LazyTensor> bias, double eps, Site site) {
  constexpr std::string_view op = "layer_norm";
  Node n = weight && bias ? detail::node_from(op, OpKind::layer_norm, site, {a, *weight, *bias})
           : weight       ? detail::node_from(op, OpKind::layer_norm, site, {a, *weight})
           : bias         ? detail::node_from(op, OpKind::layer_norm, site, {a, *bias})
                          : detail::node_from(op, OpKind::layer_norm, site, {a});
  detail::require_floating(op, a, site);
  const Shape& s = a.shape();
  const int k = normalized_shape.rank;
  bool ok = k >= 1 && k <= s.rank;
  for (int i = 0; ok && i < k; ++i) ok = s[s.rank - k + i] == normalized_shape[i];
  if (!ok) fail(op, "normalized_shape " + to_string(normalized_shape) + " is not the trailing dims of " + to_string(s), site);
  const std::optional<LazyTensor>* params[2] = {&weight, &bias};
  for (int i = 0; i < 2; ++i) {
    if (!*params[i]) continue;
    const LazyTensor p = **params[i];
    detail::require_same_dtype(op, a, p, site);
    if (!(p.shape() == normalized_shape))
      fail(op, std::string(i == 0 ? "weight " : "bias ") + to_string(p.shape()) + " is not normalized_shape " +
                   to_string(normalized_shape), site);
  }
  n.shape = s;
  n.attrs.dims = ((1u << k) - 1) << (s.rank - k);
  n.attrs.value = eps;
  n.attrs.flags = static_cast<std::uint8_t>((weight ? kHasWeight : 0) | (bias ? kHasBias : 0));
  return detail::emit(*a.graph, n);
}

}  // namespace assay::graph
