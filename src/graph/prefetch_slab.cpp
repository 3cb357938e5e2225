#include "graph/prefetch_slab.hpp"

#include <algorithm>

namespace assay::graph {

PrefetchSlab leading_contraction_slab(const Layout& l, int contraction, std::int64_t elem_bytes, std::int64_t budget) {
  const int r = l.shape.rank;
  if (r < 2 || (contraction != r - 1 && contraction != r - 2) || budget < 128) return {};
  const int c = contraction, o = 2 * r - 3 - c;  // the matrix's two dims
  const std::int64_t numel = l.shape.numel();
  if (numel == 0 || numel != l.shape[c] * l.shape[o]) return {};  // empty, or batched
  const auto stride = [&](int d) { return l.strides[static_cast<std::size_t>(d)]; };
  for (int d = 0; d < r; ++d)
    if (stride(d) < 0) return {};  // element 0 must be the first byte
  if (l.span() != numel) return {};  // not dense
  const std::int64_t want = std::min(budget, numel * elem_bytes);
  PrefetchSlab p;
  if (l.shape[c] == 1 || (l.shape[o] > 1 && stride(c) > stride(o)) || l.shape[c] * elem_bytes < 128) {
    // The contraction dim is outer: its leading rows are the operand's leading bytes. (So are
    // rows shorter than a line: several share one, and the operand is dense.)
    p.rows = 1;
    p.row_lines = want / 128;
  } else {
    // The contraction dim is inner (contiguous): the leading bytes of every row of the other dim.
    p.rows = std::min(l.shape[o], std::max<std::int64_t>(want / 128, 1));
    p.row_stride_bytes = stride(o) * elem_bytes;
    p.row_lines = std::min(want / p.rows / 128, (l.shape[c] * elem_bytes + 127) / 128);
  }
  if (p.rows * p.row_lines == 0) return {};
  return p;
}

}  // namespace assay::graph
