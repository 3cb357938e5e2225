#pragma once
// Strided layouts of graph values, for executors that keep views as views (the GPU executor):
// a value's elements are at base_buffer + offset + sum(index[d] * strides[d]). An owning value
// is contiguous at its own buffer; reshape, permute and slice only change the layout. A reshape
// of a layout that is not contiguous cannot be expressed by strides: such a view is marked
// `needs_copy` and the executor materialises it (and everything read through it) into a buffer
// of its own. Expand is not a view here: it is fusible and materialised by its fusion group.
#include <array>
#include <cstdint>
#include <string>
#include <vector>

#include "graph/graph.hpp"

namespace assay::graph {

struct Layout {
  NodeId base = kNoNode;  // whose buffer holds the elements (itself, unless a view)
  std::int64_t offset = 0;  // in elements
  Shape shape;
  std::array<std::int64_t, kMaxRank> strides{};  // in elements
  bool contiguous() const;                       // row-major, dense (size-1 dims' strides ignored)
  std::int64_t span() const;                     // elements from the lowest-addressed to the highest, both in; 0 if empty
  std::string str() const;                       // "[4,8]:[1,4]+0" for dumps and cache keys
};

// Row-major contiguous layout of `shape` at `base`.
Layout contiguous_layout(NodeId base, const Shape& shape);

// The layout of every node of `g` (kNoNode base for nodes not reached). A reshape of a
// non-contiguous layout gets base = itself and `copied[node] = 1`: the executor must write the
// view's elements contiguously into a buffer of its own (a copy step from the input's layout).
struct Layouts {
  std::vector<Layout> of;
  std::vector<char> copied;
};
Layouts plan_layouts(const Graph& g);

// The strides, relative to `out` (right-aligned, 0 along broadcast and new leading dims), with
// which a value of layout `in` is read when broadcast to `out`.
std::array<std::int64_t, kMaxRank> broadcast_read_strides(const Layout& in, const Shape& out);

}  // namespace assay::graph
