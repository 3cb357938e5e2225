// Views as strided layouts (layout.hpp).
#include "graph/layout.hpp"

#include <cstdlib>

#include "core/error.hpp"

namespace assay::graph {

bool Layout::contiguous() const {
  std::int64_t expect = 1;
  for (int d = shape.rank - 1; d >= 0; --d) {
    if (shape[d] == 1) continue;
    if (strides[static_cast<std::size_t>(d)] != expect) return false;
    expect *= shape[d];
  }
  return true;
}

std::int64_t Layout::span() const {
  std::int64_t last = 0;
  for (int d = 0; d < shape.rank; ++d) {
    if (shape[d] == 0) return 0;
    last += (shape[d] - 1) * std::abs(strides[static_cast<std::size_t>(d)]);
  }
  return last + 1;
}

std::string Layout::str() const {
  std::string s = to_string(shape) + ":[";
  for (int d = 0; d < shape.rank; ++d) (s += d ? "," : "") += std::to_string(strides[static_cast<std::size_t>(d)]);
  return s + "]+" + std::to_string(offset);
}

Layout contiguous_layout(NodeId base, const Shape& shape) {
  Layout l;
  l.base = base;
  l.shape = shape;
  std::int64_t st = 1;
  for (int d = shape.rank - 1; d >= 0; --d) {
    l.strides[static_cast<std::size_t>(d)] = st;
    st *= shape[d];
  }
  return l;
}

Layouts plan_layouts(const Graph& g) {
  Layouts r;
  r.of.resize(g.size());
  r.copied.assign(g.size(), 0);
  for (NodeId i = 0; i < g.size(); ++i) {
    const Node& n = g.node(i);
    if (op_class(n.op) != OpClass::view || n.op == OpKind::expand) {
      r.of[i] = contiguous_layout(i, n.shape);
      continue;
    }
    const Layout& in = r.of[n.inputs[0]];
    Layout l = in;
    l.shape = n.shape;
    switch (n.op) {
      case OpKind::reshape:
        if (!in.contiguous()) {
          r.of[i] = contiguous_layout(i, n.shape);
          r.copied[i] = 1;
          continue;
        }
        l = contiguous_layout(in.base, n.shape);
        l.offset = in.offset;
        break;
      case OpKind::permute:
        for (int d = 0; d < n.shape.rank; ++d)
          l.strides[static_cast<std::size_t>(d)] = in.strides[static_cast<std::size_t>(n.attrs.ints[static_cast<std::size_t>(d)])];
        break;
      case OpKind::slice: {
        const auto d = static_cast<std::size_t>(n.attrs.ints[0]);
        l.offset += n.attrs.ints[1] * in.strides[d];
        l.strides[d] *= n.attrs.ints[3];
        break;
      }
      default: throw InternalError("plan_layouts: unknown view");
    }
    r.of[i] = l;
  }
  return r;
}

std::array<std::int64_t, kMaxRank> broadcast_read_strides(const Layout& in, const Shape& out) {
  std::array<std::int64_t, kMaxRank> st{};
  const int lead = out.rank - in.shape.rank;
  for (int d = 0; d < out.rank; ++d) {
    const int e = d - lead;
    if (e >= 0 && in.shape[e] != 1) st[static_cast<std::size_t>(d)] = in.strides[static_cast<std::size_t>(e)];
  }
  return st;
}

}  // namespace assay::graph
