// Flash attention forward for Hopper (sm_90a), f16 and bf16, d = 64 or 128.
//
//   CTA        one producer warp group (one thread issues TMA) and C consumer warp groups
//              (C = 1 or 2) of 64 query rows each; grid (query blocks of 64·C rows, b·h);
//              causal grids run the longest (last) query blocks first
//   tensors    Q, K, V through 3-D tensor maps [b·h][s][d] with the 128-byte swizzle: a box
//              never reaches into the next head, rows past s arrive as zeros. A row of d = 128
//              is two 64-column boxes ("atoms"), each its own swizzled [rows][64] sub-tile
//   ring       2 stages of a K block and a V block (128 keys each), with separate full and
//              empty barriers for K and V: the producer loads K one block ahead of V, a K slot
//              is released (one arrival per consumer) once its S has retired, a V slot once
//              its P·V has
//   S = Q·Kᵀ   wgmma m64n128k16, A = Q and B = K from shared memory, both K-major (d contiguous)
//   softmax    online in registers, log2 domain with the scale folded in (ex2.approx), the row
//              max and sum over the 4 lanes of a quad; masked keys (past s, causal j > i) are
//              −inf, tested only in blocks that cross s or the diagonal
//   O += P·V   wgmma m64n{d}k16 with A = P from registers (the S accumulators of two adjacent
//              n8 tiles are the A fragment of one k16 step) and B = V from shared memory,
//              MN-major (V is [key][d]; the instruction's transpose bit)
//   epilogue   O / l, rounded to the input type, stored from registers (4-byte pairs)
//
// Two consumer warp groups overlap each other: one's softmax runs while the other's wgmmas
// occupy the tensor cores. Within a warp group, S, softmax and P·V are serial
// (docs/kernels/attention.md: FlashAttention-3's intra-warp-group pipelining was slower here).
#include "kernels/attention/hopper/flash_hopper.hpp"

#include <cuda_bf16.h>
#include <cuda_fp16.h>

#include <cmath>
#include <cstdint>
#include <type_traits>

#include "kernels/attention/hopper/attention_wgmma_ops.cuh"
#include "kernels/attention/hopper/flash_hopper_common.cuh"
#include "kernels/gemm/hopper/hopper_ptx.cuh"
#include "kernels/gemm/hopper/tensor_maps.hpp"

namespace assay::kernels::attention_hopper {

namespace {

using hopper::fence_registers;
using hopper::mbar_arrive;
using hopper::mbar_arrive_expect_tx;
using hopper::mbar_init;
using hopper::mbar_init_fence;
using hopper::mbar_wait;
using hopper::smem_u32;
using hopper::wgmma_commit;
using hopper::wgmma_fence;
using hopper::wgmma_wait;

constexpr int kBN = 128;       // keys per K/V block
constexpr int kStages = 2;     // K/V blocks in flight
constexpr int kRowBytes = 128; // one swizzle row: 64 elements of d
constexpr int kProducerRegs = 24;
constexpr int kConsumerRegs = 240;

using Ring = StageRing<kStages>;

template <int kD, int C>
struct Layout {
  static constexpr int kAtoms = kD / 64;
  static constexpr int kQRows = 64 * C;
  static constexpr int kQBytes = kQRows * kD * 2;
  static constexpr int kKVBytes = kBN * kD * 2;  // one K or one V block
  static constexpr int kStageBytes = 2 * kKVBytes;
  static constexpr int kBarrierOffset = kQBytes + kStages * kStageBytes;
  static constexpr int kSmemBytes = kBarrierOffset + 8 * (1 + 4 * kStages) + 1024;  // + alignment slack
  static constexpr int kThreads = 128 * (C + 1);
  static_assert(kSmemBytes <= 227 * 1024, "the ring and Q exceed shared memory");
};

// A wgmma matrix descriptor of a 128-byte-swizzled tile at shared address `addr` (1024-byte
// aligned atoms), leading and stride byte offsets in 16-byte units.
__device__ __forceinline__ std::uint64_t desc_at(std::uint32_t addr, std::uint32_t leading, std::uint32_t stride) {
  return ((addr & 0x3FFFF) >> 4) | (static_cast<std::uint64_t>((leading & 0x3FFFF) >> 4) << 16) |
         (static_cast<std::uint64_t>((stride & 0x3FFFF) >> 4) << 32) | (1ull << 62);
}

template <bool kBf16>
__device__ __forceinline__ std::uint32_t pack2(float lo, float hi) {
  if constexpr (kBf16) {
    const __nv_bfloat162 h = __floats2bfloat162_rn(lo, hi);
    return *reinterpret_cast<const std::uint32_t*>(&h);
  } else {
    const __half2 h = __floats2half2_rn(lo, hi);
    return *reinterpret_cast<const std::uint32_t*>(&h);
  }
}

template <bool kBf16>
__device__ __forceinline__ void mma_s(float (&d)[kBN / 2], std::uint64_t a, std::uint64_t b, int accumulate) {
  if constexpr (kBf16) wgmma_ss_kk_bf16<kBN>(d, a, b, accumulate);
  else wgmma_ss_kk_f16<kBN>(d, a, b, accumulate);
}
template <bool kBf16, int kD>
__device__ __forceinline__ void mma_o(float (&d)[kD / 2], const std::uint32_t (&a)[4], std::uint64_t b) {
  if constexpr (kBf16) wgmma_rs_mn_bf16<kD>(d, a, b, 1);
  else wgmma_rs_mn_f16<kD>(d, a, b, 1);
}

template <bool kBf16, int kD, int C>
__global__ void __launch_bounds__(Layout<kD, C>::kThreads, 1)
    flash_hopper_kernel(const __grid_constant__ CUtensorMap map_q, const __grid_constant__ CUtensorMap map_k,
                        const __grid_constant__ CUtensorMap map_v,
                        std::conditional_t<kBf16, __nv_bfloat16, __half>* __restrict__ o, int s, int causal,
                        float scale_log2) {
  using L = Layout<kD, C>;
  using T = std::conditional_t<kBf16, __nv_bfloat16, __half>;
  extern __shared__ unsigned char smem_raw[];
  unsigned char* smem =
      reinterpret_cast<unsigned char*>((reinterpret_cast<std::uintptr_t>(smem_raw) + 1023) & ~std::uintptr_t(1023));
  const std::uint32_t sq = smem_u32(smem);
  const std::uint32_t skv = sq + L::kQBytes;
  // Barriers: q_full, then full_k, full_v, empty_k, empty_v (kStages each).
  const std::uint32_t q_full = sq + L::kBarrierOffset;
  const std::uint32_t full_k = q_full + 8, full_v = full_k + 8 * kStages;
  const std::uint32_t empty_k = full_v + 8 * kStages, empty_v = empty_k + 8 * kStages;

  // Broadcast from lane 0 so the compiler knows the warp group is uniform (descriptors then
  // live in uniform registers).
  const int warp_group = __shfl_sync(0xffffffffu, static_cast<int>(threadIdx.x / 128), 0);
  const int tid = threadIdx.x % 128;
  const int qb = causal ? static_cast<int>(gridDim.x - 1 - blockIdx.x) : static_cast<int>(blockIdx.x);
  const int head = blockIdx.y;
  const int q0 = qb * L::kQRows;
  const int kv_end = causal ? min(q0 + L::kQRows, s) : s;  // keys any row of this block can see
  const int kv_blocks = (kv_end + kBN - 1) / kBN;

  if (threadIdx.x == 0) {
    hopper::prefetch_tensor_map(&map_q);
    hopper::prefetch_tensor_map(&map_k);
    hopper::prefetch_tensor_map(&map_v);
    auto* bars = reinterpret_cast<std::uint64_t*>(smem + L::kBarrierOffset);
    mbar_init(&bars[0], 1);
    for (int st = 0; st < kStages; ++st) {
      mbar_init(&bars[1 + st], 1);                // full_k: the producer's arrival + TMA bytes
      mbar_init(&bars[1 + kStages + st], 1);      // full_v
      mbar_init(&bars[1 + 2 * kStages + st], C);  // empty_k: one arrival per consumer
      mbar_init(&bars[1 + 3 * kStages + st], C);  // empty_v
    }
    mbar_init_fence();
  }
  __syncthreads();

  if (warp_group == 0) {
    if constexpr (C > 1) hopper::regs_release<kProducerRegs>();
    if (tid == 0) {
      mbar_arrive_expect_tx(reinterpret_cast<std::uint64_t*>(smem + L::kBarrierOffset), L::kQBytes);
#pragma unroll
      for (int a = 0; a < L::kAtoms; ++a) tma_load_3d(sq + a * L::kQRows * kRowBytes, &map_q, q_full, a * 64, q0, head);
      // K runs one block ahead of V, in the order the consumers use them (K_{j+1} before V_j):
      // a K slot frees as soon as its S has retired, a V slot once its P·V has.
      auto* bars = reinterpret_cast<std::uint64_t*>(smem + L::kBarrierOffset);
      auto load = [&](const CUtensorMap* map, Ring& r, std::uint32_t empty, int full_index, int block, int offset) {
        mbar_wait(empty + 8 * r.stage, r.phase ^ 1);
        const std::uint32_t dst = skv + r.stage * L::kStageBytes + offset;
        mbar_arrive_expect_tx(&bars[full_index + r.stage], L::kKVBytes);
#pragma unroll
        for (int a = 0; a < L::kAtoms; ++a)
          tma_load_3d(dst + a * kBN * kRowBytes, map, q_full + 8 * (full_index + r.stage), a * 64, block * kBN, head);
        r.advance();
      };
      Ring rk, rv;
      load(&map_k, rk, empty_k, 1, 0, 0);
      for (int j = 0; j < kv_blocks; ++j) {
        if (j + 1 < kv_blocks) load(&map_k, rk, empty_k, 1, j + 1, 0);
        load(&map_v, rv, empty_v, 1 + kStages, j, L::kKVBytes);
      }
    }
    __syncwarp();
    return;
  }

  if constexpr (C > 1) hopper::regs_claim<kConsumerRegs>();
  const int consumer = warp_group - 1;
  const int warp = tid / 32, lane = tid % 32, g = lane / 4, t = lane % 4;
  const int warp_row0 = q0 + consumer * 64 + warp * 16;  // this warp's 16 rows
  const int row0 = warp_row0 + g;                        // this thread's rows: row0, row0 + 8

  float oacc[kD / 2];
#pragma unroll
  for (int i = 0; i < kD / 2; ++i) oacc[i] = 0.0f;
  float row_max[2] = {-INFINITY, -INFINITY};
  float row_sum[2] = {0.0f, 0.0f};
  // Q's rows of this consumer: atom a at a·kQRows rows, this consumer 64 rows into each.
  const std::uint32_t q_addr = sq + consumer * 64 * kRowBytes;
  mbar_wait(q_full, 0);

  // S = Q·K_jᵀ on the stage of block j, as one wgmma group (not waited for here).
  auto issue_s = [&](float (&sacc)[kBN / 2], int stage) {
    const std::uint32_t sk = skv + stage * L::kStageBytes;
    wgmma_fence();
#pragma unroll
    for (int kk = 0; kk < kD / 16; ++kk) {
      // A k16 step: 32 bytes along the swizzled row; d = 128's second half is the next atom.
      const std::uint64_t da = desc_at(q_addr + (kk / 4) * L::kQRows * kRowBytes + (kk % 4) * 32, 16, 1024);
      const std::uint64_t db = desc_at(sk + (kk / 4) * kBN * kRowBytes + (kk % 4) * 32, 16, 1024);
      mma_s<kBf16>(sacc, da, db, kk > 0 ? 1 : 0);
    }
    wgmma_commit();
  };
  // O += P·V_j on the stage of block j, as one wgmma group.
  auto issue_pv = [&](const std::uint32_t (&pa)[kBN / 16][4], int stage) {
    const std::uint32_t sv = skv + stage * L::kStageBytes + L::kKVBytes;
    wgmma_fence();
#pragma unroll
    for (int kj = 0; kj < kBN / 16; ++kj) {
      // V as the MN-major B: 64-column atoms kBN rows of 128 bytes apart; a k16 step is 16 rows.
      mma_o<kBf16, kD>(oacc, pa[kj], desc_at(sv + kj * 16 * kRowBytes, kBN * kRowBytes, 1024));
    }
    wgmma_commit();
  };
  // The online softmax of block j's scores, in place (S becomes P, unnormalised), with the
  // factor alpha by which this thread's O rows must be rescaled; the row sums are updated.
  // Accumulator 4·nt + e: n8 tile nt (keys 8nt + 2t + (e & 1)), row g + 8·(e >> 1).
  auto softmax = [&](float (&sacc)[kBN / 2], int j, float (&alpha)[2]) {
    const int k0 = j * kBN;
    if (k0 + kBN > s || (causal && k0 + kBN - 1 > warp_row0)) {
#pragma unroll
      for (int nt = 0; nt < kBN / 8; ++nt)
#pragma unroll
        for (int e = 0; e < 4; ++e) {
          const int key = k0 + nt * 8 + 2 * t + (e & 1);
          const int row = row0 + (e >> 1) * 8;
          if (key >= s || (causal && key > row)) sacc[4 * nt + e] = -INFINITY;
        }
    }
#pragma unroll
    for (int r = 0; r < 2; ++r) {
      float mx = row_max[r];
#pragma unroll
      for (int nt = 0; nt < kBN / 8; ++nt) mx = fmaxf(mx, fmaxf(sacc[4 * nt + 2 * r], sacc[4 * nt + 2 * r + 1]));
      mx = fmaxf(mx, __shfl_xor_sync(0xffffffffu, mx, 1));
      mx = fmaxf(mx, __shfl_xor_sync(0xffffffffu, mx, 2));
      // A row with every key so far masked keeps max −inf; subtract 0 then, not −inf (NaN).
      const float m_scaled = mx == -INFINITY ? 0.0f : mx * scale_log2;
      alpha[r] = ex2(row_max[r] * scale_log2 - m_scaled);
      row_max[r] = mx;
      float sum = 0.0f;
#pragma unroll
      for (int nt = 0; nt < kBN / 8; ++nt) {
        const float p0 = ex2(fmaf(sacc[4 * nt + 2 * r], scale_log2, -m_scaled));
        const float p1 = ex2(fmaf(sacc[4 * nt + 2 * r + 1], scale_log2, -m_scaled));
        sacc[4 * nt + 2 * r] = p0;
        sacc[4 * nt + 2 * r + 1] = p1;
        sum += p0 + p1;
      }
      row_sum[r] = row_sum[r] * alpha[r] + sum;
    }
  };
  auto rescale_o = [&](const float (&alpha)[2]) {
#pragma unroll
    for (int dt = 0; dt < kD / 8; ++dt)
#pragma unroll
      for (int e = 0; e < 4; ++e) oacc[4 * dt + e] *= alpha[e >> 1];
  };
  // P packed to 16 bits as the A fragments of the k16 steps of P·V: the S accumulators of two
  // adjacent n8 tiles are one step's fragment. Packed apart from the wgmmas: packing between
  // them made ptxas insert a warp-group arrive before each one (C7519).
  auto pack_p = [&](const float (&sacc)[kBN / 2], std::uint32_t (&pa)[kBN / 16][4]) {
#pragma unroll
    for (int kj = 0; kj < kBN / 16; ++kj)
#pragma unroll
      for (int i = 0; i < 4; ++i) pa[kj][i] = pack2<kBf16>(sacc[8 * kj + 2 * i], sacc[8 * kj + 2 * i + 1]);
  };

  // Each block in order: S, softmax, P·V, each wgmma group waited for. FlashAttention-3's
  // intra-warp-group overlap (S_{j+1} issued before P·V_j, its softmax under P·V_j) measured
  // 5-20% slower here (docs/kernels/attention.md, v3-v4): the two consumer warp groups already
  // fill each other's softmax gaps.
  float sacc[kBN / 2];
  std::uint32_t pa[kBN / 16][4];
  float alpha[2];
  Ring ring;
  for (int j = 0; j < kv_blocks; ++j) {
    mbar_wait(full_k + 8 * ring.stage, ring.phase);
    issue_s(sacc, ring.stage);
    wgmma_wait<0>();
    fence_registers(sacc);
    // S has retired for the whole warp group (a wgmma is one warp-group operation): K's slot
    // goes back to the producer, which refills it while this block's P·V runs.
    if (tid == 0) mbar_arrive(empty_k + 8 * ring.stage);
    softmax(sacc, j, alpha);
    rescale_o(alpha);
    pack_p(sacc, pa);
    mbar_wait(full_v + 8 * ring.stage, ring.phase);
    issue_pv(pa, ring.stage);
    wgmma_wait<0>();
    fence_registers(oacc);
    if (tid == 0) mbar_arrive(empty_v + 8 * ring.stage);
    ring.advance();
  }

  T* out = o + static_cast<std::size_t>(head) * s * kD;
#pragma unroll
  for (int r = 0; r < 2; ++r) {
    float sum = row_sum[r];
    sum += __shfl_xor_sync(0xffffffffu, sum, 1);
    sum += __shfl_xor_sync(0xffffffffu, sum, 2);
    const float inv = sum > 0.0f ? 1.0f / sum : 0.0f;
    const int row = row0 + r * 8;
    if (row >= s) continue;
    T* dst = out + static_cast<std::size_t>(row) * kD;
#pragma unroll
    for (int dt = 0; dt < kD / 8; ++dt)
      *reinterpret_cast<std::uint32_t*>(dst + dt * 8 + 2 * t) =
          pack2<kBf16>(oacc[4 * dt + 2 * r] * inv, oacc[4 * dt + 2 * r + 1] * inv);
  }
}

template <bool kBf16, int kD, int C>
cudaError_t launch_config(const FlashAttentionArgs& a, cudaStream_t stream) {
  using L = Layout<kD, C>;
  static const cudaError_t attr = cudaFuncSetAttribute(flash_hopper_kernel<kBf16, kD, C>,
                                                       cudaFuncAttributeMaxDynamicSharedMemorySize, L::kSmemBytes);
  if (attr != cudaSuccess) return attr;
  int device = 0;
  cudaError_t err = cudaGetDevice(&device);
  if (err != cudaSuccess) return err;
  CUtensorMap maps[3];
  const void* tensors[3] = {a.q, a.k, a.v};
  const std::uint32_t box_rows[3] = {static_cast<std::uint32_t>(L::kQRows), kBN, kBN};
  for (int i = 0; i < 3; ++i) {
    err = hopper::tensor_map_3d(maps[i], device, hopper::MapElem::u16, tensors[i], kD, a.s, a.heads, 64, box_rows[i]);
    if (err != cudaSuccess) return err;
  }
  const dim3 grid((a.s + L::kQRows - 1) / L::kQRows, a.heads);
  using T = std::conditional_t<kBf16, __nv_bfloat16, __half>;
  flash_hopper_kernel<kBf16, kD, C><<<grid, L::kThreads, L::kSmemBytes, stream>>>(
      maps[0], maps[1], maps[2], static_cast<T*>(a.o), a.s, a.causal ? 1 : 0, a.scale * 1.4426950408889634f);
  return cudaGetLastError();
}

template <bool kBf16>
cudaError_t launch_typed(const FlashAttentionArgs& a, int consumers, cudaStream_t stream) {
  if (a.d == 64) return consumers == 2 ? launch_config<kBf16, 64, 2>(a, stream) : launch_config<kBf16, 64, 1>(a, stream);
  return consumers == 2 ? launch_config<kBf16, 128, 2>(a, stream) : launch_config<kBf16, 128, 1>(a, stream);
}

}  // namespace

cudaError_t launch(const FlashAttentionArgs& a, int consumers, cudaStream_t stream) {
  if ((a.d != 64 && a.d != 128) || (consumers != 1 && consumers != 2) || a.s < 1 || a.heads < 1 || a.heads > 65535)
    return cudaErrorInvalidValue;
  for (const void* p : {a.q, a.k, a.v, static_cast<const void*>(a.o)})
    if (reinterpret_cast<std::uintptr_t>(p) % 16 != 0) return cudaErrorInvalidValue;
  if (a.dtype == DType::bf16) return launch_typed<true>(a, consumers, stream);
  if (a.dtype == DType::f16) return launch_typed<false>(a, consumers, stream);
  return cudaErrorInvalidValue;
}

}  // namespace assay::kernels::attention_hopper
