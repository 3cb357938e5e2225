// Factories: the graph's leaves. randn records its seed and shape only; the values are a pure
// function of (seed, element index), so that any executor, on any device, makes the same tensor.
#include <cmath>
#include <string>
#include <utility>

#include "core/dtype.hpp"
#include "graph/host_value.hpp"
#include "graph/record_util.hpp"

namespace assay::graph {

namespace {

LazyTensor factory(std::string_view op, Graph& g, OpKind k, const Shape& shape, const Options& o, const Site& site) {
  for (int i = 0; i < shape.rank; ++i)
    if (shape[i] < 0) fail(op, "negative size in shape " + to_string(shape), site);
  Node n;
  n.op = k;
  n.dtype = o.dtype;
  n.device = g.device_index(o.device);
  n.shape = shape;
  n.site = site;
  return detail::emit(g, n);
}

}  // namespace

LazyTensor randn(Graph& g, const Shape& shape, std::uint64_t seed, Options o, Site site) {
  if (!is_floating(o.dtype)) fail("randn", "needs a floating dtype, got " + std::string(elem_name(o.dtype)), site);
  LazyTensor t = factory("randn", g, OpKind::randn, shape, o, site);
  g.node(t.id).attrs.seed = seed;
  return t;
}

LazyTensor zeros(Graph& g, const Shape& shape, Options o, Site site) {
  return factory("zeros", g, OpKind::zeros, shape, o, site);
}

LazyTensor ones(Graph& g, const Shape& shape, Options o, Site site) {
  return factory("ones", g, OpKind::ones, shape, o, site);
}

LazyTensor full(Graph& g, const Shape& shape, double value, Options o, Site site) {
  LazyTensor t = factory("full", g, OpKind::full, shape, o, site);
  g.node(t.id).attrs.value = value;
  return t;
}

LazyTensor from_host(Graph& g, const Shape& shape, std::vector<float> values, Options o, Site site) {
  if (static_cast<std::int64_t>(values.size()) != shape.numel())
    fail("from_host", std::to_string(values.size()) + " values for shape " + to_string(shape), site);
  for (float& v : values) v = round_to(o.dtype, v);
  LazyTensor t = factory("from_host", g, OpKind::constant, shape, o, site);
  g.node(t.id).data = std::make_shared<const std::vector<float>>(std::move(values));
  return t;
}

}  // namespace assay::graph
