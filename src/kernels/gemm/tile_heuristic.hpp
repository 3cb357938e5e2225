#pragma once
// The Hopper GEMM's shape heuristic, free of CUDA so that the CPU tests pin its choices: the
// output tile widths each dtype has, their measured relative column rates, and the pick for a
// shape (tile_heuristic.cpp; the measurements behind it: bench/notes/gemm.md).
#include <array>
#include <cstddef>

namespace assay::kernels::hopper {

// Output tiles are 128 x {256, 208, 192, 176, 128, 64}: two consumer warp groups of 64 rows; and
// 192 x 192 for f16/bf16, three consumer warp groups (cuBLAS's tile at 3072^3).
constexpr int kTileM = 128;
constexpr int kTileWidths[] = {256, 208, 192, 176, 128, 64};

// Whether a 128-row width exists for fp8 or for f16/bf16: fp8 keeps a partial set beside its
// accumulators, so 256 does not fit; 208 and 176 are fp8's alone (f16/bf16 load B in 64-column
// boxes).
constexpr bool tile_built(bool fp8, int tile_n) { return fp8 ? tile_n != 256 : tile_n != 208 && tile_n != 176; }
constexpr bool tile_built(bool fp8, int tile_m, int tile_n) {
  if (tile_m == 64) return !fp8 && tile_n == 128;  // one consumer warp group
  return tile_m == kTileM ? tile_built(fp8, tile_n) : tile_m == 192 && tile_n == 192 && !fp8;
}

// Every tile shape the kernel has for some dtype, in the order the heuristic tries them and the
// pinned configurations are named (wgmma_MxN).
struct TileShape {
  int m, n;
};
inline constexpr auto kTileShapes = [] {
  std::array<TileShape, std::size(kTileWidths) + 2> shapes{};
  for (std::size_t i = 0; i < std::size(kTileWidths); ++i) shapes[i] = {kTileM, kTileWidths[i]};
  shapes[std::size(kTileWidths)] = {192, 192};
  shapes[std::size(kTileWidths) + 1] = {64, 128};
  return shapes;
}();

struct TileChoice {
  int tile_m = kTileM;
  int tile_n = 256;
  int cluster = 1;  // CTAs per cluster (2: pairs multicasting B; 4: four row tiles sharing B)
  int splits = 1;   // CTAs sharing each tile's K blocks (split-K: f16/bf16, 128 x 128, 128 x 64, 64 x 128 alone)
  // (No stream-K: it is a pinned configuration only; gemm_dispatch.cpp plans its grid with stream_k_ctas.)
};

// The tile (and cluster size) with the least predicted time for an m x n output on `sms` SMs; k
// (A's row pitch, as n is B's) decides whether the rows start on 32-byte sectors.
// allow_split = false: the choice without split-K (where its workspace could not be had).
// cluster4_ctas: the CTAs one wave of clusters of four holds on the device (hopper::cluster4_ctas;
// 0: none are run).
TileChoice choose_tile(bool fp8, int m, int n, int k, int sms, bool allow_split = true, int cluster4_ctas = 0);

// Tiles of tile_m x tile_n over an m x n output, counted without int overflow at m or n near
// INT_MAX (the heuristic's costs and split-K's workspace size both count them).
constexpr long long tile_count(long long m, long long n, int tile_m, int tile_n) {
  return (m + tile_m - 1) / tile_m * ((n + tile_n - 1) / tile_n);
}

// Stream-K's grid (split_k.cuh): groups of as many CTAs as the tile rows, as many groups as fit on
// `sms` SMs but no more than the (tile column, 64-deep K block) iterations; 0 where one group does not
// fit (more tile rows than SMs).
// Stream-K's iterations: (tile column, 64-deep K block) pairs, which the groups share.
constexpr long long stream_k_iterations(long long n, long long k, int tile_n) {
  return (n + tile_n - 1) / tile_n * ((k + 63) / 64);
}
constexpr int stream_k_ctas(long long m, long long n, long long k, int tile_m, int tile_n, int sms) {
  const long long rows = (m + tile_m - 1) / tile_m;
  if (rows < 1 || rows > sms) return 0;
  const long long iterations = stream_k_iterations(n, k, tile_n);
  const long long groups = sms / rows < iterations ? sms / rows : iterations;
  return static_cast<int>(groups * rows);
}

// The persistent grid for `units` units (tiles, or pairs of tiles) when `limit` clusters fit at
// once: the fewest clusters that walk them in as many rounds as `limit` would. The clusters that
// had nothing to do in the last round then sit out every round instead, and each round is a whole
// block of the grouped tile order: at 4096^3 the 16-bit pairs go from 66 to 64 clusters, and DRAM
// reads fall 124 -> 115 MB and L2 lookups 1.4% at the same four rounds (bench/notes/gemm.md, v12).
// (One round: a cluster per unit.)
constexpr int persistent_clusters(long long units, int limit) {
  const long long rounds = (units + limit - 1) / limit;
  return static_cast<int>((units + rounds - 1) / rounds);
}

}  // namespace assay::kernels::hopper
