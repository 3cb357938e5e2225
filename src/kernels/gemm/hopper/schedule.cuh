#pragma once
// The Hopper GEMM's schedule: the warp groups and their registers, the element traits, the
// shared-memory layout of a tile (stage ring, output staging, barriers; the ring's position is
// hopper_ptx.cuh's Ring), and the order in which a persistent CTA walks its output tiles and
// their K blocks.
#include <cuda_bf16.h>
#include <cuda_fp16.h>

#include <cstdint>

#include "kernels/gemm/hopper/hopper_gemm.hpp"
#include "kernels/gemm/hopper/hopper_ptx.cuh"

namespace assay::kernels::hopper {

namespace {

constexpr int kRowBytes = 128;       // one swizzle row: each tile row holds 128 bytes of K
constexpr int kGroupM = 8;           // tile rows walked together (L2 reuse of B)

// Warp groups of a CTA whose tile has BM rows: group 0 produces, BM / 64 consume (64 rows each).
// With one consumer (the 64-row tile) no registers move: 256 threads may hold 255 each.
// The CTA launches with the registers its size allows (a multiple of 8 per thread: 168 for 384
// threads, 128 for 512); setmaxnreg then moves the producer's down and shares what that frees
// among the consumers (a multiple of 8): 232 each with two consumers, 152 with three.
// setmaxnreg.inc waits for registers the CTA has released, so it must ask for no more. The
// producer keeps 40, except beside the 208-wide fp8 tile: 24 (setmaxnreg's least), so that its
// consumers get 240 (acc and one partial set take 208; at 232 ptxas spilled 1 KB and serialised
// the wgmmas, C7512: docs/kernels/hopper-gemm.md, v9).
template <int BM, int BN>
struct Groups {
  static constexpr int kConsumers = BM / 64;
  static constexpr int kThreads = 128 * (kConsumers + 1);
  static constexpr int kLaunchRegs = 65536 / kThreads / 8 * 8;
  static constexpr int kProducerRegs = BN == 208 ? 24 : 40;
  static constexpr int kConsumerRegs =
      (kLaunchRegs * kThreads - kProducerRegs * 128) / (128 * kConsumers) / 8 * 8;
  static_assert(kConsumerRegs >= kLaunchRegs, "the consumers must not give registers back");
};

template <Elem E>
struct Traits;
template <>
struct Traits<Elem::f16> {
  using Out = __half;
  static constexpr int kElemBytes = 2, kStepK = 16;
  static constexpr bool kBKMajor = false;  // B is k x n row-major: N-contiguous (MN-major)
};
template <>
struct Traits<Elem::bf16> {
  using Out = __nv_bfloat16;
  static constexpr int kElemBytes = 2, kStepK = 16;
  static constexpr bool kBKMajor = false;
};
template <>
struct Traits<Elem::e4m3> {
  using Out = __nv_bfloat16;
  static constexpr int kElemBytes = 1, kStepK = 32;
  static constexpr bool kBKMajor = true;   // B is n x k: K-contiguous, as fp8 wgmma requires
};

// fp8 sums each K block apart from the fp32 accumulators (see consumer_fp8.cuh).
template <Elem E>
constexpr bool kPromote = E == Elem::e4m3;

// As many stages as fit in 227 KB with the 1 KB alignment slack and the output staging:
// 4 x 48 KB (256), 5 x 42, 40 or 38 (208, 192, 176; 208 and 176 store without staging),
// 6 x 32 (128), 8 x 24 (64); fp8 stages hold 128 of K. 192x192 (f16/bf16, three consumers): 4 x 48 KB.
// 64 x 128 (f16/bf16, one consumer): 8 x 24 KB.
constexpr int stages_for(int tile_m, int tile_n) {
  if (tile_m == 64) return 8;
  return tile_m == 192 || tile_n == 256 ? 4 : tile_n >= 176 ? 5 : tile_n == 128 ? 6 : 8;
}

constexpr int kSmemLimit = 227 * 1024;  // dynamic shared memory a block may opt into on sm_90
constexpr int kOutCols = 64;            // the epilogue stores 64-column boxes (128 bytes of bf16/f16)
constexpr int kOutBoxBytes = 64 * kOutCols * 2;  // one consumer's 64 rows of one box

template <Elem E, int BM, int BN>
struct Tile {
  static constexpr int kConsumers = Groups<BM, BN>::kConsumers;
  static constexpr int kBK = kRowBytes / Traits<E>::kElemBytes;  // K per stage
  static constexpr int kStages = stages_for(BM, BN);
  static constexpr int kABytes = BM * kRowBytes;
  static constexpr int kBBytes = BN * kRowBytes;
  static constexpr int kStageBytes = kABytes + kBBytes;
  static constexpr int kRingBytes = kStages * kStageBytes;
  // Output staging per consumer: two boxes (one filled while the TMA store reads the other)
  // where they fit beside the ring, else one; none for widths that store straight from the
  // registers (no multiple of the 64-column box: 176, 208; see StoreTile in epilogue.cuh).
  static constexpr int kFixedBytes = 2 * kStages * 8 + 1024;  // barriers, slack to align to 1024
  static constexpr int kOutBuffers = BN % kOutCols != 0 ? 0
                                     : kRingBytes + 2 * kConsumers * kOutBoxBytes + kFixedBytes <= kSmemLimit ? 2
                                                                                                              : 1;
  static constexpr int kOutBytes = kConsumers * kOutBuffers * kOutBoxBytes;
  static constexpr int kSmemBytes = kRingBytes + kOutBytes + kFixedBytes;
  static_assert(kSmemBytes <= kSmemLimit, "ring and output staging exceed shared memory");
};

// Tile t of the grouped order: groups of kGroupM tile rows, each walked column by column, odd
// groups from the last column back, so that a group starts on the B columns the one before it
// just read (with the K order of persistent_k_block, 6-17% fewer DRAM reads:
// docs/kernels/hopper-gemm.md, v11).
__device__ __forceinline__ void tile_coords(int t, int tiles_m, int tiles_n, int& tm, int& tn) {
  const int per_group = kGroupM * tiles_n;
  const int g = t / per_group;
  const int first = g * kGroupM;
  const int rows = min(tiles_m - first, kGroupM);
  const int r = t - g * per_group;
  tm = first + r % rows;
  tn = r / rows;
  if (g & 1) tn = tiles_n - 1 - tn;
}

// The K block a CTA loads at step kb of its iteration-th tile: odd iterations walk K backwards, so
// that each tile starts on the K blocks the wave before it read last, which are still in L2. The
// CTAs of a wave share their iteration, so they stay in step along K (breaking that step cost up to
// 2x: docs/kernels/hopper-gemm.md, v7). fp32 sums in another order: within the checks' tolerance.
__device__ __forceinline__ int persistent_k_block(int iteration, int kb, int k_blocks) {
  return (iteration & 1) ? k_blocks - 1 - kb : kb;
}

// This CTA's output tile of unit u (rank r of a pair takes tile row 2p + r of pair row p; past
// the last row TMA reads zeros and nothing is stored). Refers to the kernel's locals, as a
// lambda capturing them by reference would.
template <int C>
struct UnitTile {
  const bool& row_major;
  const int& tiles_n;
  const int& pairs_m;
  const unsigned& rank;
  __device__ void operator()(int u, int& tm, int& tn) const {
    int pm;
    if (row_major) {
      pm = u / tiles_n;
      tn = u - pm * tiles_n;
    } else {
      tile_coords(u, pairs_m, tiles_n, pm, tn);
    }
    tm = C * pm + static_cast<int>(rank);
  }
};

}  // namespace

}  // namespace assay::kernels::hopper
