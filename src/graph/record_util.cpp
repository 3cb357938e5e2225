#include "graph/record_util.hpp"

#include <string>

namespace assay::graph::detail {

Node node_from(std::string_view op, OpKind k, const Site& site, std::initializer_list<LazyTensor> inputs) {
  Node n;
  n.op = k;
  n.site = site;
  const LazyTensor first = *inputs.begin();
  if (!first.graph) fail(op, "input 0 is not a recorded tensor", site);
  n.device = first.node().device;
  for (const LazyTensor& t : inputs) {
    if (t.graph != first.graph) fail(op, "inputs belong to different graphs", site);
    if (t.id >= t.graph->size()) fail(op, "input id " + std::to_string(t.id) + " is not in the graph", site);
    if (t.node().device != n.device)
      fail(op, "inputs on different devices (" + first.graph->device_name(n.device) + " and " +
                   t.graph->device_name(t.node().device) + ")", site);
    n.inputs[n.n_inputs++] = t.id;
  }
  n.dtype = first.dtype();
  return n;
}

LazyTensor emit(Graph& g, const Node& n) {
  // No negative size (expand's -5 on a size-1 dim), and every element count, and every byte
  // count from it, fits an int64 (a wrapped count read as 0).
  std::int64_t count = 1;
  for (int i = 0; i < n.shape.rank; ++i) {
    if (n.shape[i] < 0) fail(op_name(n.op), "negative size in shape " + to_string(n.shape), n.site);
    if (__builtin_mul_overflow(count, n.shape[i], &count) || count > (std::int64_t{1} << 60))
      fail(op_name(n.op), "shape " + to_string(n.shape) + " has more than 2^60 elements", n.site);
  }
  return {&g, g.add(n)};
}

void require_floating(std::string_view op, LazyTensor a, const Site& site) {
  if (!is_floating(a.dtype()))
    fail(op, "needs a floating dtype (f32, f16, bf16), got " + std::string(elem_name(a.dtype())) + " " +
                 to_string(a.shape()), site);
}

void require_same_dtype(std::string_view op, LazyTensor a, LazyTensor b, const Site& site) {
  if (a.dtype() != b.dtype())
    fail(op, "dtypes differ: " + std::string(elem_name(a.dtype())) + to_string(a.shape()) + " and " +
                 std::string(elem_name(b.dtype())) + to_string(b.shape()) + " (cast one explicitly)", site);
}

Shape broadcast_shapes(std::string_view op, const Shape& a, const Shape& b, const Site& site) {
  Shape out;
  out.rank = a.rank > b.rank ? a.rank : b.rank;
  for (int i = 0; i < out.rank; ++i) {  // align from the trailing dim
    const int ia = a.rank - out.rank + i, ib = b.rank - out.rank + i;
    const std::int64_t da = ia >= 0 ? a[ia] : 1, db = ib >= 0 ? b[ib] : 1;
    if (da != db && da != 1 && db != 1)
      fail(op, "shapes " + to_string(a) + " and " + to_string(b) + " do not broadcast (dim " + std::to_string(i) +
                   ": " + std::to_string(da) + " vs " + std::to_string(db) + ")", site);
    out[i] = da == 1 ? db : da;
  }
  return out;
}

int normalize_dim(std::string_view op, int dim, int rank, const Site& site) {
  const int r = rank == 0 ? 1 : rank;  // PyTorch accepts dim 0 / -1 on a scalar
  if (dim < -r || dim >= r)
    fail(op, "dim " + std::to_string(dim) + " out of range for a tensor of rank " + std::to_string(rank), site);
  return dim < 0 ? dim + r : dim;
}

}  // namespace assay::graph::detail
