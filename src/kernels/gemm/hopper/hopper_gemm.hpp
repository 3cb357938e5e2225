#pragma once
// assay's Hopper GEMM (sm_90a): TMA loads into a shared-memory ring completed on mbarriers,
// wgmma with fp32 accumulators, one producer warp group and two (three for 192-row tiles, one for
// the 64-row tile) consumer warp groups (setmaxnreg where there are several), optionally 2-CTA clusters sharing the B tile by TMA
// multicast, a persistent grid walking output tiles in grouped (L2-friendly) order, serpentine in
// columns from group to group and in K from wave to wave, so that each wave starts on what the last
// left in L2 (row-major when a 16-bit launch of single CTAs is one wave: it only picks which CTAs
// are neighbours), and an epilogue of TMA stores from a shared-memory staging box that overlaps the
// next tile (a CTA's last tile stores 16-byte row chunks straight from the registers; the 256-wide
// f16/bf16 tile issues its last two K blocks in two column halves and stores the first half while
// the second runs). fp8 promotes each 128-deep K block to fp32. The 16-bit 128 x 128, 128 x 64 and
// 64 x 128 tiles also have split-K instances, which run stream-K too (Split below; split_k.cuh).
//
//   f16 / bf16:  C[m,n] = A[m,k] * B[k,n]               A, B, C row-major, C in the input type
//   e4m3:        C[m,n] = sa * sb * A[m,k] * B[n,k]^T   B stored n x k (K-major), C bf16
//
// Only for compute capability 9.0 and for operands the copy engine can address: 16-byte
// aligned base pointers and row pitches (`eligible`). gemm_dispatch.cpp routes everything
// else to the kernels that take any shape.
#include <cuda_runtime.h>

#include <cstddef>

#include "kernels/gemm/tile_heuristic.hpp"

namespace assay::kernels::hopper {

enum class Elem { f16, bf16, e4m3 };

// The kernel counts tiles and K blocks in int: m, n and k stay this far below INT_MAX so that
// rounding them up to a tile cannot overflow.
constexpr int kMaxDim = 2147483647 - 255;
bool eligible(Elem e, int m, int n, int k, const void* a, const void* b, const void* c);

// The output tile is `tile_m` x `tile_n`, one of kTileShapes that `builds` this dtype (192 x
// 192: three consumer warp groups); `cluster` 1, 2 (CTA pairs multicasting B) or 4 (four row tiles
// sharing B: builds_cluster4); `scale_a`/`scale_b` are device pointers (e4m3 only).
// Split-K (f16/bf16, single CTAs, 128 x 128, 128 x 64 and 64 x 128): `splits` CTAs share each tile's K
// blocks (at most one split per 64 of K). The workspace (split_workspace_bytes) is the caller's:
// the tile counters first (split_counter_bytes, zero before the first launch; each launch leaves
// them zero), then the fp32 partial tiles. Launches sharing one workspace must not overlap.
// Stream-K (same instances): `stream_ctas` CTAs share all tiles' K blocks evenly, in groups of as
// many as the tile rows (stream_k_ctas in tile_heuristic.hpp gives the grid), with
// stream_workspace_bytes (two partial tiles per CTA); `splits` is then ignored.
struct Split {
  int splits = 1;
  int stream_ctas = 0;
  bool by_row = false;  // split-K's lines of tiles (k_segments.hpp)
  unsigned* counters = nullptr;
  float* slots = nullptr;
  std::size_t bytes = 0;  // of the whole workspace
};
bool builds_split(Elem e, int tile_m, int tile_n);
// Clusters of four along M: f16/bf16, 128 x 128, 128 x 192 and 128 x 256.
bool builds_cluster4(Elem e, int tile_m, int tile_n);
// CTAs that one wave of clusters of four holds on `device` (the driver's count of active clusters,
// times four; 0 where the Hopper kernel does not run). Cached per device.
int cluster4_ctas(int device);
std::size_t split_counter_bytes(int tile_m, int tile_n, int m, int n);
std::size_t split_workspace_bytes(int tile_m, int tile_n, int m, int n, int splits);
std::size_t stream_workspace_bytes(int tile_m, int tile_n, int m, int n, int ctas);

cudaError_t launch(Elem e, int tile_m, int tile_n, int cluster, int m, int n, int k, const void* a, const void* b,
                   void* c, const float* scale_a, const float* scale_b, cudaStream_t stream, const Split& split = {});

// Whether this dtype has this tile (tile_built in tile_heuristic.hpp).
inline bool builds(Elem e, int tile_m, int tile_n) { return tile_built(e == Elem::e4m3, tile_m, tile_n); }

// Pipeline depth of a tile (shared-memory stages), for names and notes.
int stages(int tile_m, int tile_n);

}  // namespace assay::kernels::hopper
