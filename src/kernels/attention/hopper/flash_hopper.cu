// Flash attention forward for Hopper (sm_90a), f16 and bf16, d = 64, 128 or 256.
//
//   CTA        one producer warp group (one thread issues TMA) and C consumer warp groups
//              (C = 1 or 2) of 64 query rows each; grid (query blocks of 64·C rows, b·h);
//              causal grids run the longest (last) query blocks first
//   tensors    Q, K, V through 3-D tensor maps [b·h][s][d] with the 128-byte swizzle: a box
//              never reaches into the next head, rows past s arrive as zeros. A row of d = 128
//              is two 64-column boxes ("atoms"), each its own swizzled [rows][64] sub-tile
//   ring       2 stages of a K block and a V block (128 keys each; 80 at d = 256, whose 64 KiB
//              of Q leave 160 KiB for the ring), with separate full and
//              empty barriers for K and V: the producer loads K one block ahead of V, a K slot
//              is released (one arrival per consumer) once its S has retired, a V slot once
//              its P·V has
//   residency  d = 64 with one consumer: three CTAs per SM (80 registers at launch, setmaxnreg
//              24 producer / 136 consumer); the others one (Registers, below)
//   S = Q·Kᵀ   wgmma m64n128k16 (n80 at d = 256; two n64 halves in the three-CTA instance),
//              A = Q and B = K from shared memory, both K-major (d contiguous)
//   softmax    online in registers, log2 domain with the scale folded in (ex2.approx), the row
//              max and sum over the 4 lanes of a quad; masked keys (past s, causal j > i) are
//              −inf, tested only in blocks that cross s or the diagonal
//   O += P·V   wgmma m64n{d}k16 with A = P from registers (the S accumulators of two adjacent
//              n8 tiles are the A fragment of one k16 step) and B = V from shared memory,
//              MN-major (V is [key][d]; the instruction's transpose bit)
//   epilogue   O / l, rounded to the input type, stored from registers (4-byte pairs)
//   split-KV   (the kSplit instances, one consumer) with grid.z = S in {2, 4, 8}, the S CTAs of
//              a query block form a cluster (1, 1, S) and CTA z takes the z-th share of its key
//              blocks: a small problem then fills the SMs instead of running one CTA's serial
//              loop (flash_dispatch.cpp picks S where the query blocks leave SMs idle). Merged
//              through distributed shared memory, with no workspace and no second kernel: CTA
//              rank r owns rows [r·R/S, (r+1)·R/S); after a cluster barrier (the rings are free)
//              every CTA stores its unnormalised O rows (fp32) and their (max, sum) into the
//              owners' rings, and after a second one each owner merges its rows (log-sum-exp)
//              from its own shared memory and stores them
//
// Overlap. Two consumers (d = 128, 256) run FlashAttention-3's schedule: within a warp group
// the softmax of S_{j+1} under P_j·V_j, and the two warp groups issuing their wgmmas in turns
// ("ping-pong", named barriers); 6-11% and a further 3-5% at the long shapes (v10,
// docs/kernels/attention.md). One consumer (d = 64, three CTAs per SM) is serial within the
// warp group: the schedule does not fit its registers, and the other CTAs fill the gaps.
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
using hopper::smem_desc_at;
using hopper::smem_u32;
using hopper::tma_load_3d;
using hopper::wgmma_commit;
using hopper::wgmma_fence;
using hopper::wgmma_wait;

constexpr int kStages = 2;     // K/V blocks in flight
constexpr int kRowBytes = 128; // one swizzle row: 64 elements of d
constexpr int kProducerRegs = 24;

using Ring = hopper::Ring<kStages>;

template <int kD, int C>
struct Layout {
  static constexpr int kBN = block_keys(kD);
  static constexpr int kAtoms = kD / 64;
  static constexpr int kQRows = 64 * C;
  static constexpr int kQBytes = kQRows * kD * 2;
  static constexpr int kKVBytes = kBN * kD * 2;  // one K or one V block
  static constexpr int kStageBytes = 2 * kKVBytes;
  static constexpr int kBarrierOffset = kQBytes + kStages * kStageBytes;
  static constexpr int kSmemBytes = kBarrierOffset + 8 * (1 + 4 * kStages) + 1024;  // + alignment slack
  static constexpr int kThreads = 128 * (C + 1);
  static_assert(kSmemBytes <= 227 * 1024, "the ring and Q exceed shared memory");
  // Split-KV's merge leaves O (fp32, rows padded by 4) and each row's (max, sum) in the ring.
  static constexpr bool kRingHoldsPartials = kQRows * ((kD + 4) * 4 + 8) <= kStages * kStageBytes;
};

// CTAs per SM the registers are sized for, and their split between the warp groups. d = 64 with
// one consumer (73 KiB of shared memory): three, launched at 80 registers a thread; the producer
// gives 56 back (setmaxnreg) and the consumer takes them (136): 0.85-0.93x the time of two CTAs
// at 128 registers each on 26 of the 27-point matrix's points (docs/kernels/attention.md, "Three
// CTAs per SM").
// The split-KV instance keeps two: its grids are small by construction (its rule splits only
// where the query blocks leave SMs idle). Two consumers: one CTA, the producer's registers to them.
template <int kD, int C, bool kSplit>
struct Registers {
  static constexpr int kThreads = 128 * (C + 1);
  static constexpr int kMinBlocks = kD == 64 && C == 1 ? (kSplit ? 2 : 3) : 1;
  static constexpr bool kReallocates = C > 1 || kMinBlocks > 2;
  static constexpr int kLaunchRegs = 65536 / (kThreads * kMinBlocks) / 8 * 8;
  // A consumer thread's share of the CTA's registers once the producer holds only its 24 (steps
  // of 8), capped at 240.
  static constexpr int kConsumerShare = (kLaunchRegs * kThreads - kProducerRegs * 128) / (128 * C) / 8 * 8;
  static constexpr int kConsumerRegs = kConsumerShare < 240 ? kConsumerShare : 240;
  static_assert(!kReallocates || kConsumerRegs >= kLaunchRegs, "the consumers must not give registers back");
  // ptxas checks each instruction against the launch's register count, not the consumer's: an
  // n128 wgmma's 64 accumulators do not fit 80, so S is then issued as two n64 halves.
  static constexpr bool kSHalves = kLaunchRegs < 96;
  // FlashAttention-3's schedule (the consumer loop) holds S, P and O at once: with two
  // consumers' 240 registers it fits; at one consumer's 136 or 128 ptxas spills and serialises
  // the wgmmas (C7512), so the one-consumer instances keep the serial order.
  static constexpr bool kOverlap = C > 1;
};

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

// Distributed shared memory: `addr` (this CTA's shared window) in CTA `rank` of the cluster.
__device__ __forceinline__ std::uint32_t map_rank(std::uint32_t addr, unsigned rank) {
  std::uint32_t r;
  asm volatile("mapa.shared::cluster.u32 %0, %1, %2;" : "=r"(r) : "r"(addr), "r"(rank));
  return r;
}
__device__ __forceinline__ float2 ld_shared_f2(std::uint32_t addr) {
  float2 v;
  asm volatile("ld.shared.v2.f32 {%0, %1}, [%2];" : "=f"(v.x), "=f"(v.y) : "r"(addr));
  return v;
}
__device__ __forceinline__ float4 ld_shared_f4(std::uint32_t addr) {
  float4 v;
  asm volatile("ld.shared.v4.f32 {%0, %1, %2, %3}, [%4];" : "=f"(v.x), "=f"(v.y), "=f"(v.z), "=f"(v.w) : "r"(addr));
  return v;
}
__device__ __forceinline__ void st_cluster_f2(std::uint32_t addr, float x, float y) {
  asm volatile("st.shared::cluster.v2.f32 [%0], {%1, %2};" ::"r"(addr), "f"(x), "f"(y) : "memory");
}

template <bool kBf16, int kBN>
__device__ __forceinline__ void mma_s(float (&d)[kBN / 2], std::uint64_t a, std::uint64_t b, int accumulate) {
  if constexpr (kBf16) wgmma_ss_kk_bf16<kBN>(d, a, b, accumulate);
  else wgmma_ss_kk_f16<kBN>(d, a, b, accumulate);
}
template <bool kBf16, int kD>
__device__ __forceinline__ void mma_o(float (&d)[kD / 2], const std::uint32_t (&a)[4], std::uint64_t b) {
  if constexpr (kBf16) wgmma_rs_mn_bf16<kD>(d, a, b, 1);
  else wgmma_rs_mn_f16<kD>(d, a, b, 1);
}

// Split-KV's merge (see the header), called by every consumer thread of each CTA of the cluster
// after its key blocks; o, s, causal and scale_log2 are the kernel's parameters. CTA rank r owns
// rows [r·R/S, (r+1)·R/S) of the query block; every CTA pushes its partial rows (unnormalised O
// in fp32, and the row's (max·scale_log2, sum)) into the owner's ring, slot = its own rank,
// with remote stores, which do not wait for a reply; after a cluster barrier each owner merges
// from its own shared memory. (Pulling the peers' rows with remote loads instead cost several
// µs: each load waits for its round trip.) The thread's rows and the block's position are
// recomputed from the thread and block indices rather than kept live across the key loop
// (carrying them cost the d = 128 kernel three spilled registers).
template <bool kBf16, int kD, int C>
__device__ __forceinline__ void merge_split_kv(unsigned char* ring, const float (&oacc)[kD / 2],
                                               const float (&row_max)[2], const float (&row_sum)[2],
                                               std::conditional_t<kBf16, __nv_bfloat16, __half>* o, int s, int causal,
                                               float scale_log2) {
  constexpr int kRows = 64 * C, kMaxSplits = 8;
  constexpr int kPitch = kD + 4;  // floats per partial row: 16-byte rows, fewer bank conflicts
  const int splits = static_cast<int>(gridDim.z), rows = kRows / splits;
  const unsigned rank = hopper::cluster_rank();
  const int tid = static_cast<int>(threadIdx.x) % 128, t = tid % 4;
  const int lrow = (static_cast<int>(threadIdx.x) / 128 - 1) * 64 + (tid / 32) * 16 + (tid % 32) / 4;
  // Slot z of the owner's ring: rows × kPitch floats of partial O from rank z, then the stats.
  const std::uint32_t part_addr = hopper::smem_u32(ring), stats_addr = part_addr + kRows * kPitch * 4;
  hopper::cluster_sync();  // every CTA of the cluster is past its last P·V: the rings are free
#pragma unroll
  for (int r = 0; r < 2; ++r) {
    const float sum = quad_sum(row_sum[r]);
    const int row = lrow + 8 * r, owner = row / rows, slot_row = static_cast<int>(rank) * rows + row % rows;
    const std::uint32_t dst = map_rank(part_addr + slot_row * kPitch * 4, static_cast<unsigned>(owner));
#pragma unroll
    for (int dt = 0; dt < kD / 8; ++dt) st_cluster_f2(dst + (dt * 8 + 2 * t) * 4, oacc[4 * dt + 2 * r], oacc[4 * dt + 2 * r + 1]);
    if (t == 0)
      st_cluster_f2(map_rank(stats_addr + slot_row * 8, static_cast<unsigned>(owner)),
                    row_max[r] == -INFINITY ? -INFINITY : row_max[r] * scale_log2, sum);
  }
  hopper::cluster_sync();  // the pushes are visible (release / acquire at cluster scope)
  const int qb = causal ? static_cast<int>(gridDim.x - 1 - blockIdx.x) : static_cast<int>(blockIdx.x);
  const int first = qb * kRows + static_cast<int>(rank) * rows;  // the first row this CTA owns
  auto* out = o + static_cast<std::size_t>(blockIdx.y) * s * kD;
  // A piece is 16 columns of one owned row: the shares' stats, then per share four 16-byte
  // partials, then two 16-byte stores.
  constexpr int kPieces = kD / 16;
  for (int item = static_cast<int>(threadIdx.x) - 128; item < rows * kPieces; item += 128 * C) {
    const int row = item / kPieces, c0 = (item % kPieces) * 16;
    if (first + row >= s) continue;
    float2 st[kMaxSplits];
#pragma unroll
    for (int z = 0; z < kMaxSplits; ++z)
      if (z < splits) st[z] = ld_shared_f2(stats_addr + (z * rows + row) * 8);
    // The log-sum-exp merge: m the largest share maximum, each share weighted by 2^(m_z - m); a
    // share that saw no key of the row (max -inf) weighs 0, and a row no share saw is 0.
    float m = -INFINITY;
#pragma unroll
    for (int z = 0; z < kMaxSplits; ++z)
      if (z < splits) m = fmaxf(m, st[z].x);
    float l = 0.0f, acc[16] = {};
#pragma unroll
    for (int z = 0; z < kMaxSplits; ++z)
      if (z < splits) {
        float4 v[4];
#pragma unroll
        for (int i = 0; i < 4; ++i) v[i] = ld_shared_f4(part_addr + ((z * rows + row) * kPitch + c0 + 4 * i) * 4);
        const float w = st[z].x == -INFINITY ? 0.0f : ex2(st[z].x - m);
        l = fmaf(w, st[z].y, l);
#pragma unroll
        for (int i = 0; i < 4; ++i) {
          acc[4 * i] = fmaf(w, v[i].x, acc[4 * i]);
          acc[4 * i + 1] = fmaf(w, v[i].y, acc[4 * i + 1]);
          acc[4 * i + 2] = fmaf(w, v[i].z, acc[4 * i + 2]);
          acc[4 * i + 3] = fmaf(w, v[i].w, acc[4 * i + 3]);
        }
      }
    const float inv = l > 0.0f ? 1.0f / l : 0.0f;
    std::uint32_t packed[8];
#pragma unroll
    for (int i = 0; i < 8; ++i) packed[i] = pack2<kBf16>(acc[2 * i] * inv, acc[2 * i + 1] * inv);
    auto* dst = reinterpret_cast<uint4*>(out + static_cast<std::size_t>(first + row) * kD + c0);
    dst[0] = make_uint4(packed[0], packed[1], packed[2], packed[3]);
    dst[1] = make_uint4(packed[4], packed[5], packed[6], packed[7]);
  }
}

// kSplit: the split-KV instance (grid.z shares, clusters, the merge). The unsplit instance is
// compiled without any of it: carrying the share's bounds and the merge in every instance made
// the d = 64 kernel 1.7% slower on the 27-point matrix (`assay ab`, 8 rounds, H100).
template <bool kBf16, int kD, int C, bool kSplit>
__global__ void __launch_bounds__(Layout<kD, C>::kThreads, (Registers<kD, C, kSplit>::kMinBlocks))
    flash_hopper_kernel(const __grid_constant__ CUtensorMap map_q, const __grid_constant__ CUtensorMap map_k,
                        const __grid_constant__ CUtensorMap map_v,
                        std::conditional_t<kBf16, __nv_bfloat16, __half>* __restrict__ o, int s, int causal,
                        float scale_log2) {
  using L = Layout<kD, C>;
  using R = Registers<kD, C, kSplit>;
  using T = std::conditional_t<kBf16, __nv_bfloat16, __half>;
  constexpr int kBN = L::kBN;
  constexpr bool kLazyRescale = kD >= 256;  // FlashAttention-4's conditional rescale (softmax below)
  constexpr float kMaxLag = 8.0f;            // its lag (log2 units): weights ≤ 2^8 in f16/bf16
  static_assert(!kSplit || L::kRingHoldsPartials, "split-KV's partials exceed the ring");
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
  // This CTA's share of the key blocks: all of them, or with split-KV the blockIdx.z-th of
  // gridDim.z near-equal shares (possibly empty: a causal block near the start has few).
  const int kv_all = (kv_end + kBN - 1) / kBN;
  const int kv_first = kSplit ? static_cast<int>(blockIdx.z) * kv_all / static_cast<int>(gridDim.z) : 0;
  const int kv_last = kSplit ? (static_cast<int>(blockIdx.z) + 1) * kv_all / static_cast<int>(gridDim.z) : kv_all;

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
    if constexpr (R::kReallocates) hopper::regs_release<kProducerRegs>();
    if (tid == 0) {
      mbar_arrive_expect_tx(reinterpret_cast<std::uint64_t*>(smem + L::kBarrierOffset), L::kQBytes);
#pragma unroll
      for (int a = 0; a < L::kAtoms; ++a) tma_load_3d(sq + a * L::kQRows * kRowBytes, &map_q, q_full, a * 64, q0, head);
      // K runs one block ahead of V, in the order the consumers use them (K_{j+1} before V_j):
      // a K slot frees as soon as its S has retired, a V slot once its P·V has.
      auto* bars = reinterpret_cast<std::uint64_t*>(smem + L::kBarrierOffset);
      // The i-th block of this CTA's share goes to slot i % kStages in phase (i / kStages) & 1:
      // derived from i rather than kept in two rings, which the producer's 24 registers could
      // not hold beside the share's bounds.
      auto load = [&](const CUtensorMap* map, std::uint32_t empty, int full_index, int i, int offset) {
        const int stage = i % kStages;
        mbar_wait(empty + 8 * stage, ((i / kStages) & 1) ^ 1);
        const std::uint32_t dst = skv + stage * L::kStageBytes + offset;
        mbar_arrive_expect_tx(&bars[full_index + stage], L::kKVBytes);
#pragma unroll
        for (int a = 0; a < L::kAtoms; ++a)
          tma_load_3d(dst + a * kBN * kRowBytes, map, q_full + 8 * (full_index + stage), a * 64, (kv_first + i) * kBN,
                      head);
      };
      const int n = kv_last - kv_first;
      if (n > 0) load(&map_k, empty_k, 1, 0, 0);
      for (int i = 0; i < n; ++i) {
        if (i + 1 < n) load(&map_k, empty_k, 1, i + 1, 0);
        load(&map_v, empty_v, 1 + kStages, i, L::kKVBytes);
      }
    }
    __syncwarp();
    if constexpr (kSplit) {  // the merge's two cluster barriers take every thread (see merge_split_kv)
      hopper::cluster_sync();
      hopper::cluster_sync();
    }
    return;
  }

  if constexpr (R::kReallocates) hopper::regs_claim<R::kConsumerRegs>();
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
      const std::uint64_t da = smem_desc_at(q_addr + (kk / 4) * L::kQRows * kRowBytes + (kk % 4) * 32, 16, 1024);
      const std::uint32_t b = sk + (kk / 4) * kBN * kRowBytes + (kk % 4) * 32;
      if constexpr (R::kSHalves) {
        // Keys 0-63 and 64-127 as two n64 wgmmas: one n128 needs more than 80 registers at once.
        constexpr int kHalf = kBN / 2;
        mma_s<kBf16, kHalf>(reinterpret_cast<float(&)[kHalf / 2]>(sacc[0]), da, smem_desc_at(b, 16, 1024), kk > 0);
        mma_s<kBf16, kHalf>(reinterpret_cast<float(&)[kHalf / 2]>(sacc[kHalf / 2]), da,
                            smem_desc_at(b + kHalf * kRowBytes, 16, 1024), kk > 0);
      } else {
        mma_s<kBf16, kBN>(sacc, da, smem_desc_at(b, 16, 1024), kk > 0 ? 1 : 0);
      }
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
      mma_o<kBf16, kD>(oacc, pa[kj], smem_desc_at(sv + kj * 16 * kRowBytes, kBN * kRowBytes, 1024));
    }
    wgmma_commit();
  };
  // The online softmax of block j's scores, in place (S becomes P, unnormalised), with the
  // factor alpha by which this thread's O rows must be rescaled; the row sums are updated.
  // Accumulator 4·nt + e: n8 tile nt (keys 8nt + 2t + (e & 1)), row g + 8·(e >> 1).
  // At d = 256 the reference max lags the row's by up to 8 (FlashAttention-4's rule,
  // move_reference_max): the weights stay ≤ 2^8, well inside f16 and bf16, and O (128 registers
  // a thread) is rescaled only when a row's max moved: 7% fewer cycles at d = 256, but 1-2% more
  // at d = 128, where the skipped multiplies cost less than the warp vote (v11).
  auto softmax = [&](float (&sacc)[kBN / 2], int j, float (&alpha)[2]) {
    mask_block<kBN>(sacc, j * kBN, s, causal, warp_row0, row0, t);
#pragma unroll
    for (int r = 0; r < 2; ++r) {
      const float mx = quad_max(row_max_of<kBN>(sacc, r, row_max[r]));
      alpha[r] = move_reference_max<kLazyRescale>(row_max[r], mx, scale_log2, kMaxLag);
      // A row whose max is −inf subtracts 0, not −inf (NaN).
      const float m_scaled = row_max[r] == -INFINITY ? 0.0f : row_max[r] * scale_log2;
      row_sum[r] = row_sum[r] * alpha[r] + exp2_row<kBN>(sacc, r, scale_log2, -m_scaled);
    }
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

  float sacc[kBN / 2];
  std::uint32_t pa[kBN / 16][4];
  float alpha[2];
  if constexpr (R::kOverlap) {
    // FlashAttention-3's schedule (v10, docs/kernels/attention.md): within a warp group the
    // softmax of S_{j+1} under P_j·V_j (overlapped_key_blocks); between the two, "ping-pong":
    // each issues its wgmmas only in its turn (named barrier 1 + consumer, passed to the other
    // with bar.arrive), so one's GEMMs run under the other's softmax instead of both contending
    // at once. Consumer 1 passes first so that consumer 0 starts, and skips its last pass, so
    // each barrier sees as many arrivals as waits.
    static_assert(C == 2, "ping-pong alternates two consumer warp groups");
    if (consumer == 1 && kv_first < kv_last) hopper::named_barrier_arrive(1, 128 * C);
    overlapped_key_blocks<kStages, kLazyRescale>(
        kv_first, kv_last, KvBarriers{full_k, full_v, empty_k, empty_v}, tid == 0, sacc, oacc, pa, alpha, issue_s,
        issue_pv, softmax, pack_p, [&] { hopper::named_barrier(1 + consumer, 128 * C); },
        [&](bool last) {
          if (!(last && consumer == 1)) hopper::named_barrier_arrive(2 - consumer, 128 * C);
        });
  } else {
    // One consumer (d = 64, split-KV): each block in order, S, softmax, P·V, each wgmma group
    // waited for; the other CTAs on the SM fill the tensor cores during the softmax.
    Ring ring;
    for (int j = kv_first; j < kv_last; ++j) {
      mbar_wait(full_k + 8 * ring.stage, ring.phase);
      issue_s(sacc, ring.stage);
      wgmma_wait<0>();
      fence_registers(sacc);
      // S has retired for the whole warp group (a wgmma is one warp-group operation): K's slot
      // goes back to the producer, which refills it while this block's P·V runs.
      if (tid == 0) mbar_arrive(empty_k + 8 * ring.stage);
      softmax(sacc, j, alpha);
      rescale_rows<kLazyRescale>(oacc, alpha);
      pack_p(sacc, pa);
      mbar_wait(full_v + 8 * ring.stage, ring.phase);
      issue_pv(pa, ring.stage);
      wgmma_wait<0>();
      fence_registers(oacc);
      if (tid == 0) mbar_arrive(empty_v + 8 * ring.stage);
      ring.advance();
    }
  }

  if constexpr (kSplit) {
    merge_split_kv<kBf16, kD, C>(smem + L::kQBytes, oacc, row_max, row_sum, o, s, causal, scale_log2);
    return;
  }
  T* out = o + static_cast<std::size_t>(head) * s * kD;
#pragma unroll
  for (int r = 0; r < 2; ++r) {
    const float sum = quad_sum(row_sum[r]);
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

// The launch of one configuration: grid (query blocks, b·h, splits), clusters (1, 1, splits).
template <bool kBf16, int kD, int C, bool kSplit>
cudaError_t launch_shape(const FlashAttentionArgs& a, int splits, cudaLaunchConfig_t& cfg, cudaLaunchAttribute& cluster) {
  using L = Layout<kD, C>;
  // All of the SM's unified L1/shared memory as shared memory: three d = 64 CTAs take 222 KiB.
  static const cudaError_t attr = [] {
    const auto kernel = flash_hopper_kernel<kBf16, kD, C, kSplit>;
    const cudaError_t e = cudaFuncSetAttribute(kernel, cudaFuncAttributeMaxDynamicSharedMemorySize, L::kSmemBytes);
    return e != cudaSuccess ? e
                            : cudaFuncSetAttribute(kernel, cudaFuncAttributePreferredSharedMemoryCarveout,
                                                   cudaSharedmemCarveoutMaxShared);
  }();
  cluster = {};
  cluster.id = cudaLaunchAttributeClusterDimension;
  cluster.val.clusterDim.x = cluster.val.clusterDim.y = 1;
  cluster.val.clusterDim.z = static_cast<unsigned>(splits);
  cfg = {};
  cfg.gridDim = dim3((a.s + L::kQRows - 1) / L::kQRows, a.heads, splits);
  cfg.blockDim = dim3(L::kThreads);
  cfg.dynamicSmemBytes = L::kSmemBytes;
  cfg.attrs = &cluster;
  cfg.numAttrs = kSplit ? 1 : 0;
  return attr;
}

template <bool kBf16, int kD, int C, bool kSplit>
cudaError_t launch_config(const FlashAttentionArgs& a, int splits, cudaStream_t stream) {
  using L = Layout<kD, C>;
  cudaLaunchConfig_t cfg;
  cudaLaunchAttribute cluster;
  cudaError_t err = launch_shape<kBf16, kD, C, kSplit>(a, splits, cfg, cluster);
  if (err != cudaSuccess) return err;
  int device = 0;
  err = cudaGetDevice(&device);
  if (err != cudaSuccess) return err;
  CUtensorMap maps[3];
  const void* tensors[3] = {a.q, a.k, a.v};
  const std::uint32_t box_rows[3] = {static_cast<std::uint32_t>(L::kQRows), L::kBN, L::kBN};
  for (int i = 0; i < 3; ++i) {
    err = hopper::tensor_map_3d(maps[i], device, hopper::MapElem::u16, tensors[i], kD, a.s, a.heads, 64, box_rows[i]);
    if (err != cudaSuccess) return err;
  }
  using T = std::conditional_t<kBf16, __nv_bfloat16, __half>;
  cfg.stream = stream;
  err = cudaLaunchKernelEx(&cfg, flash_hopper_kernel<kBf16, kD, C, kSplit>, maps[0], maps[1], maps[2],
                           static_cast<T*>(a.o), a.s, a.causal ? 1 : 0, a.scale * 1.4426950408889634f);
  if (err != cudaSuccess) return err;
  return cudaGetLastError();
}

// Clusters of `splits` CTAs the device holds at once, asked of the unsplit two-consumer kernel
// (the same resources as a split one; the cluster shape is the launch's, not the kernel's).
template <bool kBf16, int kD>
int clusters_config(const FlashAttentionArgs& a, int splits) {
  cudaLaunchConfig_t cfg;
  cudaLaunchAttribute cluster;
  int n = 0;
  if (launch_shape<kBf16, kD, 2, false>(a, splits, cfg, cluster) != cudaSuccess) return 0;
  cfg.numAttrs = 1;
  if (cudaOccupancyMaxActiveClusters(&n, flash_hopper_kernel<kBf16, kD, 2, false>, &cfg) != cudaSuccess) {
    (void)cudaGetLastError();  // clear it, so that the caller's next CUDA call does not report it
    return 0;
  }
  return n;
}

template <bool kBf16, int kD, int C>
int resident_config(const FlashAttentionArgs& a) {
  cudaLaunchConfig_t cfg;
  cudaLaunchAttribute cluster;
  int n = 0;
  if (launch_shape<kBf16, kD, C, false>(a, 1, cfg, cluster) != cudaSuccess ||
      cudaOccupancyMaxActiveBlocksPerMultiprocessor(&n, flash_hopper_kernel<kBf16, kD, C, false>, Layout<kD, C>::kThreads,
                                                    Layout<kD, C>::kSmemBytes) != cudaSuccess) {
    (void)cudaGetLastError();
    return 0;
  }
  return n;
}

template <bool kBf16>
int resident_typed(const FlashAttentionArgs& a, int consumers) {
  if (a.d == 256) return consumers == 2 ? resident_config<kBf16, 256, 2>(a) : 0;
  if (a.d == 64) return consumers == 2 ? resident_config<kBf16, 64, 2>(a) : resident_config<kBf16, 64, 1>(a);
  if (a.d == 128) return consumers == 2 ? resident_config<kBf16, 128, 2>(a) : resident_config<kBf16, 128, 1>(a);
  return 0;
}

// Split-KV is compiled for one consumer only: two (128 query rows per share) never won a
// measurement (docs/kernels/attention.md, split-KV), and each instance costs CI build time.
template <bool kBf16>
cudaError_t launch_typed(const FlashAttentionArgs& a, int consumers, int splits, cudaStream_t stream) {
  if (splits > 1) {
    if (consumers != 1) return cudaErrorInvalidValue;
    return a.d == 64 ? launch_config<kBf16, 64, 1, true>(a, splits, stream)
                     : launch_config<kBf16, 128, 1, true>(a, splits, stream);
  }
  // d = 256: two consumers only (its 80-key blocks and 64 KiB of Q fill shared memory).
  if (a.d == 256) return consumers == 2 ? launch_config<kBf16, 256, 2, false>(a, 1, stream) : cudaErrorInvalidValue;
  if (a.d == 64)
    return consumers == 2 ? launch_config<kBf16, 64, 2, false>(a, 1, stream) : launch_config<kBf16, 64, 1, false>(a, 1, stream);
  return consumers == 2 ? launch_config<kBf16, 128, 2, false>(a, 1, stream)
                        : launch_config<kBf16, 128, 1, false>(a, 1, stream);
}

}  // namespace

int max_active_clusters(const FlashAttentionArgs& a, int splits) {
  if (a.d != 64 && a.d != 128) return 0;  // no split-KV instance
  const bool bf16 = a.dtype == DType::bf16;
  if (a.d == 64) return bf16 ? clusters_config<true, 64>(a, splits) : clusters_config<false, 64>(a, splits);
  return bf16 ? clusters_config<true, 128>(a, splits) : clusters_config<false, 128>(a, splits);
}

int resident_ctas(const FlashAttentionArgs& a, int consumers) {
  if (consumers != 1 && consumers != 2) return 0;
  if (a.dtype == DType::bf16) return resident_typed<true>(a, consumers);
  return a.dtype == DType::f16 ? resident_typed<false>(a, consumers) : 0;
}

cudaError_t launch(const FlashAttentionArgs& a, int consumers, int splits, cudaStream_t stream) {
  if ((a.d != 64 && a.d != 128 && a.d != 256) || (consumers != 1 && consumers != 2) || a.s < 1 || a.heads < 1 || a.heads > 65535 ||
      (splits != 1 && splits != 2 && splits != 4 && splits != 8))
    return cudaErrorInvalidValue;
  for (const void* p : {a.q, a.k, a.v, static_cast<const void*>(a.o)})
    if (reinterpret_cast<std::uintptr_t>(p) % 16 != 0) return cudaErrorInvalidValue;
  if (a.dtype == DType::bf16) return launch_typed<true>(a, consumers, splits, stream);
  if (a.dtype == DType::f16) return launch_typed<false>(a, consumers, splits, stream);
  return cudaErrorInvalidValue;
}

}  // namespace assay::kernels::attention_hopper
