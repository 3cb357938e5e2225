// FP8 (e4m3) flash attention forward for Hopper (sm_90a), d = 64, 128 or 256, bf16 out.
//
// The 16-bit kernel's structure (flash_hopper.cu): one producer warp group issuing TMA, C = 1
// or 2 consumer warp groups of 64 query rows, a ring of K and V blocks (2 stages, 3 when V is
// transposed in the kernel) with separate full/empty barriers, online softmax in registers.
// Blocks of 128 keys, or 224 (d = 128, two consumers, Vt from the pre-pass) where a cost model
// says the softmax's fixed work per block, spread over 1.75x the keys, outweighs the keys a
// partial last block masks (flash_dispatch.cpp, fp8_block_keys_by_cost: 4-5% fewer cycles from
// 4k keys non-causal). What FP8 changes:
//
//   K-major only  FP8 wgmma takes no transpose bit: both operands of S = Q·Kᵀ are K-major (d
//                 contiguous, as stored), and P·V needs V with the key contiguous: Vt [d][key].
//                 Two ways, chosen per shape (FlashFp8Config::vt_in_kernel):
//                 - in the kernel: TMA brings a V block [128 keys][d] into a staging slot, the
//                   producer warp group writes it as Vt (ldmatrix.trans, a byte permute,
//                   stmatrix: transpose_v_block) in the 128-byte-swizzled K-major layout the
//                   wgmma reads, and one arrival marks the Vt slot full. No extra launch or
//                   DRAM pass, but per block it costs the consumers 4-14% at 4k-8k keys;
//                 - a pre-pass (transpose_v, inside the call) writes Vt [b·h][d][s padded to
//                   128] to the workspace, zeros past s, and the kernel loads Vt blocks by TMA:
//                   one more launch and 2x V's bytes (30 µs of 720 at (4, 16, 4096, 128), 4 µs
//                   of 12 at (1, 8, 512, 64)).
//   P in regs     The A fragment of an e4m3 k32 step holds 4 consecutive k per register
//                 (row g: k 4t..4t+3 and 16+4t..16+4t+3; row g+8 likewise), while the fp32 S
//                 accumulators hold key pairs 2t, 2t+1 of each n8 tile. Rather than shuffle
//                 registers, the transpose permutes the keys of every 32 in Vt: logical k
//                 16h + 4t + i holds key 16h + 8(i/2) + 2t + (i%2), exactly what the packed S
//                 registers hold. Key order is free in P·V (a sum over keys) as long as P and V
//                 agree, so P packs straight from the accumulators.
//   P's range     e4m3 carries 3 mantissa bits and subnormals from 2^-9: P in [0, 1] loses its
//                 small weights. P is computed as 2^(x - m + 8) against a reference max m
//                 that trails the row's max by at most 0.5 from d = 128 (it moves, and O is
//                 rescaled, only when a block's max exceeds it by more) and is the row's max at
//                 d = 64; the max is taken before the exponent, so P is in [0, 2^8.5 = 362],
//                 inside e4m3's 448: the cast never saturates. The row sum is of the same scaled values, so the 2^8 cancels in O / l.
//   overlap       S_{j+1} and P_j·V_j are issued together and S_{j+1}'s softmax runs under
//                 P_j·V_j (FlashAttention-3's intra-warp-group overlap, overlapped_key_blocks,
//                 shared with the 16-bit kernel): 7% at (4, 16, 4096, 128) over the serial
//                 order. Its ping-pong (named barriers alternating the two consumers' wgmma
//                 issue) measured no change here; the 16-bit kernel keeps it (3-5%).
//   descales      q·k descales fold into the softmax scale, v's into the epilogue's 1 / l;
//                 read in the kernel from the device (per tensor or per (batch, head)).
//   d = 64        a Q/K row is 64 bytes: 64-byte swizzle (tensor_maps.cpp picks it by box
//                 width) with its 512-byte atom; d = 256 is two 128-byte atoms per row.
#include <cuda_bf16.h>

#include <cmath>
#include <cstdint>

#include "kernels/attention/flash_attention_fp8.hpp"
#include "kernels/attention/hopper/attention_wgmma_ops.cuh"
#include "kernels/attention/hopper/flash_hopper_common.cuh"
#include "kernels/gemm/hopper/hopper_ptx.cuh"
#include "kernels/gemm/hopper/tensor_maps.hpp"
#include "kernels/gemm/hopper/wgmma_ops.cuh"
#include "kernels/mma_sync_ptx.cuh"

namespace assay::kernels {

namespace {

using namespace attention_hopper;
using hopper::fence_registers;
using hopper::mbar_arrive;
using hopper::mbar_arrive_expect_tx;
using hopper::mbar_init;
using hopper::mbar_init_fence;
using hopper::mbar_wait;
using hopper::smem_desc_at;
using hopper::smem_u32;
using hopper::tma_load_3d;
using hopper::wgmma_e4m3;
using hopper::wgmma_commit;
using hopper::wgmma_fence;
using hopper::wgmma_wait;

// Keys per row of a Vt atom: one 128-byte swizzle row. The pre-pass writes Vt in blocks of it, and
// the in-kernel transposition takes K/V blocks of exactly it; the kernel's K/V blocks (kBN) are
// 128 or, on the pre-pass path at d = 128, 224 keys (two Vt atoms, the second 96 keys used).
constexpr int kVtKeys = 128;
// setmaxnreg moves registers within the block's allocation, 168 x 384 (the launch bound), so
// producer + 2 x consumer <= 504: a claim beyond it waits forever. The producer, a TMA issuer
// that may also transpose V (ldmatrix/stmatrix), keeps 24; the consumers take 240.
constexpr int kProducerRegs = 24;
constexpr int kConsumerRegs = 240;
constexpr float kPShift = 8.0f;  // P = 2^(x - m + 8) <= 2^(8 + lag) < 448, e4m3's largest (header)
// FlashAttention-4's conditional rescale (move_reference_max) from d = 128: 2-3% fewer cycles at
// d = 128, about 1% at d = 256 (AMBIGUOUS); at d = 64, whose O is 32 registers a thread, the warp vote costs more
// than the multiplies it skips (3.5% more at s = 512). The lag that keeps P ≤ 2^8.5 = 362.
template <int kD>
constexpr bool kLazyRescale = kD >= 128;
template <int kD>
constexpr float kMaxLag = kLazyRescale<kD> ? 0.5f : 0.0f;

template <int kD, int C, bool kVtInKernel, int kBN>
struct Layout {
  // K/Vt ring stages. V transposed in the kernel: 3, so that the producer may transpose block j
  // while the consumers still read Vt of j - 2 (with 2 it had half a block's time, and the
  // consumers waited: 3 took 2-4% off the long shapes, 4 nothing more); with Vt from the
  // pre-pass 2 (4 measured the same).
  static constexpr int kStages = kVtInKernel ? 3 : 2;
  static constexpr int kRowBytes = kD < 128 ? kD : 128;  // one swizzle row of Q or K
  static constexpr int kAtoms = kD / kRowBytes;          // swizzled sub-tiles across d
  static constexpr std::uint64_t kSwizzle = kRowBytes == 128 ? 1 : 2;  // descriptor: 128 B or 64 B
  static constexpr int kQRows = 64 * C;
  static constexpr int kQBytes = kQRows * kD;
  static_assert(kBN % 32 == 0 && (!kVtInKernel || kBN == kVtKeys), "k32 steps; the transposition takes 128 keys");
  static constexpr int kKBytes = kBN * kD;  // a K block (and a staged V block: kBN = 128)
  static constexpr int kVtAtoms = (kBN + kVtKeys - 1) / kVtKeys;
  static constexpr int kVtBytes = kVtAtoms * kVtKeys * kD;  // a Vt block: per atom d rows of 128 keys
  static constexpr int kStageBytes = kKBytes + kVtBytes;    // K and Vt
  static constexpr int kStagingOffset = kQBytes + kStages * kStageBytes;  // V as loaded (in-kernel transpose)
  static constexpr int kBarrierOffset = kStagingOffset + (kVtInKernel ? kStages * kKBytes : 0);
  static constexpr int kSmemBytes = kBarrierOffset + 8 * (1 + 5 * kStages) + 1024;
  static_assert(kQBytes % 1024 == 0 && kStageBytes % 1024 == 0 && kKBytes % 1024 == 0,
                "K, Vt and staged V slots 1024-byte aligned (the swizzle atoms; transpose_v_block)");
  static constexpr int kThreads = 128 * (C + 1);
  static_assert(kSmemBytes <= 227 * 1024, "the ring and Q exceed shared memory");
};

// Four floats to e4m3 (round to nearest, saturating), `a` in the lowest byte.
__device__ __forceinline__ std::uint32_t pack4_e4m3(float a, float b, float c, float d) {
  std::uint16_t lo, hi;
  asm("cvt.rn.satfinite.e4m3x2.f32 %0, %1, %2;" : "=h"(lo) : "f"(b), "f"(a));
  asm("cvt.rn.satfinite.e4m3x2.f32 %0, %1, %2;" : "=h"(hi) : "f"(d), "f"(c));
  return static_cast<std::uint32_t>(lo) | (static_cast<std::uint32_t>(hi) << 16);
}

// The key that logical position p (0..127) of a Vt block row holds (header: P in regs).
__host__ __device__ constexpr int vt_key(int p) {
  const int q = p % 32, i = q % 4;
  return p - q + 16 * (q / 16) + 8 * (i / 2) + 2 * ((q % 16) / 4) + (i % 2);
}

// Vt[h][e][128·blk + p] = V[h][128·blk + vt_key(p)][e], 0 for keys past s. One block per 128
// keys of a head: the keys' rows in, coalesced, through shared memory, d rows of 128 out.
template <int kD>
__global__ void __launch_bounds__(256) transpose_v(const std::uint8_t* __restrict__ v, std::uint8_t* __restrict__ vt,
                                                  int s, int s_pad) {
  constexpr int kPitch = kD + 4;  // keeps a column's bytes off one bank
  __shared__ __align__(16) std::uint8_t tile[kVtKeys * kPitch];
  const int head = blockIdx.y, k0 = blockIdx.x * kVtKeys;
  const std::uint8_t* src = v + static_cast<std::size_t>(head) * s * kD;
  for (int c = threadIdx.x; c < kVtKeys * kD / 16; c += blockDim.x) {
    const int r = c / (kD / 16), col = (c % (kD / 16)) * 16;
    uint4 x = make_uint4(0, 0, 0, 0);
    if (k0 + r < s) x = *reinterpret_cast<const uint4*>(src + static_cast<std::size_t>(k0 + r) * kD + col);
    auto* dst = reinterpret_cast<std::uint32_t*>(&tile[r * kPitch + col]);
    dst[0] = x.x;
    dst[1] = x.y;
    dst[2] = x.z;
    dst[3] = x.w;
  }
  __syncthreads();
  std::uint8_t* out = vt + static_cast<std::size_t>(head) * kD * s_pad + k0;
  for (int c = threadIdx.x; c < kD * 8; c += blockDim.x) {
    const int e = c / 8, chunk = c % 8;  // 16 keys of row e
    std::uint32_t w[4];
#pragma unroll
    for (int i = 0; i < 4; ++i) {
      w[i] = 0;
#pragma unroll
      for (int b = 0; b < 4; ++b) {
        // vt_key(16·chunk + j) = 32·(chunk/2) + vt_key(16·(chunk%2) + j): the constant part unrolls.
        const int key = 32 * (chunk / 2) + ((chunk % 2) ? vt_key(16 + 4 * i + b) : vt_key(4 * i + b));
        w[i] |= static_cast<std::uint32_t>(tile[key * kPitch + e]) << (8 * b);
      }
    }
    *reinterpret_cast<uint4*>(out + static_cast<std::size_t>(e) * s_pad + chunk * 16) = make_uint4(w[0], w[1], w[2], w[3]);
  }
}

// The producer warp group's transpose of one staged V block into a Vt slot (header), as
// FlashAttention-3 does it: a unit is 32 keys by 16 bytes of d. ldmatrix.x4.trans reads it as four
// 8 x 8 b16 matrices (keys 32g + 8i..8i+7, lane l addressing key 32g + 8(l/8) + l%8), leaving lane
// l the b16 column l/4 (d bytes 16c + 2(l/4), +1) of keys 32g + 8i + 2(l%4), +1: matrices 2h and
// 2h + 1 together hold, per d byte, exactly the four keys that Vt's permuted logical positions
// 16h + 4(l%4)..+3 hold (vt_key), so one byte permute per d row makes the 4-byte word, and
// stmatrix.x4 writes the four 8-row matrices (even and odd d rows, by h) into the 128-byte-swizzled
// Vt rows. Six instructions a 512-byte unit and a handful of registers: the producer keeps the 24
// that leave the consumers 240 (the pre-pass build with its consumers cut to 224 ran 7-10% slower
// at 128-key blocks; the 16-byte-load transposition this replaced needed 56 producer registers,
// and its path ran 23-42% slower than the pre-pass at long sequences).
template <int kD, int kRB>
__device__ __forceinline__ void transpose_v_block(std::uint32_t staged, std::uint32_t vt, int tid) {
  static_assert(kRB == kD, "one swizzle atom across d (d <= 128)");
  // ldmatrix and stmatrix are .aligned: the whole warp converged. Warp 0's lane 0 may come from
  // issuing a K load (load_k's wait) while its other lanes went straight to the block's waits.
  __syncwarp();
  // Warp w takes the 32-key group g = w and every chunk c of d; everything but c is fixed per lane.
  const int g = tid / 32, lane = tid % 32, m = lane / 8, r = lane % 8;
  // The staged block is TMA's swizzled atom of 128 keys x kRB bytes: the 128-byte swizzle XORs
  // address bits 4-6 with bits 7-9 (the key's low 3 bits), the 64-byte one bits 4-5 with 7-8 (key
  // bits 1-2). That term depends on r only, and in the row's address the bits it XORs (4-6, or
  // 4-5) are clear (the slot is 1024-byte aligned, rows kRB bytes), so the XOR applies to the
  // address: chunk c of key 32g + 8m + r (ldmatrix's matrix m, row r) is at ld ^ 16c.
  const std::uint32_t ld = (staged + (32 * g + 8 * m + r) * kRB) ^ ((kRB == 128 ? r : (r >> 1) & 3) << 4);
  // stmatrix's matrix m, row r: d row 16c + 2r + (m % 2), logical keys 32g + 16(m / 2)..+15 (one
  // 16-byte chunk of the Vt row).
  const int e = 2 * r + (m & 1);  // the d row within the chunk's 16, and its swizzle row (e % 8)
  const std::uint32_t st = vt + e * 128 + (((2 * g + (m >> 1)) ^ (e % 8)) * 16);
#pragma unroll 1
  for (int c = 0; c < kD / 16; ++c) {
    std::uint32_t in[4], out[4];
    ldmatrix_x4_trans(in, ld ^ (c << 4));
#pragma unroll
    for (int h = 0; h < 2; ++h) {
      out[2 * h] = __byte_perm(in[2 * h], in[2 * h + 1], 0x6420);      // even d byte: keys k, k+1, k+8, k+9
      out[2 * h + 1] = __byte_perm(in[2 * h], in[2 * h + 1], 0x7531);  // odd d byte
    }
    hopper::stmatrix_x4(st + c * 16 * 128, out);
  }
}

// Named barrier 1 (0 is __syncthreads): the producer warp group's 128 threads. Not bar.sync,
// which is barrier.sync.aligned: warp 0 arrives diverged (thread 0 issues the TMAs), and the
// aligned form hung there.
__device__ __forceinline__ void producer_sync() { asm volatile("barrier.sync 1, 128;" ::: "memory"); }

template <int kD, int C, bool kVtInKernel, int kBN>
__global__ void __launch_bounds__(Layout<kD, C, kVtInKernel, kBN>::kThreads, 1)
    flash_fp8_kernel(const __grid_constant__ CUtensorMap map_q, const __grid_constant__ CUtensorMap map_k,
                     const __grid_constant__ CUtensorMap map_v, __nv_bfloat16* __restrict__ o,  // map_v: V, or Vt (pre-pass)
                     const float* __restrict__ q_descale, const float* __restrict__ k_descale,
                     const float* __restrict__ v_descale, int per_head, int s, int causal, float scale_log2) {
  using L = Layout<kD, C, kVtInKernel, kBN>;
  constexpr int kRB = L::kRowBytes;
  constexpr int kStages = L::kStages;
  using Ring = hopper::Ring<kStages>;
  extern __shared__ unsigned char smem_raw[];
  unsigned char* smem =
      reinterpret_cast<unsigned char*>((reinterpret_cast<std::uintptr_t>(smem_raw) + 1023) & ~std::uintptr_t(1023));
  const std::uint32_t sq = smem_u32(smem);
  const std::uint32_t skv = sq + L::kQBytes;
  const std::uint32_t q_full = sq + L::kBarrierOffset;
  const std::uint32_t full_k = q_full + 8, full_v = full_k + 8 * kStages;
  const std::uint32_t empty_k = full_v + 8 * kStages, empty_v = empty_k + 8 * kStages;
  const std::uint32_t staged_full = empty_v + 8 * kStages;

  const int warp_group = __shfl_sync(0xffffffffu, static_cast<int>(threadIdx.x / 128), 0);
  const int tid = threadIdx.x % 128;
  const int qb = causal ? static_cast<int>(gridDim.x - 1 - blockIdx.x) : static_cast<int>(blockIdx.x);
  const int head = blockIdx.y;
  const int q0 = qb * L::kQRows;
  const int kv_end = causal ? min(q0 + L::kQRows, s) : s;
  const int kv_blocks = (kv_end + kBN - 1) / kBN;

  if (threadIdx.x == 0) {
    hopper::prefetch_tensor_map(&map_q);
    hopper::prefetch_tensor_map(&map_k);
    hopper::prefetch_tensor_map(&map_v);
    auto* bars = reinterpret_cast<std::uint64_t*>(smem + L::kBarrierOffset);
    mbar_init(&bars[0], 1);
    for (int st = 0; st < kStages; ++st) {
      mbar_init(&bars[1 + st], 1);
      mbar_init(&bars[1 + kStages + st], 1);
      mbar_init(&bars[1 + 2 * kStages + st], C);
      mbar_init(&bars[1 + 3 * kStages + st], C);
      mbar_init(&bars[1 + 4 * kStages + st], 1);  // staged_full: the producer's arrival + TMA bytes
    }
    mbar_init_fence();
  }
  __syncthreads();

  if (warp_group == 0) {
    if constexpr (C > 1) hopper::regs_release<kProducerRegs>();
    // Thread 0 issues every TMA: Q, K one block ahead of the consumers' use, V into the staging
    // slot of its Vt slot. Block j is in slot j % kStages of both, in the slot's use j / kStages:
    // stage and phase come from j, which keeps the producer's live registers within its 24.
    auto load_k = [&](int block) {
      const int stage = block % kStages;
      mbar_wait(empty_k + 8 * stage, ((block / kStages) & 1) ^ 1);
      mbar_arrive_expect_tx(full_k + 8 * stage, L::kKBytes);
#pragma unroll
      for (int a = 0; a < L::kAtoms; ++a)
        tma_load_3d(skv + stage * L::kStageBytes + a * kBN * kRB, &map_k, full_k + 8 * stage, a * kRB, block * kBN, head);
    };
    auto load_v = [&](int block, int slot) {
      const std::uint32_t dst = sq + L::kStagingOffset + slot * L::kKBytes;
      mbar_arrive_expect_tx(staged_full + 8 * slot, L::kKBytes);
#pragma unroll
      for (int a = 0; a < L::kAtoms; ++a)
        tma_load_3d(dst + a * kBN * kRB, &map_v, staged_full + 8 * slot, a * kRB, block * kBN, head);
    };
    if (tid == 0) {
      mbar_arrive_expect_tx(q_full, L::kQBytes);
#pragma unroll
      for (int a = 0; a < L::kAtoms; ++a) tma_load_3d(sq + a * L::kQRows * kRB, &map_q, q_full, a * kRB, q0, head);
      load_k(0);
    }
    if constexpr (!kVtInKernel) {
      // Vt from the pre-pass: per block one box of d rows x 128 keys per atom (a 224-key block's
      // second box reads 32 keys of the next block, or zeros past the workspace), K running one
      // block ahead.
      if (tid == 0) {
        Ring rv;
        for (int j = 0; j < kv_blocks; ++j) {
          if (j + 1 < kv_blocks) load_k(j + 1);
          mbar_wait(empty_v + 8 * rv.stage, rv.phase ^ 1);
          mbar_arrive_expect_tx(full_v + 8 * rv.stage, L::kVtBytes);
#pragma unroll
          for (int a = 0; a < L::kVtAtoms; ++a)
            tma_load_3d(skv + rv.stage * L::kStageBytes + L::kKBytes + a * kVtKeys * kD, &map_v, full_v + 8 * rv.stage,
                        j * kBN + a * kVtKeys, 0, head);
          rv.advance();
        }
      }
    } else {
      if (tid == 0)
        for (int j = 0; j < kStages && j < kv_blocks; ++j) load_v(j, j);
      for (int j = 0; j < kv_blocks; ++j) {
        if (tid == 0 && j + 1 < kv_blocks) load_k(j + 1);
        const int stage = j % kStages;
        const unsigned phase = (j / kStages) & 1;
        mbar_wait(staged_full + 8 * stage, phase);
        mbar_wait(empty_v + 8 * stage, phase ^ 1);
        transpose_v_block<kD, kRB>(sq + L::kStagingOffset + stage * L::kKBytes, skv + stage * L::kStageBytes + L::kKBytes,
                                   tid);
        // The generic-proxy writes of Vt before the wgmmas (async proxy) read them; the staging
        // slot's reads before the next TMA overwrites it.
        hopper::fence_proxy_async_smem();
        producer_sync();
        if (tid == 0) {
          mbar_arrive(full_v + 8 * stage);
          if (j + kStages < kv_blocks) load_v(j + kStages, stage);
        }
      }
    }
    return;
  }

  if constexpr (C > 1) hopper::regs_claim<kConsumerRegs>();
  const int consumer = warp_group - 1;
  const int warp = tid / 32, lane = tid % 32, g = lane / 4, t = lane % 4;
  const int warp_row0 = q0 + consumer * 64 + warp * 16;
  const int row0 = warp_row0 + g;
  const int scale_index = per_head ? head : 0;
  const float sl = scale_log2 * q_descale[scale_index] * k_descale[scale_index];
  const float v_descale_here = v_descale[scale_index];

  float oacc[kD / 2];
#pragma unroll
  for (int i = 0; i < kD / 2; ++i) oacc[i] = 0.0f;
  float row_max[2] = {-INFINITY, -INFINITY};
  float row_sum[2] = {0.0f, 0.0f};
  const std::uint32_t q_addr = sq + consumer * 64 * kRB;
  mbar_wait(q_full, 0);

  auto issue_s = [&](float (&sacc)[kBN / 2], int stage) {
    const std::uint32_t sk = skv + stage * L::kStageBytes;
    wgmma_fence();
#pragma unroll
    for (int kk = 0; kk < kD / 32; ++kk) {
      // A k32 step is 32 bytes along a swizzled row; past a row, the next atom.
      const int atom = kk / (kRB / 32), off = (kk % (kRB / 32)) * 32;
      const std::uint64_t da = smem_desc_at(q_addr + atom * L::kQRows * kRB + off, 16, 8 * kRB, L::kSwizzle);
      const std::uint64_t db = smem_desc_at(sk + atom * kBN * kRB + off, 16, 8 * kRB, L::kSwizzle);
      wgmma_e4m3<kBN>(sacc, da, db, kk > 0 ? 1 : 0);  // the GEMM's: both K-major
    }
    wgmma_commit();
  };
  auto issue_pv = [&](const std::uint32_t (&pa)[kBN / 32][4], int stage) {
    const std::uint32_t sv = skv + stage * L::kStageBytes + L::kKBytes;
    wgmma_fence();
#pragma unroll
    for (int kj = 0; kj < kBN / 32; ++kj)  // Vt atoms: d rows of 128 bytes; a k32 step is 32 of them
      wgmma_rs_kk_e4m3<kD>(oacc, pa[kj], smem_desc_at(sv + (kj / 4) * kVtKeys * kD + (kj % 4) * 32, 16, 1024), 1);
    wgmma_commit();
  };
  // Online softmax in the log2 domain; P = 2^(x·sl - m·sl + 8) (header: P's range).
  auto softmax = [&](float (&sacc)[kBN / 2], int j, float (&alpha)[2]) {
    mask_block<kBN>(sacc, j * kBN, s, causal, warp_row0, row0, t);
#pragma unroll
    for (int r = 0; r < 2; ++r) {
      const float mx = quad_max(row_max_of<kBN>(sacc, r, row_max[r]));
      alpha[r] = move_reference_max<kLazyRescale<kD>>(row_max[r], mx, sl, kMaxLag<kD>);
      const float m_scaled = row_max[r] == -INFINITY ? 0.0f : row_max[r] * sl;
      row_sum[r] = row_sum[r] * alpha[r] + exp2_row<kBN>(sacc, r, sl, kPShift - m_scaled);
    }
  };
  // k32 step kj covers n8 tiles 4kj..4kj+3; register r of its A fragment takes, for row g
  // (r = 0, 2) or g + 8 (r = 1, 3), the key pairs of tiles 4kj + 2(r/2) and 4kj + 2(r/2) + 1.
  auto pack_p = [&](const float (&sacc)[kBN / 2], std::uint32_t (&pa)[kBN / 32][4]) {
#pragma unroll
    for (int kj = 0; kj < kBN / 32; ++kj)
#pragma unroll
      for (int r = 0; r < 4; ++r) {
        const int n0 = 4 * (4 * kj + 2 * (r / 2)), n1 = n0 + 4, e = 2 * (r % 2);
        pa[kj][r] = pack4_e4m3(sacc[n0 + e], sacc[n0 + e + 1], sacc[n1 + e], sacc[n1 + e + 1]);
      }
  };

  float sacc[kBN / 2];
  std::uint32_t pa[kBN / 32][4];
  float alpha[2];
  // S_{j+1} and P_j·V_j issued together; the softmax of S_{j+1} runs while P_j·V_j (and,
  // with two consumers, the other warp group's pair) occupies the tensor cores. P_{j+1} is
  // packed once P_j·V_j has retired: the wgmma reads its A registers until then.
  overlapped_key_blocks<kStages, kLazyRescale<kD>>(0, kv_blocks, KvBarriers{full_k, full_v, empty_k, empty_v}, tid == 0, sacc, oacc, pa,
                                 alpha, issue_s, issue_pv, softmax, pack_p, [] {}, [](bool) {});

  __nv_bfloat16* out = o + static_cast<std::size_t>(head) * s * kD;
#pragma unroll
  for (int r = 0; r < 2; ++r) {
    const float sum = quad_sum(row_sum[r]);
    const float inv = sum > 0.0f ? v_descale_here / sum : 0.0f;
    const int row = row0 + r * 8;
    if (row >= s) continue;
    __nv_bfloat16* dst = out + static_cast<std::size_t>(row) * kD;
#pragma unroll
    for (int dt = 0; dt < kD / 8; ++dt) {
      const __nv_bfloat162 h = __floats2bfloat162_rn(oacc[4 * dt + 2 * r] * inv, oacc[4 * dt + 2 * r + 1] * inv);
      *reinterpret_cast<__nv_bfloat162*>(dst + dt * 8 + 2 * t) = h;
    }
  }
}

template <int kD, int C, bool kVtInKernel, int kBN = kVtKeys>
cudaError_t launch_config(const FlashFp8Args& a, cudaStream_t stream) {
  using L = Layout<kD, C, kVtInKernel, kBN>;
  static const cudaError_t attr = cudaFuncSetAttribute(flash_fp8_kernel<kD, C, kVtInKernel, kBN>,
                                                       cudaFuncAttributeMaxDynamicSharedMemorySize, L::kSmemBytes);
  if (attr != cudaSuccess) return attr;
  int device = 0;
  cudaError_t err = cudaGetDevice(&device);
  if (err != cudaSuccess) return err;
  CUtensorMap map_q, map_k, map_v;
  using hopper::MapElem;
  if ((err = hopper::tensor_map_3d(map_q, device, MapElem::u8, a.q, kD, a.s, a.heads, L::kRowBytes, L::kQRows)) !=
          cudaSuccess ||
      (err = hopper::tensor_map_3d(map_k, device, MapElem::u8, a.k, kD, a.s, a.heads, L::kRowBytes, kBN)) !=
          cudaSuccess)
    return err;
  if constexpr (kVtInKernel) {
    err = hopper::tensor_map_3d(map_v, device, MapElem::u8, a.v, kD, a.s, a.heads, L::kRowBytes, kBN);
  } else {
    const int s_pad = (a.s + kVtKeys - 1) / kVtKeys * kVtKeys;
    transpose_v<kD><<<dim3(s_pad / kVtKeys, a.heads), 256, 0, stream>>>(
        static_cast<const std::uint8_t*>(a.v), static_cast<std::uint8_t*>(a.workspace), a.s, s_pad);
    if ((err = cudaGetLastError()) != cudaSuccess) return err;
    err = hopper::tensor_map_3d(map_v, device, MapElem::u8, a.workspace, s_pad, kD, a.heads, kVtKeys, kD);
  }
  if (err != cudaSuccess) return err;
  const dim3 grid((a.s + L::kQRows - 1) / L::kQRows, a.heads);
  flash_fp8_kernel<kD, C, kVtInKernel, kBN><<<grid, L::kThreads, L::kSmemBytes, stream>>>(
      map_q, map_k, map_v, static_cast<__nv_bfloat16*>(a.o), a.q_descale, a.k_descale, a.v_descale,
      a.per_head_scales ? 1 : 0, a.s, a.causal ? 1 : 0, a.scale * 1.4426950408889634f);
  return cudaGetLastError();
}

template <int kD, bool kVtInKernel>
cudaError_t launch_d(const FlashFp8Args& a, int consumers, cudaStream_t stream) {
  return consumers == 2 ? launch_config<kD, 2, kVtInKernel>(a, stream) : launch_config<kD, 1, kVtInKernel>(a, stream);
}

}  // namespace

cudaError_t launch_flash_attention_fp8(const FlashFp8Args& a, const FlashFp8Config& c, cudaStream_t stream) {
  if (!flash_fp8_unsupported(a.heads, a.s, a.d).empty() || (c.consumers != 1 && c.consumers != 2) ||
      (c.vt_in_kernel && a.d == 256) || (!c.vt_in_kernel && a.workspace == nullptr) ||
      (c.block_keys != 128 && (c.block_keys != 224 || a.d != 128 || c.consumers != 2 || c.vt_in_kernel)))
    return cudaErrorInvalidValue;
  for (const void* p : {a.q, a.k, a.v, static_cast<const void*>(a.o), static_cast<const void*>(a.workspace)})
    if (reinterpret_cast<std::uintptr_t>(p) % 16 != 0) return cudaErrorInvalidValue;
  if (!a.q || !a.k || !a.v || !a.o || !a.q_descale || !a.k_descale || !a.v_descale) return cudaErrorInvalidValue;
  int device = 0;
  const cudaError_t err = cudaGetDevice(&device);
  if (err != cudaSuccess) return err;
  if (!hopper::device_facts(device).hopper) return cudaErrorInvalidValue;
  if (a.d == 256) return launch_d<256, false>(a, c.consumers, stream);
  if (c.vt_in_kernel) return a.d == 64 ? launch_d<64, true>(a, c.consumers, stream) : launch_d<128, true>(a, c.consumers, stream);
  if (c.block_keys == 224) return launch_config<128, 2, false, 224>(a, stream);
  return a.d == 64 ? launch_d<64, false>(a, c.consumers, stream) : launch_d<128, false>(a, c.consumers, stream);
}

}  // namespace assay::kernels
