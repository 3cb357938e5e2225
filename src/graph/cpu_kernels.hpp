#pragma once
// The CPU reference executor's kernels, one function per op class. Each takes the node and its
// input values and returns the output's values in fp32; the driver (cpu_executor.cpp) rounds
// them to the node's dtype. Math is done in double and rounded once per node, so that the
// reference is as close to exact as fp32 storage allows and independent of loop order.
#include <array>
#include <cstdint>
#include <vector>

#include "graph/graph.hpp"
#include "graph/host_value.hpp"

namespace assay::graph::cpu {

using Strides = std::array<std::int64_t, kMaxRank>;
using Inputs = std::vector<const HostValue*>;

// Row-major strides of a shape.
Strides contiguous_strides(const Shape& s);
// Strides that read `in` broadcast to `out` (0 along broadcast and new leading dims).
Strides broadcast_strides(const Shape& in, const Shape& out);
// Visits every element of `shape` in row-major order: f(linear index, base + sum idx*strides).
template <class F>
void for_each_strided(const Shape& shape, const Strides& strides, std::int64_t base, F&& f) {
  const std::int64_t n = shape.numel();
  std::array<std::int64_t, kMaxRank> idx{};
  std::int64_t off = base;
  for (std::int64_t i = 0; i < n; ++i) {
    f(i, off);
    for (int d = shape.rank - 1; d >= 0; --d) {  // odometer step
      const auto u = static_cast<std::size_t>(d);
      off += strides[u];
      if (++idx[u] < shape[d]) break;
      off -= strides[u] * idx[u];
      idx[u] = 0;
    }
  }
}

std::vector<float> factory(const Node& n);
std::vector<float> elementwise(const Node& n, const Inputs& in);
std::vector<float> linalg(const Node& n, const Inputs& in);
std::vector<float> reduction(const Node& n, const Inputs& in);
std::vector<float> view(const Node& n, const Inputs& in);

}  // namespace assay::graph::cpu
