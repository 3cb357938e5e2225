// matmul (batch dims broadcast), mm, bmm, linear and scaled-dot-product attention.
#include <cmath>
#include <string>

#include "graph/record_util.hpp"

namespace assay::graph {

namespace {

std::string pair(const Shape& a, const Shape& b) { return to_string(a) + " and " + to_string(b); }

// [..., m, k] @ [..., k, n] -> [broadcast(...), m, n]
Shape matmul_shape(std::string_view op, const Shape& a, const Shape& b, const Site& site) {
  if (a.rank < 2 || b.rank < 2) fail(op, "needs operands of rank >= 2, got " + pair(a, b), site);
  if (a[a.rank - 1] != b[b.rank - 2])
    fail(op, "inner dims differ: " + pair(a, b) + " (" + std::to_string(a[a.rank - 1]) + " vs " +
                 std::to_string(b[b.rank - 2]) + ")", site);
  Shape ba = a, bb = b;
  ba.rank -= 2;
  bb.rank -= 2;
  Shape out = detail::broadcast_shapes(op, ba, bb, site);
  out.push_back(a[a.rank - 2]);
  out.push_back(b[b.rank - 1]);
  return out;
}

LazyTensor record_matmul(std::string_view op, LazyTensor a, LazyTensor b, const Site& site) {
  Node n = detail::node_from(op, OpKind::matmul, site, {a, b});
  detail::require_floating(op, a, site);
  detail::require_same_dtype(op, a, b, site);
  n.shape = matmul_shape(op, a.shape(), b.shape(), site);
  return detail::emit(*a.graph, n);
}

}  // namespace

LazyTensor matmul(LazyTensor a, LazyTensor b, Site site) { return record_matmul("matmul", a, b, site); }

LazyTensor mm(LazyTensor a, LazyTensor b, Site site) {
  if (a.graph && b.graph && (a.dim() != 2 || b.dim() != 2))
    fail("mm", "needs two matrices, got " + pair(a.shape(), b.shape()), site);
  return record_matmul("mm", a, b, site);
}

LazyTensor bmm(LazyTensor a, LazyTensor b, Site site) {
  if (a.graph && b.graph && (a.dim() != 3 || b.dim() != 3 || a.shape()[0] != b.shape()[0]))
    fail("bmm", "needs [b,m,k] and [b,k,n] with the same b, got " + pair(a.shape(), b.shape()), site);
  return record_matmul("bmm", a, b, site);
}

LazyTensor linear(LazyTensor x, LazyTensor weight, std::optional<LazyTensor> bias, Site site) {
  Node n = bias ? detail::node_from("linear", OpKind::linear, site, {x, weight, *bias})
                : detail::node_from("linear", OpKind::linear, site, {x, weight});
  detail::require_floating("linear", x, site);
  detail::require_same_dtype("linear", x, weight, site);
  const Shape& xs = x.shape();
  const Shape& ws = weight.shape();
  if (xs.rank < 1 || ws.rank != 2 || xs[xs.rank - 1] != ws[1])
    fail("linear", "input " + to_string(xs) + " and weight " + to_string(ws) + " do not match ([..., in] and [out, in])",
         site);
  if (bias) {
    detail::require_same_dtype("linear", x, *bias, site);
    if (bias->dim() != 1 || bias->shape()[0] != ws[0])
      fail("linear", "bias " + to_string(bias->shape()) + " does not match weight " + to_string(ws) + " ([out])", site);
    n.attrs.flags = kHasBias;
  }
  n.shape = xs;
  n.shape[xs.rank - 1] = ws[0];
  return detail::emit(*x.graph, n);
}

LazyTensor scaled_dot_product_attention(LazyTensor q, LazyTensor k, LazyTensor v, bool causal,
                                        std::optional<double> scale, Site site) {
  constexpr std::string_view op = "scaled_dot_product_attention";
  Node n = detail::node_from(op, OpKind::attention, site, {q, k, v});
  detail::require_floating(op, q, site);
  detail::require_same_dtype(op, q, k, site);
  detail::require_same_dtype(op, q, v, site);
  const Shape &qs = q.shape(), &ks = k.shape(), &vs = v.shape();
  const auto bad = [&](const std::string& why) {
    fail(op, why + ": q " + to_string(qs) + ", k " + to_string(ks) + ", v " + to_string(vs), site);
  };
  if (qs.rank < 2 || ks.rank != qs.rank || vs.rank != qs.rank) bad("q, k, v need the same rank >= 2");
  for (int i = 0; i < qs.rank - 2; ++i)
    if (qs[i] != ks[i] || qs[i] != vs[i]) bad("batch dims differ");
  const int r = qs.rank;
  if (qs[r - 1] != ks[r - 1]) bad("q and k head dims differ");
  if (ks[r - 2] != vs[r - 2]) bad("k and v sequence lengths differ");
  n.shape = qs;
  n.shape[r - 1] = vs[r - 1];
  n.attrs.flags = causal ? kCausal : 0;
  n.attrs.value = scale ? *scale : 1.0 / std::sqrt(static_cast<double>(qs[r - 1]));
  return detail::emit(*q.graph, n);
}

}  // namespace assay::graph
