#pragma once
// Which bytes of a GEMM operand a kernel before the GEMM prefetches into L2 (the GPU executor's
// "L2 prefetch across steps", docs/lazy.md): the leading slab of the contraction dim for every
// row or column of the output, so that every CTA of the GEMM starts with a share of its stream
// rather than a few CTAs with all of theirs. Pure layout arithmetic, tested without a GPU.
#include <cstdint>

#include "graph/layout.hpp"

namespace assay::graph {

// rows × row_lines 128-byte lines: row r's lines start at r · row_stride_bytes from the
// operand's first element. rows = 0: nothing to prefetch.
struct PrefetchSlab {
  std::int64_t rows = 0, row_lines = 0, row_stride_bytes = 0;
  std::int64_t bytes() const { return rows * row_lines * 128; }
};

// The slab of at most `budget` bytes of an operand with layout `l` (its last two dims the
// matrix, leading dims all of size 1) and elements of `elem_bytes`, whose dim `contraction`
// (rank-1 or rank-2) the GEMM sums over. None for a batched operand, one that is not dense (its
// span holds bytes the GEMM does not read) or has a negative stride, or a budget under one line.
PrefetchSlab leading_contraction_slab(const Layout& l, int contraction, std::int64_t elem_bytes, std::int64_t budget);

}  // namespace assay::graph
