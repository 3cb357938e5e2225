// Elementwise ops: the output shape is the broadcast of the inputs' shapes; float math needs a
// floating dtype, and binary inputs must share one (no implicit promotion: a silent upcast
// would change what the GPU executor runs).
#include <string>

#include "graph/record_util.hpp"

namespace assay::graph {

namespace {

LazyTensor binary(std::string_view op, OpKind k, LazyTensor a, LazyTensor b, const Site& site) {
  Node n = detail::node_from(op, k, site, {a, b});
  detail::require_floating(op, a, site);
  detail::require_same_dtype(op, a, b, site);
  n.shape = detail::broadcast_shapes(op, a.shape(), b.shape(), site);
  return detail::emit(*a.graph, n);
}

LazyTensor unary(std::string_view op, OpKind k, LazyTensor a, const Site& site) {
  Node n = detail::node_from(op, k, site, {a});
  detail::require_floating(op, a, site);
  n.shape = a.shape();
  return detail::emit(*a.graph, n);
}

}  // namespace

LazyTensor add(LazyTensor a, LazyTensor b, Site site) { return binary("add", OpKind::add, a, b, site); }
LazyTensor sub(LazyTensor a, LazyTensor b, Site site) { return binary("sub", OpKind::sub, a, b, site); }
LazyTensor mul(LazyTensor a, LazyTensor b, Site site) { return binary("mul", OpKind::mul, a, b, site); }
LazyTensor div(LazyTensor a, LazyTensor b, Site site) { return binary("div", OpKind::div, a, b, site); }
LazyTensor neg(LazyTensor a, Site site) { return unary("neg", OpKind::neg, a, site); }
LazyTensor exp(LazyTensor a, Site site) { return unary("exp", OpKind::exp, a, site); }
LazyTensor log(LazyTensor a, Site site) { return unary("log", OpKind::log, a, site); }
LazyTensor sqrt(LazyTensor a, Site site) { return unary("sqrt", OpKind::sqrt, a, site); }
LazyTensor relu(LazyTensor a, Site site) { return unary("relu", OpKind::relu, a, site); }
LazyTensor sigmoid(LazyTensor a, Site site) { return unary("sigmoid", OpKind::sigmoid, a, site); }
LazyTensor tanh(LazyTensor a, Site site) { return unary("tanh", OpKind::tanh, a, site); }

LazyTensor gelu(LazyTensor a, bool approximate_tanh, Site site) {
  LazyTensor t = unary("gelu", OpKind::gelu, a, site);
  if (approximate_tanh) t.graph->node(t.id).attrs.flags = kTanh;
  return t;
}

LazyTensor where(LazyTensor cond, LazyTensor a, LazyTensor b, Site site) {
  Node n = detail::node_from("where", OpKind::where, site, {cond, a, b});
  if (cond.dtype() != ElemType::boolean)
    fail("where", "condition must be bool, got " + std::string(elem_name(cond.dtype())) + to_string(cond.shape()), site);
  detail::require_same_dtype("where", a, b, site);
  n.dtype = a.dtype();
  n.shape = detail::broadcast_shapes("where", detail::broadcast_shapes("where", cond.shape(), a.shape(), site),
                                     b.shape(), site);
  return detail::emit(*a.graph, n);
}

LazyTensor cast(LazyTensor a, ElemType to, Site site) {
  Node n = detail::node_from("cast", OpKind::cast, site, {a});
  n.dtype = to;
  n.attrs.to = to;
  n.shape = a.shape();
  return detail::emit(*a.graph, n);
}

}  // namespace assay::graph
