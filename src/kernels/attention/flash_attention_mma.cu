// Flash attention forward on mma.sync (sm_80 and newer), f16 and bf16, d = 64 or 128.
//
//   block       16·W query rows (W = 4 or 8 warps, one m16 row tile per warp); grid
//               (query blocks, b·h); causal grids run the longest (last) query blocks first
//   K/V blocks  64 keys; K and V of block j+1 load (cp.async, zero-filled past s) while block
//               j is computed: 2 stages of K and V plus the Q tile in dynamic shared memory,
//               (16·W + 4·64)·d·2 bytes = 80 KiB (W 4) / 96 KiB (W 8) at d = 128
//   S = Q·Kᵀ    Q fragments stay in registers for the whole loop; K is [key][d] in shared
//               memory, which is the "col" B operand as it stands: ldmatrix without .trans
//   softmax     online, in the log2 domain: p = exp2(s·scale·log2e − m·scale·log2e); per-row
//               max and sum over a quad of lanes (shfl_xor 1, 2); masked keys (past s, or
//               causal j > i) are −inf, and only blocks that cross s or the diagonal test them
//   O += P·V    the S accumulators of two adjacent n8 tiles are exactly the A fragment of one
//               k16 step, so P never goes through shared memory; V [key][d] is read with
//               ldmatrix.trans
//   swizzle     16-byte chunk c of row r is stored at chunk c ^ (r % 8): the 8 rows one
//               ldmatrix phase reads fall in 8 different bank groups, with or without .trans
//
// This is the portable family (sm_80/sm_89, and the correct fallback on sm_90); the Hopper
// kernel (wgmma, TMA) is the fast path there.
#include <cuda_bf16.h>
#include <cuda_fp16.h>

#include <cmath>
#include <cstdint>
#include <type_traits>

#include "kernels/attention/flash_attention.hpp"
#include "kernels/mma_sync_ptx.cuh"

namespace assay::kernels {

namespace {

constexpr int kBN = 64;
constexpr int kChunk = 8;  // 16-bit elements per 16-byte copy

template <typename T>
__device__ __forceinline__ uint32_t pack2(float lo, float hi) {
  if constexpr (std::is_same_v<T, __half>) {
    const __half2 h = __floats2half2_rn(lo, hi);
    return *reinterpret_cast<const uint32_t*>(&h);
  } else {
    const __nv_bfloat162 h = __floats2bfloat162_rn(lo, hi);
    return *reinterpret_cast<const uint32_t*>(&h);
  }
}

// Element offset of chunk `chunk` of row `row` in a [rows][kD] tile (see the swizzle above).
template <int kD>
__device__ __forceinline__ int tile_offset(int row, int chunk) {
  return row * kD + (chunk ^ (row & 7)) * kChunk;
}

// rows x kD elements from global rows r0.. of a [s][kD] matrix (rows `ld` elements apart) into
// a swizzled tile; rows at or past s are zero-filled without reading.
template <int kD, int kThreads>
__device__ __forceinline__ void load_tile(uint32_t dst, const uint16_t* src, int rows, int r0, int s, long long ld,
                                          int tid) {
  constexpr int kChunks = kD / kChunk;
  for (int c = tid; c < rows * kChunks; c += kThreads) {
    const int row = c / kChunks, chunk = c % kChunks;
    const bool in = r0 + row < s;
    const uint16_t* p = in ? src + static_cast<size_t>(r0 + row) * ld + chunk * kChunk : src;
    cp_async_16(dst + 2 * tile_offset<kD>(row, chunk), p, in);
  }
}

template <typename T, int kD, int kWarps>
__global__ void __launch_bounds__(kWarps * 32)
    flash_fwd_mma_kernel(const uint16_t* __restrict__ q, const uint16_t* __restrict__ k,
                         const uint16_t* __restrict__ v, T* __restrict__ o, int s, bool causal, float scale_log2,
                         int heads_per_batch, HeadStrides qs, HeadStrides ks, HeadStrides vs, HeadStrides os) {
  constexpr int kThreads = kWarps * 32;
  constexpr int kBM = 16 * kWarps;
  constexpr int kKSteps = kD / 16;   // k16 steps of Q·Kᵀ
  constexpr int kSTiles = kBN / 8;   // n8 tiles of S
  constexpr int kOTiles = kD / 8;    // n8 tiles of O
  constexpr int kTile = kBN * kD;    // elements of one K or V block
  extern __shared__ __align__(128) uint16_t smem[];
  const uint32_t sq = smem_addr(smem);
  const uint32_t skv = sq + 2 * kBM * kD;  // stage st: K at skv + st·4·kTile bytes, V after it

  const int tid = threadIdx.x, lane = tid % 32, warp = tid / 32;
  const int g = lane / 4, t = lane % 4;
  const int q_blocks = gridDim.x;
  const int qb = causal ? q_blocks - 1 - static_cast<int>(blockIdx.x) : static_cast<int>(blockIdx.x);
  // The head's first element and row pitch in each tensor (dense unless given strides).
  const int y = static_cast<int>(blockIdx.y), yb = y / heads_per_batch, yh = y % heads_per_batch;
  const auto start = [&](const HeadStrides& h) {
    return h.row ? static_cast<size_t>(yb) * h.batch + static_cast<size_t>(yh) * h.head : static_cast<size_t>(y) * s * kD;
  };
  const long long q_ld = qs.row ? qs.row : kD, k_ld = ks.row ? ks.row : kD, v_ld = vs.row ? vs.row : kD,
                  o_ld = os.row ? os.row : kD;
  q += start(qs);
  k += start(ks);
  v += start(vs);
  o += start(os);
  const int q0 = qb * kBM;
  const int kv_end = causal ? min(q0 + kBM, s) : s;  // keys any row of this block can see
  const int kv_blocks = (kv_end + kBN - 1) / kBN;

  auto load_kv = [&](int j) {
    const uint32_t st = skv + (j & 1) * 4 * kTile;
    load_tile<kD, kThreads>(st, k, kBN, j * kBN, s, k_ld, tid);
    load_tile<kD, kThreads>(st + 2 * kTile, v, kBN, j * kBN, s, v_ld, tid);
  };
  load_tile<kD, kThreads>(sq, q, kBM, q0, s, q_ld, tid);
  load_kv(0);
  cp_async_commit();

  uint32_t qf[kKSteps][4];
  float oacc[kOTiles][4] = {};
  float row_max[2] = {-INFINITY, -INFINITY};
  float row_sum[2] = {0.0f, 0.0f};
  const int row0 = q0 + warp * 16 + g;  // this thread's rows: row0 and row0 + 8

  for (int j = 0; j < kv_blocks; ++j) {
    // One group per block, empty or not, so "wait until one is pending" completes block j.
    if (j + 1 < kv_blocks) load_kv(j + 1);
    cp_async_commit();
    cp_async_wait<1>();
    __syncthreads();
    if (j == 0) {
#pragma unroll
      for (int kk = 0; kk < kKSteps; ++kk)
        ldmatrix_x4(qf[kk], sq + 2 * tile_offset<kD>(warp * 16 + lane % 16, 2 * kk + lane / 16));
    }
    const uint32_t sk = skv + (j & 1) * 4 * kTile;
    const uint32_t sv = sk + 2 * kTile;

    // S = Q·Kᵀ. ldmatrix.x4 lane l addresses key (l/16)·8 + l%8 at d-chunk 2kk + (l/8)%2:
    // matrices 0,1 are b0,b1 of the n8 tile of keys 0-7, matrices 2,3 those of keys 8-15.
    float sacc[kSTiles][4] = {};
#pragma unroll
    for (int kk = 0; kk < kKSteps; ++kk) {
#pragma unroll
      for (int np = 0; np < kSTiles / 2; ++np) {
        uint32_t r[4];
        ldmatrix_x4(r, sk + 2 * tile_offset<kD>(np * 16 + (lane / 16) * 8 + lane % 8, 2 * kk + (lane / 8) % 2));
        mma_16816<T>(sacc[2 * np], qf[kk], {r[0], r[1]});
        mma_16816<T>(sacc[2 * np + 1], qf[kk], {r[2], r[3]});
      }
    }

    const int k0 = j * kBN;
    // Accumulator (c0, c1) is row g, keys 2t, 2t+1 of the n8 tile; (c2, c3) row g + 8.
    if (k0 + kBN > s || (causal && k0 + kBN - 1 > q0 + warp * 16)) {
#pragma unroll
      for (int nt = 0; nt < kSTiles; ++nt)
#pragma unroll
        for (int e = 0; e < 4; ++e) {
          const int key = k0 + nt * 8 + 2 * t + (e & 1);
          const int row = row0 + (e >> 1) * 8;
          if (key >= s || (causal && key > row)) sacc[nt][e] = -INFINITY;
        }
    }

#pragma unroll
    for (int r = 0; r < 2; ++r) {
      float mx = row_max[r];
#pragma unroll
      for (int nt = 0; nt < kSTiles; ++nt) mx = fmaxf(mx, fmaxf(sacc[nt][2 * r], sacc[nt][2 * r + 1]));
      mx = fmaxf(mx, __shfl_xor_sync(0xffffffffu, mx, 1));
      mx = fmaxf(mx, __shfl_xor_sync(0xffffffffu, mx, 2));
      // A row with every key so far masked keeps max −inf; subtract 0 then, not −inf (NaN).
      const float m_scaled = mx == -INFINITY ? 0.0f : mx * scale_log2;
      const float alpha = exp2f(row_max[r] * scale_log2 - m_scaled);
      row_max[r] = mx;
      row_sum[r] *= alpha;
#pragma unroll
      for (int dt = 0; dt < kOTiles; ++dt) {
        oacc[dt][2 * r] *= alpha;
        oacc[dt][2 * r + 1] *= alpha;
      }
#pragma unroll
      for (int nt = 0; nt < kSTiles; ++nt) {
        const float p0 = exp2f(fmaf(sacc[nt][2 * r], scale_log2, -m_scaled));
        const float p1 = exp2f(fmaf(sacc[nt][2 * r + 1], scale_log2, -m_scaled));
        sacc[nt][2 * r] = p0;
        sacc[nt][2 * r + 1] = p1;
        row_sum[r] += p0 + p1;
      }
    }

    // O += P·V. The A fragment of k16 step kj: a0 = (row g, keys 2t..) of n8 tile 2kj,
    // a1 = row g + 8 of it, a2/a3 the same of tile 2kj + 1. ldmatrix.x4.trans lane l addresses
    // key kj·16 + l%16 at d-chunk 2dp + l/16: matrices 0,1 are b0,b1 of d tile 2dp, 2,3 of 2dp + 1.
#pragma unroll
    for (int kj = 0; kj < kBN / 16; ++kj) {
      const uint32_t pa[4] = {pack2<T>(sacc[2 * kj][0], sacc[2 * kj][1]), pack2<T>(sacc[2 * kj][2], sacc[2 * kj][3]),
                              pack2<T>(sacc[2 * kj + 1][0], sacc[2 * kj + 1][1]),
                              pack2<T>(sacc[2 * kj + 1][2], sacc[2 * kj + 1][3])};
#pragma unroll
      for (int dp = 0; dp < kOTiles / 2; ++dp) {
        uint32_t r[4];
        ldmatrix_x4_trans(r, sv + 2 * tile_offset<kD>(kj * 16 + lane % 16, 2 * dp + lane / 16));
        mma_16816<T>(oacc[2 * dp], pa, {r[0], r[1]});
        mma_16816<T>(oacc[2 * dp + 1], pa, {r[2], r[3]});
      }
    }
    // Every warp is done with this stage before the next iteration refills it.
    __syncthreads();
  }

#pragma unroll
  for (int r = 0; r < 2; ++r) {
    float sum = row_sum[r];
    sum += __shfl_xor_sync(0xffffffffu, sum, 1);
    sum += __shfl_xor_sync(0xffffffffu, sum, 2);
    const float inv = sum > 0.0f ? 1.0f / sum : 0.0f;
    const int row = row0 + r * 8;
    if (row >= s) continue;
    T* out = o + static_cast<size_t>(row) * o_ld;
#pragma unroll
    for (int dt = 0; dt < kOTiles; ++dt)
      *reinterpret_cast<uint32_t*>(out + dt * 8 + 2 * t) = pack2<T>(oacc[dt][2 * r] * inv, oacc[dt][2 * r + 1] * inv);
  }
}

template <typename T, int kD, int kWarps>
cudaError_t launch(const FlashAttentionArgs& a, cudaStream_t stream) {
  constexpr int kBM = 16 * kWarps;
  constexpr int kSmem = (kBM + 4 * kBN) * kD * 2;
  // Above 48 KiB dynamic shared memory must be asked for, once per kernel (not per call).
  static const cudaError_t attr =
      cudaFuncSetAttribute(flash_fwd_mma_kernel<T, kD, kWarps>, cudaFuncAttributeMaxDynamicSharedMemorySize, kSmem);
  if (attr != cudaSuccess) return attr;
  const dim3 grid((a.s + kBM - 1) / kBM, a.heads);
  const float scale_log2 = a.scale * 1.4426950408889634f;
  flash_fwd_mma_kernel<T, kD, kWarps><<<grid, kWarps * 32, kSmem, stream>>>(
      static_cast<const uint16_t*>(a.q), static_cast<const uint16_t*>(a.k), static_cast<const uint16_t*>(a.v),
      static_cast<T*>(a.o), a.s, a.causal, scale_log2, a.heads_per_batch > 0 ? a.heads_per_batch : 1, a.q_strides,
      a.k_strides, a.v_strides, a.o_strides);
  return cudaGetLastError();
}

template <typename T>
cudaError_t dispatch(const FlashAttentionArgs& a, int rows, cudaStream_t stream) {
  if (a.d == 64) return rows == 128 ? launch<T, 64, 8>(a, stream) : launch<T, 64, 4>(a, stream);
  return rows == 128 ? launch<T, 128, 8>(a, stream) : launch<T, 128, 4>(a, stream);
}

}  // namespace

namespace detail {
cudaError_t launch_flash_mma(const FlashAttentionArgs& a, int rows, cudaStream_t stream) {
  return a.dtype == DType::bf16 ? dispatch<__nv_bfloat16>(a, rows, stream) : dispatch<__half>(a, rows, stream);
}
}  // namespace detail

}  // namespace assay::kernels
