// Views: reshape/view, transpose/permute, slice and expand. They own no data: the memory plan
// aliases them to their input's buffer, and the executors read through them.
#include <string>

#include "graph/record_util.hpp"

namespace assay::graph {

LazyTensor reshape(LazyTensor a, const Shape& shape, Site site) {
  Node n = detail::node_from("reshape", OpKind::reshape, site, {a});
  const std::int64_t total = a.shape().numel();
  int infer = -1;
  std::int64_t known = 1;
  for (int i = 0; i < shape.rank; ++i) {
    if (shape[i] == -1) {
      if (infer >= 0) fail("reshape", "more than one -1 in " + to_string(shape), site);
      infer = i;
    } else if (shape[i] < 0) {
      fail("reshape", "negative size in " + to_string(shape), site);
    } else {
      known *= shape[i];
    }
  }
  n.shape = shape;
  if (infer >= 0) {
    if (known == 0 || total % known != 0)
      fail("reshape", "cannot infer -1 in " + to_string(shape) + " for " + to_string(a.shape()), site);
    n.shape[infer] = total / known;
  }
  if (n.shape.numel() != total)
    fail("reshape", to_string(a.shape()) + " (" + std::to_string(total) + " elements) cannot become " +
                        to_string(shape), site);
  return detail::emit(*a.graph, n);
}

LazyTensor view(LazyTensor a, const Shape& shape, Site site) { return reshape(a, shape, site); }

LazyTensor permute(LazyTensor a, const Dims& perm, Site site) {
  Node n = detail::node_from("permute", OpKind::permute, site, {a});
  const Shape& in = a.shape();
  if (perm.n != in.rank)
    fail("permute", "permutation of " + std::to_string(perm.n) + " dims for " + to_string(in), site);
  std::uint32_t seen = 0;
  n.shape.rank = in.rank;
  for (int i = 0; i < perm.n; ++i) {
    const int d = detail::normalize_dim("permute", perm[i], in.rank, site);
    if (seen & (1u << d)) fail("permute", "dim " + std::to_string(d) + " repeated for " + to_string(in), site);
    seen |= 1u << d;
    n.attrs.ints[static_cast<std::size_t>(i)] = d;
    n.shape[i] = in[d];
  }
  return detail::emit(*a.graph, n);
}

LazyTensor transpose(LazyTensor a, int d0, int d1, Site site) {
  if (!a.graph) fail("transpose", "input is not a recorded tensor", site);
  const int r = a.dim();
  Dims perm;
  perm.n = r;
  for (int i = 0; i < r; ++i) perm.v[static_cast<std::size_t>(i)] = i;
  const int x = detail::normalize_dim("transpose", d0, r, site), y = detail::normalize_dim("transpose", d1, r, site);
  std::swap(perm.v[static_cast<std::size_t>(x)], perm.v[static_cast<std::size_t>(y)]);
  return permute(a, perm, site);
}

LazyTensor slice(LazyTensor a, int dim, std::int64_t start, std::int64_t end, std::int64_t step, Site site) {
  Node n = detail::node_from("slice", OpKind::slice, site, {a});
  const Shape& in = a.shape();
  if (in.rank == 0) fail("slice", "cannot slice a scalar", site);
  const int d = detail::normalize_dim("slice", dim, in.rank, site);
  if (step < 1) fail("slice", "step " + std::to_string(step) + " must be >= 1", site);
  const std::int64_t size = in[d];
  const auto clamp = [size](std::int64_t i) {
    if (i < 0) i += size;
    return i < 0 ? 0 : i > size ? size : i;
  };
  start = clamp(start);
  end = clamp(end);
  n.shape = in;
  n.shape[d] = end > start ? (end - start - 1) / step + 1 : 0;  // not (end - start + step - 1): it overflows
  n.attrs.ints[0] = d;
  n.attrs.ints[1] = start;
  n.attrs.ints[2] = end;
  n.attrs.ints[3] = step;
  return detail::emit(*a.graph, n);
}

LazyTensor expand(LazyTensor a, const Shape& shape, Site site) {
  Node n = detail::node_from("expand", OpKind::expand, site, {a});
  const Shape& in = a.shape();
  if (shape.rank < in.rank) fail("expand", "target " + to_string(shape) + " has fewer dims than " + to_string(in), site);
  n.shape = shape;
  for (int i = 0; i < shape.rank; ++i) {
    const int j = i - (shape.rank - in.rank);
    if (j < 0) {
      if (shape[i] < 0) fail("expand", "-1 in a new leading dim of " + to_string(shape), site);
      continue;
    }
    if (shape[i] == -1) n.shape[i] = in[j];
    else if (in[j] != shape[i] && in[j] != 1)
      fail("expand", to_string(in) + " cannot expand to " + to_string(shape) + " (dim " + std::to_string(i) +
                         " is " + std::to_string(in[j]) + ", not 1)", site);
  }
  return detail::emit(*a.graph, n);
}

}  // namespace assay::graph
