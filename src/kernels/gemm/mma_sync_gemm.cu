// Tensor-core GEMM for f16 and bf16 with mma.sync (sm_80 and newer; on sm_90 this is the
// Ampere-style path, which gemm_dispatch.cpp uses there only for operands TMA cannot address).
//
// C[m,n] = A[m,k] * B[k,n], row-major, fp32 accumulators, C rounded to nearest even.
//
//   block tile   128 x 128 x 32 (BM x BN x BK); 256 threads = 8 warps, 2 (m) x 4 (n)
//   warp tile    64 x 32: 4 x 4 mma.m16n8k16 per k16 step, 64 fp32 accumulators per thread
//   shared       3 stages x (A 128x32 + B 32x128) f16 = 3 x 16 KiB = 48 KiB, static
//   pipeline     cp.async 16-byte copies, 2 k-tiles in flight while the third is computed;
//                one __syncthreads per k-tile
//   fragments    A: ldmatrix.x4 (16x16 per instruction); B is stored k-major as in global
//                memory and read with ldmatrix.x4.trans, which yields the "col" operand directly
//   swizzle      16-byte chunk index XOR row bits (no padding: 48 KiB is the static limit)
//   occupancy    __launch_bounds__(256, 2): at most 128 registers, 2 blocks = 16 warps per SM
//
// Why these numbers:
// - 128x128 is the largest block tile whose accumulators (64 per thread) still allow 2 blocks
//   per SM within the 64K-register file; 2 blocks let one block's barrier stall overlap the
//   other's math. Per k16 step a warp issues 6 ldmatrix.x4 for 16 mma, so shared-memory
//   bandwidth stays below the tensor-core rate.
// - Warps as 2x4 (warp tile 64x32): 4 A + 2 B ldmatrix.x4 per k16 step. 4x2 (32x64) costs the
//   same 6; 8 warps rather than 4 give each scheduler two warps of one block to switch between.
// - BK = 32 keeps a stage at 16 KiB: 3 stages x 2 blocks = 96 KiB fits sm_80 (164 KiB) and
//   sm_90 (228 KiB). 3 stages keep two tiles (32 KiB per block) of loads in flight, enough to
//   cover global latency at this tile's compute time per k-tile.
//
// Two paths, chosen at run time per launch (kAligned), the only template instances besides T:
// - aligned: k % 8 == 0, n % 8 == 0, A and B 16-byte aligned, C 4-byte aligned. Every 16-byte
//   chunk of a tile row then lies wholly inside or wholly outside the matrix, so edge tiles use
//   cp.async with src-size 0 (zero fill, nothing read), and C is written in f16x2 pairs.
// - generic: any shape and alignment. Elements are loaded one by one with bounds checks (zero
//   outside) into registers before the k-tile's math and stored to shared memory after it, so
//   the global latency still overlaps the mma work; C is written element by element.
#include <cuda_bf16.h>
#include <cuda_fp16.h>

#include <cstddef>
#include <cstdint>
#include <type_traits>

#include "kernels/gemm/gemm_detail.hpp"
#include "kernels/mma_sync_ptx.cuh"

namespace assay::kernels::detail {

namespace {

constexpr int kBM = 128;
constexpr int kBN = 128;
constexpr int kBK = 32;
constexpr int kStages = 3;
constexpr int kWarpsM = 2;
constexpr int kWarpsN = 4;
constexpr int kThreads = kWarpsM * kWarpsN * 32;
constexpr int kWarpTileM = kBM / kWarpsM;  // 64
constexpr int kWarpTileN = kBN / kWarpsN;  // 32
constexpr int kMmaTilesM = kWarpTileM / 16;
constexpr int kMmaTilesN = kWarpTileN / 8;
constexpr int kChunk = 8;  // 16-bit elements in one 16-byte copy
constexpr int kAChunksPerRow = kBK / kChunk;  // 4
constexpr int kBChunksPerRow = kBN / kChunk;  // 16
constexpr int kAChunksPerThread = kBM * kAChunksPerRow / kThreads;
constexpr int kBChunksPerThread = kBK * kBChunksPerRow / kThreads;
constexpr int kAStageElems = kBM * kBK;
constexpr int kBStageElems = kBK * kBN;
constexpr const char* kAlignedName = "mma16816_128x128x32_s3_aligned";
constexpr const char* kGenericName = "mma16816_128x128x32_s3_generic";

static_assert(kAChunksPerThread * kThreads == kBM * kAChunksPerRow, "A tile splits evenly");
static_assert(kBChunksPerThread * kThreads == kBK * kBChunksPerRow, "B tile splits evenly");
static_assert(kAChunksPerRow == 4 && kBChunksPerRow == 16, "the swizzles below assume these");
static_assert(kBK % 16 == 0 && kWarpTileN % 16 == 0, "ldmatrix.x4 covers 16 k and 16 n");
static_assert(kStages * (kAStageElems + kBStageElems) * 2 <= 48 * 1024, "static shared limit");

// Element offsets inside one stage. ldmatrix reads one 16-byte chunk from each of 8 consecutive
// rows per phase; those 8 chunks must fall in 8 different 16-byte bank groups of a 128-byte line.
// A rows are 64 bytes (4 chunks): unswizzled, rows r and r+2 collide (4-way). XOR the chunk with
// (r/2)%4: within 8 rows, r%2 picks the half line and (r/2)%4 a distinct chunk.
__device__ __forceinline__ int a_offset(int row, int chunk) {
  return row * kBK + (chunk ^ ((row >> 1) & 3)) * kChunk;
}
// B rows are 256 bytes (16 chunks): unswizzled, all 8 rows collide (8-way). XOR the low 3 chunk
// bits with r%8. The cp.async stores (whole rows per 16 threads) stay conflict-free for both.
__device__ __forceinline__ int b_offset(int row, int chunk) {
  return row * kBN + (chunk ^ (row & 7)) * kChunk;
}

__device__ __forceinline__ uint32_t bits(__half x) { return __half_as_ushort(x); }
__device__ __forceinline__ uint32_t bits(__nv_bfloat16 x) { return __bfloat16_as_ushort(x); }

// C stores rounded to nearest even: a pair of neighbours (4-byte aligned) or one element.
__device__ __forceinline__ void store_pair_rn(__half* out, float lo, float hi) {
  *reinterpret_cast<__half2*>(out) = __floats2half2_rn(lo, hi);
}
__device__ __forceinline__ void store_pair_rn(__nv_bfloat16* out, float lo, float hi) {
  *reinterpret_cast<__nv_bfloat162*>(out) = __floats2bfloat162_rn(lo, hi);
}
__device__ __forceinline__ void store_rn(__half* out, float x) { *out = __float2half_rn(x); }
__device__ __forceinline__ void store_rn(__nv_bfloat16* out, float x) {
  *out = __float2bfloat16_rn(x);
}

// Which tile element a thread's i-th chunk copy covers (same split for both paths).
struct ChunkPos {
  int row;
  int chunk;
};
__device__ __forceinline__ ChunkPos a_chunk(int tid, int i) {
  const int q = tid + i * kThreads;
  return {q / kAChunksPerRow, q % kAChunksPerRow};
}
__device__ __forceinline__ ChunkPos b_chunk(int tid, int i) {
  const int q = tid + i * kThreads;
  return {q / kBChunksPerRow, q % kBChunksPerRow};
}

// Aligned path: one k-tile (A rows m0.., B columns n0.., k from k0) into a stage by cp.async.
template <typename T>
__device__ __forceinline__ void load_tile_async(uint32_t sa, uint32_t sb, const T* a, const T* b,
                                                int m, int n, int k, int m0, int n0, int k0,
                                                int tid) {
#pragma unroll
  for (int i = 0; i < kAChunksPerThread; ++i) {
    const ChunkPos p = a_chunk(tid, i);
    const int gr = m0 + p.row;
    const int gc = k0 + p.chunk * kChunk;
    const bool ok = gr < m && gc < k;
    const T* src = ok ? a + static_cast<size_t>(gr) * k + gc : a;
    cp_async_16(sa + 2 * a_offset(p.row, p.chunk), src, ok);
  }
#pragma unroll
  for (int i = 0; i < kBChunksPerThread; ++i) {
    const ChunkPos p = b_chunk(tid, i);
    const int gr = k0 + p.row;
    const int gc = n0 + p.chunk * kChunk;
    const bool ok = gr < k && gc < n;
    const T* src = ok ? b + static_cast<size_t>(gr) * n + gc : b;
    cp_async_16(sb + 2 * b_offset(p.row, p.chunk), src, ok);
  }
}

// Generic path: 8 consecutive elements of one row, zero where row or column is outside.
template <typename T>
__device__ __forceinline__ uint4 load_chunk_checked(const T* base, int rows, int cols, int r,
                                                    int c) {
  uint32_t h[kChunk];
  const T* row = r < rows ? base + static_cast<size_t>(r) * cols : base;
#pragma unroll
  for (int j = 0; j < kChunk; ++j) h[j] = (r < rows && c + j < cols) ? bits(row[c + j]) : 0u;
  return make_uint4(h[0] | h[1] << 16, h[2] | h[3] << 16, h[4] | h[5] << 16, h[6] | h[7] << 16);
}

struct TileRegs {
  uint4 a[kAChunksPerThread];
  uint4 b[kBChunksPerThread];
};

template <typename T>
__device__ __forceinline__ TileRegs load_tile_checked(const T* a, const T* b, int m, int n, int k,
                                                      int m0, int n0, int k0, int tid) {
  TileRegs t;
#pragma unroll
  for (int i = 0; i < kAChunksPerThread; ++i) {
    const ChunkPos p = a_chunk(tid, i);
    t.a[i] = load_chunk_checked(a, m, k, m0 + p.row, k0 + p.chunk * kChunk);
  }
#pragma unroll
  for (int i = 0; i < kBChunksPerThread; ++i) {
    const ChunkPos p = b_chunk(tid, i);
    t.b[i] = load_chunk_checked(b, k, n, k0 + p.row, n0 + p.chunk * kChunk);
  }
  return t;
}

__device__ __forceinline__ void store_tile(const TileRegs& t, uint16_t* sa, uint16_t* sb,
                                           int tid) {
#pragma unroll
  for (int i = 0; i < kAChunksPerThread; ++i) {
    const ChunkPos p = a_chunk(tid, i);
    *reinterpret_cast<uint4*>(sa + a_offset(p.row, p.chunk)) = t.a[i];
  }
#pragma unroll
  for (int i = 0; i < kBChunksPerThread; ++i) {
    const ChunkPos p = b_chunk(tid, i);
    *reinterpret_cast<uint4*>(sb + b_offset(p.row, p.chunk)) = t.b[i];
  }
}

// Fragment addresses are fixed per thread; only stage, k16 step and tile index add constants,
// because adding a multiple of 8 rows leaves both swizzles unchanged.
//   A (ldmatrix.x4): lanes 0-15 point at rows 0-15 of a 16x16 tile at k 0-7, lanes 16-31 at the
//     same rows at k 8-15; matrices 0..3 = (rows 0-7, k lo), (8-15, lo), (0-7, hi), (8-15, hi),
//     which are exactly the a0..a3 registers of the m16n8k16 A fragment.
//   B (ldmatrix.x4.trans): lanes 0-15 point at k rows 0-15 at n 0-7, lanes 16-31 at n 8-15;
//     transposed, matrices 0,1 are b0,b1 of the first n8 tile and 2,3 those of the second.
template <typename T, bool kAligned>
__global__ void __launch_bounds__(kThreads, 2)
    mma_sync_gemm_kernel(int m, int n, int k, const T* __restrict__ a, const T* __restrict__ b,
                         T* __restrict__ c) {
  __shared__ __align__(128) uint16_t smem_a[kStages * kAStageElems];
  __shared__ __align__(128) uint16_t smem_b[kStages * kBStageElems];

  const int tid = threadIdx.x;
  const int lane = tid % 32;
  const int warp = tid / 32;
  const int warp_m = warp / kWarpsN;
  const int warp_n = warp % kWarpsN;
  // blockIdx.x (fastest) walks n so that co-resident blocks share A rows. A 1-D grid would
  // lift the grid.y limit on m but costs the registers for m0/n0 (spills), so it stays 2-D.
  const int m0 = blockIdx.y * kBM;
  const int n0 = blockIdx.x * kBN;
  const int k_tiles = (k - 1) / kBK + 1;
  const uint32_t sa0 = smem_addr(smem_a);
  const uint32_t sb0 = smem_addr(smem_b);

  int a_frag[kBK / 16];
#pragma unroll
  for (int kk = 0; kk < kBK / 16; ++kk)
    a_frag[kk] = a_offset(warp_m * kWarpTileM + lane % 16, kk * 2 + lane / 16);
  int b_frag[kWarpTileN / 16];
#pragma unroll
  for (int nj = 0; nj < kWarpTileN / 16; ++nj)
    b_frag[nj] = b_offset(lane % 16, warp_n * (kWarpTileN / kChunk) + nj * 2 + lane / 16);

  float acc[kMmaTilesM][kMmaTilesN][4] = {};

  auto load_into_stage = [&](int tile, int stage) {
    if constexpr (kAligned) {
      load_tile_async(sa0 + 2 * stage * kAStageElems, sb0 + 2 * stage * kBStageElems, a, b, m, n,
                      k, m0, n0, tile * kBK, tid);
    } else {
      store_tile(load_tile_checked(a, b, m, n, k, m0, n0, tile * kBK, tid),
                 smem_a + stage * kAStageElems, smem_b + stage * kBStageElems, tid);
    }
  };

  // Prologue: tiles 0 .. kStages-2 in flight. Every thread commits exactly one group per tile
  // slot, empty or not, so "group i holds tile i" and the wait count below stays constant.
  // (The generic path copies synchronously; its commits and waits are empty.)
#pragma unroll
  for (int s = 0; s < kStages - 1; ++s) {
    if (s < k_tiles) load_into_stage(s, s);
    cp_async_commit();
  }

  for (int kt = 0; kt < k_tiles; ++kt) {
    // Groups committed so far: kStages-1 + kt; leaving kStages-2 pending completes group kt.
    // The barrier publishes every thread's copies of tile kt and also ends all reads of stage
    // (kt-1) % kStages, the one refilled next.
    cp_async_wait<kStages - 2>();
    __syncthreads();

    const int next = kt + kStages - 1;
    const int next_stage = next % kStages;
    [[maybe_unused]] TileRegs pending;
    if constexpr (kAligned) {
      if (next < k_tiles) load_into_stage(next, next_stage);
      cp_async_commit();
    } else {
      if (next < k_tiles) pending = load_tile_checked(a, b, m, n, k, m0, n0, next * kBK, tid);
    }

    const int stage = kt % kStages;
    const uint32_t sa = sa0 + 2 * stage * kAStageElems;
    const uint32_t sb = sb0 + 2 * stage * kBStageElems;
#pragma unroll
    for (int kk = 0; kk < kBK / 16; ++kk) {
      uint32_t af[kMmaTilesM][4];
      uint32_t bf[kMmaTilesN][2];
#pragma unroll
      for (int mi = 0; mi < kMmaTilesM; ++mi)
        ldmatrix_x4(af[mi], sa + 2 * (a_frag[kk] + mi * 16 * kBK));
#pragma unroll
      for (int nj = 0; nj < kMmaTilesN / 2; ++nj) {
        uint32_t r[4];
        ldmatrix_x4_trans(r, sb + 2 * (b_frag[nj] + kk * 16 * kBN));
        bf[2 * nj][0] = r[0];
        bf[2 * nj][1] = r[1];
        bf[2 * nj + 1][0] = r[2];
        bf[2 * nj + 1][1] = r[3];
      }
#pragma unroll
      for (int mi = 0; mi < kMmaTilesM; ++mi)
#pragma unroll
        for (int ni = 0; ni < kMmaTilesN; ++ni) mma_16816<T>(acc[mi][ni], af[mi], bf[ni]);
    }

    // Generic path: the stage being refilled was released by the barrier above and is next
    // read after two more barriers.
    if constexpr (!kAligned) {
      if (next < k_tiles)
        store_tile(pending, smem_a + next_stage * kAStageElems, smem_b + next_stage * kBStageElems,
                   tid);
    }
  }

  // Accumulator (c0,c1) is row g, columns 2t..2t+1 of the 16x8 tile; (c2,c3) is row g+8.
  const int g = lane / 4;
  const int t = lane % 4;
#pragma unroll
  for (int mi = 0; mi < kMmaTilesM; ++mi) {
#pragma unroll
    for (int ni = 0; ni < kMmaTilesN; ++ni) {
      const int col = n0 + warp_n * kWarpTileN + ni * 8 + 2 * t;
#pragma unroll
      for (int half = 0; half < 2; ++half) {
        const int row = m0 + warp_m * kWarpTileM + mi * 16 + g + half * 8;
        const float lo = acc[mi][ni][2 * half];
        const float hi = acc[mi][ni][2 * half + 1];
        if (row >= m || col >= n) continue;
        T* out = c + static_cast<size_t>(row) * n + col;
        if constexpr (kAligned) {
          // n % 8 == 0 and col even: col + 1 < n too, and the pair is 4-byte aligned.
          store_pair_rn(out, lo, hi);
        } else {
          store_rn(out, lo);
          if (col + 1 < n) store_rn(out + 1, hi);
        }
      }
    }
  }
}

bool is_aligned(const void* p, uintptr_t bytes) {
  return reinterpret_cast<uintptr_t>(p) % bytes == 0;
}

bool mma_path_aligned(int n, int k, const void* a, const void* b, const void* c) {
  return k % kChunk == 0 && n % kChunk == 0 && is_aligned(a, 16) && is_aligned(b, 16) &&
         is_aligned(c, 4);
}

template <typename T>
cudaError_t launch_mma_sync_gemm(int m, int n, int k, const void* a, const void* b, void* c,
                                 cudaStream_t stream) {
  // grid.y <= 65535 bounds m to 8,388,480 rows; past that the launch error is returned.
  const dim3 grid((n - 1) / kBN + 1, (m - 1) / kBM + 1);
  const T* ta = static_cast<const T*>(a);
  const T* tb = static_cast<const T*>(b);
  T* tc = static_cast<T*>(c);
  if (mma_path_aligned(n, k, a, b, c))
    mma_sync_gemm_kernel<T, true><<<grid, kThreads, 0, stream>>>(m, n, k, ta, tb, tc);
  else
    mma_sync_gemm_kernel<T, false><<<grid, kThreads, 0, stream>>>(m, n, k, ta, tb, tc);
  return cudaGetLastError();
}

}  // namespace

cudaError_t launch_mma_sync_gemm(bool bf16, int m, int n, int k, const void* a, const void* b, void* c,
                                 cudaStream_t stream) {
  return bf16 ? launch_mma_sync_gemm<__nv_bfloat16>(m, n, k, a, b, c, stream)
              : launch_mma_sync_gemm<__half>(m, n, k, a, b, c, stream);
}

const char* mma_sync_config_name(int n, int k, const void* a, const void* b, const void* c) {
  return mma_path_aligned(n, k, a, b, c) ? kAlignedName : kGenericName;
}

}  // namespace assay::kernels::detail
