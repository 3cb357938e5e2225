// assay's Hopper GEMM: see hopper_gemm.hpp for the contract, bench/notes/gemm.md for the
// versions and their measurements. Compiled for sm_90a only (src/kernels/gemm/hopper.cmake).
#include "kernels/gemm/hopper/hopper_gemm.hpp"

#include <cuda_bf16.h>
#include <cuda_fp16.h>

#include <atomic>
#include <cstdint>
#include <type_traits>
#include <utility>

#include "kernels/gemm/hopper/hopper_ptx.cuh"
#include "kernels/gemm/hopper/tensor_maps.hpp"
#include "kernels/gemm/hopper/wgmma_ops.cuh"

namespace assay::kernels::hopper {

namespace {

constexpr int kRowBytes = 128;       // one swizzle row: each tile row holds 128 bytes of K
constexpr int kGroupM = 8;           // tile rows walked together (L2 reuse of B)

// Warp groups of a CTA whose tile has BM rows: group 0 produces, BM / 64 consume (64 rows each).
// The CTA launches with the registers its size allows (a multiple of 8 per thread: 168 for 384
// threads, 128 for 512); setmaxnreg then moves the producer's down and shares what that frees
// among the consumers (a multiple of 8): 232 each with two consumers, 152 with three.
// setmaxnreg.inc waits for registers the CTA has released, so it must ask for no more. The
// producer keeps 40, except beside the 208-wide fp8 tile: 24 (setmaxnreg's least), so that its
// consumers get 240 (acc and one partial set take 208; at 232 ptxas spilled 1 KB and serialised
// the wgmmas, C7512: bench/notes/gemm.md, v9).
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

// fp8 sums each K block apart from the fp32 accumulators (see the consumer loop).
template <Elem E>
constexpr bool kPromote = E == Elem::e4m3;

// fp8 widths promoted with one partial set per warp group and the two warp groups' wgmmas
// alternating (acc + one set: BN registers): 208, 192 and 176 (192 ran 4-12% faster that way than
// in halves); at 128 the quads stay (the alternation cost the 2-CTA clusters 3% at 4096^3; v5c).
template <int BN>
constexpr bool kOrdered = BN == 208 || BN == 192 || BN == 176;

// The f16/bf16 epilogue of a CTA's last tile overlapped with its last K blocks (the consumer
// loop): the last kTailBlocks blocks are issued in column parts kTailCols wide, for widths that
// hold more than one part. Two parts of 128 took 1-1.5% off one wave at 2048^3; four of 64 ran
// their wgmmas slower than they saved (A is read from shared memory once per part; v15).
constexpr int kTailBlocks = 2;
constexpr int kTailCols = 128;
template <int BN>
constexpr bool kSplitTail = BN % kTailCols == 0 && BN > kTailCols;

// Calls f(std::integral_constant<int, I>) for each I of the sequence, in order.
template <typename F, int... I>
__device__ __forceinline__ void for_each_index(std::integer_sequence<int, I...>, F&& f) {
  (f(std::integral_constant<int, I>{}), ...);
}

// Adds a partial set into the accumulators, or copies it there when it is a tile's first K block.
template <int R>
__device__ __forceinline__ void add_partials(float (&acc)[R], const float (&part)[R], bool first) {
#pragma unroll
  for (int i = 0; i < R; ++i) acc[i] = first ? part[i] : acc[i] + part[i];
}

// As many stages as fit in 227 KB with the 1 KB alignment slack and the output staging:
// 4 x 48 KB (256), 5 x 42, 40 or 38 (208, 192, 176; 208 and 176 store without staging),
// 6 x 32 (128), 8 x 24 (64); fp8 stages hold 128 of K. 192x192 (f16/bf16, three consumers): 4 x 48 KB.
constexpr int stages_for(int tile_m, int tile_n) {
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
  // registers (no multiple of the 64-column box: 176, 208; see store_tile).
  static constexpr int kFixedBytes = 2 * kStages * 8 + 1024;  // barriers, slack to align to 1024
  static constexpr int kOutBuffers = BN % kOutCols != 0 ? 0
                                     : kRingBytes + 2 * kConsumers * kOutBoxBytes + kFixedBytes <= kSmemLimit ? 2
                                                                                                              : 1;
  static constexpr int kOutBytes = kConsumers * kOutBuffers * kOutBoxBytes;
  static constexpr int kSmemBytes = kRingBytes + kOutBytes + kFixedBytes;
  static_assert(kSmemBytes <= kSmemLimit, "ring and output staging exceed shared memory");
};

template <Elem E, int N>
__device__ __forceinline__ void mma(float (&d)[N / 2], std::uint64_t da, std::uint64_t db, int acc) {
  if constexpr (E == Elem::f16) wgmma_f16<N>(d, da, db, acc);
  else if constexpr (E == Elem::bf16) wgmma_bf16<N>(d, da, db, acc);
  else wgmma_e4m3<N>(d, da, db, acc);
}

// Position in the shared-memory ring: the stage, and the parity of its barriers' current phase.
template <int S>
struct Ring {
  int stage = 0;
  unsigned phase = 0;
  __device__ __forceinline__ void advance() {
    if (++stage == S) {
      stage = 0;
      phase ^= 1;
    }
  }
};

// Tile t of the grouped order: groups of kGroupM tile rows, each walked column by column, odd
// groups from the last column back, so that a group starts on the B columns the one before it
// just read (with the K order of persistent_k_block, 6-17% fewer DRAM reads: bench/notes/gemm.md,
// v11).
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
// 2x: bench/notes/gemm.md, v7). fp32 sums in another order: within the checks' tolerance.
__device__ __forceinline__ int persistent_k_block(int iteration, int kb, int k_blocks) {
  return (iteration & 1) ? k_blocks - 1 - kb : kb;
}

template <typename Out>
__device__ __forceinline__ std::uint32_t pack2(float lo, float hi) {
  if constexpr (std::is_same_v<Out, __half>) {
    const __half2 h = __floats2half2_rn(lo, hi);
    return *reinterpret_cast<const std::uint32_t*>(&h);
  } else {
    const __nv_bfloat162 h = __floats2bfloat162_rn(lo, hi);
    return *reinterpret_cast<const std::uint32_t*>(&h);
  }
}

// One step of a 4 x 4 transpose across the 4 lanes of a quad: with the lane `mask` apart,
// trade the words whose index differs from ours in that bit (w[a] <-> w[b], b = a | mask).
__device__ __forceinline__ void quad_swap(std::uint32_t& lo, std::uint32_t& hi, bool upper, int mask) {
  const std::uint32_t got = __shfl_xor_sync(0xffffffffu, upper ? lo : hi, mask);
  if (upper) lo = got;
  else hi = got;
}

// Word i of lane q (q = lane % 4) holds columns 8i + 2q, +1 of a row; afterwards word i of
// lane q holds columns 8q + 2i, +1: each lane owns 8 consecutive columns, one 16-byte store.
__device__ __forceinline__ void quad_transpose(std::uint32_t (&w)[4], int lane) {
  const bool odd = lane & 1, high = lane & 2;
  quad_swap(w[0], w[1], odd, 1);
  quad_swap(w[2], w[3], odd, 1);
  quad_swap(w[0], w[2], high, 2);
  quad_swap(w[1], w[3], high, 2);
}

// Accumulator 4j + {0,1} is row r, columns 8j + 2(lane%4) + {0,1}; 4j + {2,3} is row r+8.
// Packs row r + 8 * half of the 32 columns from 32 * g, and trades words within the quad so
// that the lane holds columns 32g + 8(lane%4) .. +7: 16 contiguous bytes. Every loop around
// a call is unrolled, so the accumulator indices are compile-time constants.
template <typename Out, int R>
__device__ __forceinline__ void row_chunk(const float (&acc)[R], int g, int half, float scale, int lane,
                                          std::uint32_t (&w)[4]) {
#pragma unroll
  for (int i = 0; i < 4; ++i) {
    const int a = 4 * (4 * g + i) + 2 * half;
    w[i] = pack2<Out>(acc[a] * scale, acc[a + 1] * scale);
  }
  quad_transpose(w, lane);
}

// C = 1: each CTA loads its own tiles. C = 2 (clusters of 2 CTAs): CTA rank r takes tile row
// 2p + r of pair row p and the pair's common tile column; each CTA loads half of the common B
// tile for both (multicast), halving B's L2-to-SM traffic.
template <Elem E, int BM, int BN, int C>
__global__ void __launch_bounds__(Groups<BM, BN>::kThreads, 1)
    hopper_gemm_kernel(const __grid_constant__ CUtensorMap map_a, const __grid_constant__ CUtensorMap map_b,
                       const __grid_constant__ CUtensorMap map_c, typename Traits<E>::Out* __restrict__ c, int m,
                       int n, int k,
                       const float* __restrict__ scale_a, const float* __restrict__ scale_b) {
  using T = Tile<E, BM, BN>;
  constexpr int kStages = T::kStages;
  constexpr int kConsumers = T::kConsumers;
  // fp8's alternating consumers use named barriers 3 and 4, the staging boxes 1 + consumer.
  static_assert(BM == 128 || E != Elem::e4m3, "fp8 tiles have 128 rows");
  extern __shared__ unsigned char smem_raw[];
  unsigned char* smem = reinterpret_cast<unsigned char*>(
      (reinterpret_cast<std::uintptr_t>(smem_raw) + 1023) & ~std::uintptr_t(1023));
  unsigned char* out_stage = smem + T::kRingBytes;
  std::uint64_t* full = reinterpret_cast<std::uint64_t*>(out_stage + T::kOutBytes);
  std::uint64_t* empty = full + kStages;

  // Broadcast from lane 0 so the compiler knows the warp group is uniform across the warp:
  // everything derived from it (the wgmma descriptors above all) then lives in uniform
  // registers instead of being recomputed per lane before every wgmma (bench/notes/gemm.md, v4).
  const int warp_group = __shfl_sync(0xffffffffu, static_cast<int>(threadIdx.x / 128), 0);
  const int tid = threadIdx.x % 128;
  const unsigned rank = C == 2 ? cluster_rank() : 0u;
  const unsigned peer = rank ^ 1u;
  const int tiles_m = (m + BM - 1) / BM;
  const int pairs_m = (tiles_m + C - 1) / C;
  const int tiles_n = (n + BN - 1) / BN;
  const int units = pairs_m * tiles_n;
  const int cluster = blockIdx.x / C, clusters = gridDim.x / C;
  const int k_blocks = (k + T::kBK - 1) / T::kBK;
  // One wave of 16-bit single CTAs (1024^3, 2048^3): every tile is in flight at once, so the order
  // only decides which CTAs are neighbours in launch order (which share L2 lookups: scattering the
  // order cost 41% more). Row-major neighbours share A rows instead of B columns: 0.2-1.1% faster at
  // 2048^3 in cold mode, though the L2 counts 20% more lookups (bench/notes/gemm.md, v10). fp8 and
  // pairs keep one code path.
  bool row_major = false;
  if constexpr (C == 1 && !kPromote<E>) row_major = units <= clusters;
  // This CTA's output tile of unit u (rank r of a pair takes tile row 2p + r of pair row p; past
  // the last row TMA reads zeros and nothing is stored).
  auto unit_tile = [&](int u, int& tm, int& tn) {
    int pm;
    if (row_major) {
      pm = u / tiles_n;
      tn = u - pm * tiles_n;
    } else {
      tile_coords(u, pairs_m, tiles_n, pm, tn);
    }
    tm = C * pm + static_cast<int>(rank);
  };

  // The producer's fill of one stage: K block kb of output tile (tm, tn).
  auto load_stage = [&](int stage, int kb, int tm, int tn) {
    unsigned char* sa = smem + stage * T::kStageBytes;
    unsigned char* sb = sa + T::kABytes;
    // Own A plus both halves of B (one from each CTA) land in this stage.
    mbar_arrive_expect_tx(&full[stage], T::kStageBytes);
    // Pairs ask for the shared B first and their own A after it: the CTAs of other pairs that
    // read the same A rows then meet more often in the L2's request coalescer, which serves 5-30%
    // more of their A sectors with one lookup (by build; bench/notes/gemm.md, v12).
    if constexpr (C == 1) {
      tma_load_2d(sa, &map_a, &full[stage], kb * T::kBK, tm * BM);
      if constexpr (Traits<E>::kBKMajor) {
        tma_load_2d(sb, &map_b, &full[stage], kb * T::kBK, tn * BN);
      } else {
#pragma unroll
        for (int j = 0; j < BN / 64; ++j)
          tma_load_2d(sb + j * T::kBK * kRowBytes, &map_b, &full[stage], tn * BN + j * 64, kb * T::kBK);
      }
    } else if constexpr (Traits<E>::kBKMajor) {
      constexpr int kHalf = BN / 2;  // rows of B (n) per CTA
      tma_load_2d_multicast(sb + rank * kHalf * kRowBytes, &map_b, &full[stage], kb * T::kBK,
                            tn * BN + static_cast<int>(rank) * kHalf, 0x3);
    } else {
      // 64-column boxes (128 bytes of N each), dealt alternately to the two CTAs.
#pragma unroll
      for (int j = 0; j < BN / 64; ++j)
        if (j % 2 == static_cast<int>(rank))
          tma_load_2d_multicast(sb + j * T::kBK * kRowBytes, &map_b, &full[stage], tn * BN + j * 64, kb * T::kBK,
                                0x3);
    }
    if constexpr (C == 2) tma_load_2d(sa, &map_a, &full[stage], kb * T::kBK, tm * BM);
  };

  // Single CTAs: thread 0, the producer, fills the first stages of its first tile as soon as the
  // barriers exist, before the CTA's barrier and the register hand-over (a fresh ring is empty).
  // Pairs cannot: a multicast needs the peer's barriers set up.
  int primed = 0;
  if (threadIdx.x == 0) {
    prefetch_tensor_map(&map_a);
    prefetch_tensor_map(&map_b);
    prefetch_tensor_map(&map_c);
    for (int s = 0; s < kStages; ++s) {
      mbar_init(&full[s], 1);
      // A stage is rewritten (in both CTAs) once both consumers of both CTAs are done with it.
      mbar_init(&empty[s], kConsumers * C);
    }
    mbar_init_fence();
    if constexpr (C == 1) {
      if (cluster < units) {
        int tm, tn;
        unit_tile(cluster, tm, tn);
        primed = k_blocks < kStages ? k_blocks : kStages;
        for (int kb = 0; kb < primed; ++kb) load_stage(kb, kb, tm, tn);
      }
    }
  }
  if constexpr (C == 2) cluster_sync();
  else __syncthreads();

  if (warp_group == 0) {
    regs_release<Groups<BM, BN>::kProducerRegs>();
    if (tid == 0) {
      Ring<kStages> ring;
      for (int i = 0; i < primed; ++i) ring.advance();
      for (int u = cluster; u < units; u += clusters) {
        int tm, tn;
        unit_tile(u, tm, tn);
        const int iteration = (u - cluster) / clusters;  // the first (primed) one walks K forwards
        for (int kb = u == cluster ? primed : 0; kb < k_blocks; ++kb) {
          mbar_wait(&empty[ring.stage], ring.phase ^ 1);
          load_stage(ring.stage, persistent_k_block(iteration, kb, k_blocks), tm, tn);
          ring.advance();
        }
      }
      // Clusters: the CTA may exit only once nothing of the peer's can still reach its shared
      // memory: the peer's consumers release every stage here too (remote arrivals), and they
      // do so after its loads into this CTA's stages have landed. So wait until every stage is
      // free again, as for a next fill. This replaced a closing cluster barrier of all threads,
      // and took 0.3-1 us off every paired launch (bench/notes/gemm.md, v6).
      if constexpr (C == 2) {
        for (int s = 0; s < kStages; ++s) {
          mbar_wait(&empty[ring.stage], ring.phase ^ 1);
          ring.advance();
        }
      }
    }
    __syncwarp();  // the producer lane rejoins its warp
  } else {
    regs_claim<Groups<BM, BN>::kConsumerRegs>();
    const int consumer = warp_group - 1;  // rows [64 * consumer, 64 * consumer + 64) of the tile
    float scale = 1.0f;
    if constexpr (E == Elem::e4m3) scale = *scale_a * *scale_b;
    float acc[BN / 2];
    int out_buffer = 0;  // which of this consumer's staging boxes the next store uses
#pragma unroll
    for (int i = 0; i < BN / 2; ++i) acc[i] = 0.0f;
    Ring<kStages> ring;
    const int warp = tid / 32, lane = tid % 32;
    // Two warps signal, so the local and the remote arrival go out side by side.
    const std::uint32_t full_at = smem_u32(full), empty_at = smem_u32(empty);
    auto release = [&](int s) {
      if (tid == 0) mbar_arrive(empty_at + 8 * s);
      if constexpr (C == 2)
        if (tid == 32) mbar_arrive_cluster(&empty[s], peer);
    };
    // The descriptors of stage 0; another stage or K step only moves the start address, the
    // descriptor's low field (16-byte units; shared addresses stay under 2^18, so no carry).
    // K-major A: 8-row groups 1024 bytes apart. K-major B (fp8) likewise; MN-major B: 64-column
    // atoms BK rows of 128 bytes apart.
    const std::uint64_t desc_a0 = smem_desc(smem + consumer * 64 * kRowBytes, 16, 1024);
    const std::uint64_t desc_b0 = Traits<E>::kBKMajor ? smem_desc(smem + T::kABytes, 16, 1024)
                                                      : smem_desc(smem + T::kABytes, T::kBK * kRowBytes, 1024);
    // Issues the wgmmas of `blocks` K blocks (stages s[0..blocks)) into `d`, a 64 x N accumulator
    // set (N = 2 x its registers) for the N columns from 64-column atom `atom0` of B (f16/bf16:
    // atoms are BK rows of 128 bytes apart), as one wgmma group.
    auto issue_blocks = [&](auto& d, const int* s, auto blocks, bool accumulate_first, int atom0) {
      constexpr int kN = 2 * static_cast<int>(std::extent_v<std::remove_reference_t<decltype(d)>>);
      fence_registers(d);
      wgmma_fence();
#pragma unroll
      for (int i = 0; i < decltype(blocks)::value; ++i) {
        const std::uint64_t stage_offset = static_cast<std::uint64_t>(s[i] * (T::kStageBytes >> 4));
        const std::uint64_t atom_offset = static_cast<std::uint64_t>(atom0 * (T::kBK * kRowBytes >> 4));
#pragma unroll
        for (int kk = 0; kk < T::kBK / Traits<E>::kStepK; ++kk) {
          // A K step: 32 bytes along the swizzled row (K-major), or 16 rows of 128 bytes (MN-major B).
          constexpr int kStepBBytes = Traits<E>::kBKMajor ? 32 : Traits<E>::kStepK * kRowBytes;
          const std::uint64_t da = desc_a0 + stage_offset + kk * (32 >> 4);
          const std::uint64_t db = desc_b0 + stage_offset + atom_offset + kk * (kStepBBytes >> 4);
          mma<E, kN>(d, da, db, (accumulate_first || i > 0 || kk > 0) ? 1 : 0);
        }
      }
      wgmma_commit();
      fence_registers(d);
    };
    // One K block (stage s) into the whole accumulator set `d`.
    auto issue = [&](auto& d, int s, bool accumulate_first) {
      issue_blocks(d, &s, std::integral_constant<int, 1>{}, accumulate_first, 0);
    };

    // The epilogue of one tile from `acc`. Each lane packs 16 contiguous bytes of a row
    // (row_chunk); a warp's store then covers 8 rows x 64 bytes in whole sectors (paired 4-byte
    // stores used half of each sector and 4x the store instructions: bench/notes/gemm.md, v2).
    // `chunk(g, half, w)` gives the 16 bytes of the lane's row chunk (row_chunk's contract): from
    // `acc`, or from the tile packed to 16 bits ahead (f16/bf16, see the consumer loop).
    auto from_acc = [&](int g, int half, std::uint32_t(&w)[4]) {
      row_chunk<typename Traits<E>::Out>(acc, g, half, scale, lane, w);
    };
    // Plain 16-byte stores from the registers of the 32-column groups [G0, G1) of a tile.
    auto store_groups = [&](int tm, int tn, auto g0, auto g1, auto&& chunk) {
      const int row0 = tm * BM + consumer * 64 + warp * 16 + lane / 4;
#pragma unroll
      for (int g = decltype(g0)::value; g < decltype(g1)::value; ++g) {
        const int col = tn * BN + 32 * g + 8 * (lane % 4);
#pragma unroll
        for (int half = 0; half < 2; ++half) {
          std::uint32_t w[4];
          chunk(g, half, w);
          const int row = row0 + 8 * half;
          // n is a multiple of 8: a lane's 8 columns are all inside the row or all past it.
          if (row < m && col < n)
            *reinterpret_cast<uint4*>(c + static_cast<std::size_t>(row) * n + col) = make_uint4(w[0], w[1], w[2], w[3]);
        }
      }
    };
    auto store_tile = [&](int tm, int tn, bool last, auto&& chunk) {
      if (last || BN % kOutCols != 0) {
        // This CTA's last tile: no next tile follows for the stores to overlap with, and plain
        // 16-byte stores from the registers finish sooner than a trip through shared memory
        // and the copy engine (1024^3 and 2048^3, one tile per CTA: bench/notes/gemm.md, v3; the
        // 256-wide f16/bf16 tile overlaps half of them with its last K blocks instead, below).
        // Also every tile of a width that is no multiple of the 64-column store box (176, 208).
        store_groups(tm, tn, std::integral_constant<int, 0>{}, std::integral_constant<int, BN / 32>{}, chunk);
        if constexpr (BN % 32 == 16) {
          // The last 16 columns (176, 208 wide): each lane's two columns of each 8-column group,
          // 4-byte stores (n is a multiple of 8, so a pair is inside the row or past it).
          const int row0 = tm * BM + consumer * 64 + warp * 16 + lane / 4;
#pragma unroll
          for (int j = BN / 8 - 2; j < BN / 8; ++j) {
            const int col = tn * BN + 8 * j + 2 * (lane % 4);
#pragma unroll
            for (int half = 0; half < 2; ++half) {
              const int row = row0 + 8 * half;
              const int a = 4 * j + 2 * half;
              if (row < m && col < n)
                *reinterpret_cast<std::uint32_t*>(c + static_cast<std::size_t>(row) * n + col) =
                    pack2<typename Traits<E>::Out>(acc[a] * scale, acc[a + 1] * scale);
            }
          }
        }
        return;
      }
      if constexpr (BN % kOutCols == 0) {
        // Other tiles go through shared memory to TMA stores of 64-column boxes, so the
        // consumers only write shared memory and go on to the next tile while the copy engine
        // writes global memory (rows and columns past m, n are clipped). Chunk c of row r goes
        // to position c ^ (r % 8) of the staging box: the 128-byte swizzle of the tensor map.
#pragma unroll
        for (int p = 0; p < BN / kOutCols; ++p) {
          const int x = tn * BN + p * kOutCols;
          if (x >= n) break;  // the same for the whole warp group
          unsigned char* box = out_stage + (consumer * T::kOutBuffers + out_buffer) * kOutBoxBytes;
          if (tid == 0) bulk_wait_read<T::kOutBuffers - 1>();  // the store that used `box` has read it
          named_barrier(1 + consumer, 128);
#pragma unroll
          for (int gg = 0; gg < kOutCols / 32; ++gg) {
#pragma unroll
            for (int half = 0; half < 2; ++half) {
              std::uint32_t w[4];
              chunk(2 * p + gg, half, w);
              const int row = warp * 16 + lane / 4 + 8 * half;
              const int chunk = gg * 4 + lane % 4;
              st_shared_v4(box + row * 128 + ((chunk ^ (row & 7)) * 16), w[0], w[1], w[2], w[3]);
            }
          }
          fence_proxy_async_smem();
          named_barrier(1 + consumer, 128);
          if (tid == 0) {
            tma_store_2d(&map_c, box, x, tm * BM + consumer * 64);
            bulk_commit();
          }
          out_buffer = (out_buffer + 1) % T::kOutBuffers;
        }
      }
    };

    if constexpr (kPromote<E>) {
      // fp8: wgmma's e4m3 accumulation keeps fewer bits than fp32, so each K block (128
      // products) is summed on its own into a partial set and added to the fp32 accumulators,
      // as cuBLASLt does without fast accumulation. The first call of a tile issues its first
      // block(s) and then stores the previous tile (`after_issue`), so that epilogue runs behind
      // this tile's first wgmmas (the partial sets are apart from `acc`; bench/notes/gemm.md, v5).
      auto wait_full = [&]() {
        mbar_wait(full_at + 8 * ring.stage, ring.phase);
        return ring.stage;
      };
      if constexpr (kOrdered<BN>) {
        // One partial set per warp group, waited for every block, with the two consumers'
        // wgmmas strictly alternating (named barriers 3 and 4): while one warp group adds its
        // finished set, the other's block runs on the tensor cores. No wgmma of this warp group
        // is in flight during its adds, which in the halves stalled the adds at dispatch (the
        // structure of cuBLASLt's fp8 kernel; bench/notes/gemm.md, v5c). Without the
        // alternation the two warp groups ran in step and idled the tensor cores together
        // (v4's single set: 0.68x).
        float part[BN / 2];
        const int my_turn = 3 + consumer, their_turn = 4 - consumer;
        if (consumer == 1) named_barrier_arrive(their_turn, 256);  // the first consumer goes first
        auto block = [&](auto first, auto&& after_issue) {
          const int s = wait_full();
          named_barrier(my_turn, 256);
          issue(part, s, false);
          named_barrier_arrive(their_turn, 256);
          after_issue();
          wgmma_wait<0>();
          fence_registers(part);
          release(s);
          add_partials(acc, part, decltype(first)::value);
          ring.advance();
        };
        bool pending = false;
        int prev_tm = 0, prev_tn = 0;
        auto store_prev = [&]() {
          if (pending) store_tile(prev_tm, prev_tn, false, from_acc);
        };
        auto nothing = []() {};
        for (int u = cluster; u < units; u += clusters) {
          block(std::true_type{}, store_prev);
          for (int kb = 1; kb < k_blocks; ++kb) block(std::false_type{}, nothing);
          pending = true;
          unit_tile(u, prev_tm, prev_tn);
        }
        // The second consumer arrived once more than the first waited: take that arrival.
        if (consumer == 0) named_barrier(my_turn, 256);
        if (pending) store_tile(prev_tm, prev_tn, true, from_acc);
      } else {
        static_assert(BN <= 128, "two fp8 partial sets of the whole width fit up to 128 columns");
        // Up to 128 columns: two partial sets of the whole width, alternating over the blocks
        // of a call (3 x BN/2 registers). Calls of four blocks drain half as often as pairs:
        // 1.5-2.5% at 4096^3 (bench/notes/gemm.md, v5). Written out: the same calls built from
        // shared helper lambdas compiled differently and ran 8% slower at 6144^3 (v5).
        float part0[BN / 2], part1[BN / 2];
        auto single = [&](auto first, auto&& after_issue) {
          const int s = wait_full();
          issue(part0, s, false);
          after_issue();
          wgmma_wait<0>();
          fence_registers(part0);
          release(s);
          add_partials(acc, part0, decltype(first)::value);
          ring.advance();
        };
        auto pair = [&](auto first, auto&& after_issue) {
          const int s0 = wait_full();
          issue(part0, s0, false);
          ring.advance();
          const int s1 = wait_full();
          issue(part1, s1, false);
          after_issue();
          wgmma_wait<1>();
          fence_registers(part0);
          release(s0);
          add_partials(acc, part0, decltype(first)::value);
          wgmma_wait<0>();
          fence_registers(part1);
          release(s1);
          add_partials(acc, part1, false);
          ring.advance();
        };
        auto quad = [&](auto first, auto&& after_issue) {
          const int s0 = wait_full();
          issue(part0, s0, false);
          ring.advance();
          const int s1 = wait_full();
          issue(part1, s1, false);
          after_issue();
          wgmma_wait<1>();
          fence_registers(part0);
          release(s0);
          add_partials(acc, part0, decltype(first)::value);
          ring.advance();
          const int s2 = wait_full();
          issue(part0, s2, false);
          wgmma_wait<1>();
          fence_registers(part1);
          release(s1);
          add_partials(acc, part1, false);
          ring.advance();
          const int s3 = wait_full();
          issue(part1, s3, false);
          wgmma_wait<1>();
          fence_registers(part0);
          release(s2);
          add_partials(acc, part0, false);
          wgmma_wait<0>();
          fence_registers(part1);
          release(s3);
          add_partials(acc, part1, false);
          ring.advance();
        };
        // `single`, `pair` and `quad` take one, two or four K blocks; each keeps a wgmma group
        // in flight behind every add but the last, and leaves none in flight when it returns: a
        // group in flight across a loop iteration made ptxas serialise the wgmmas (C7514; v3).
        // A tile's blocks go in quads, then a pair, then a single; the first consumer starts
        // with a quad, the second with a pair, so that the two warp groups' drains (the last
        // add of each call) fall two blocks apart and the other's queued wgmmas keep the
        // tensor cores busy.
        auto walk = [&](auto&& single, auto&& pair, auto&& quad) {
          bool pending = false;
          int prev_tm = 0, prev_tn = 0;
          auto store_prev = [&]() {
            if (pending) store_tile(prev_tm, prev_tn, false, from_acc);
          };
          auto nothing = []() {};
          for (int u = cluster; u < units; u += clusters) {
            int tm, tn;
            unit_tile(u, tm, tn);
            int kb;
            if (consumer == 0 && k_blocks >= 4) {
              quad(std::true_type{}, store_prev);
              kb = 4;
            } else if (k_blocks >= 2) {
              pair(std::true_type{}, store_prev);
              kb = 2;
            } else {
              single(std::true_type{}, store_prev);
              kb = 1;
            }
            for (; kb + 3 < k_blocks; kb += 4) quad(std::false_type{}, nothing);
            for (; kb + 1 < k_blocks; kb += 2) pair(std::false_type{}, nothing);
            if (kb < k_blocks) single(std::false_type{}, nothing);
            pending = true;
            prev_tm = tm;
            prev_tn = tn;
          }
          if (pending) store_tile(prev_tm, prev_tn, true, from_acc);
        };
        walk(single, pair, quad);
      }
    } else {
      // f16/bf16: a finished tile is packed to 16 bits (half of `acc`'s registers), and its
      // stores go out behind the next tile's first K block, whose wgmmas start `acc` afresh:
      // the tensor cores no longer wait for the epilogue (bench/notes/gemm.md, v6). A CTA's
      // last tile stores straight from `acc`. Three consumers (192 rows) have 152 registers:
      // no room for the packed tile beside `acc`, so they store each tile as it ends.
      constexpr bool kBehind = BM == 128;
      std::uint32_t packed[kBehind ? BN / 4 : 1];
      auto from_packed = [&](int g, int half, std::uint32_t(&w)[4]) {
#pragma unroll
        for (int i = 0; i < 4; ++i) w[i] = packed[kBehind ? 8 * g + 2 * i + half : 0];  // acc pair 4(4g + i) + 2 half
        quad_transpose(w, lane);
      };
      bool pending = false;
      int prev_tm = 0, prev_tn = 0;
      // The CTA's last tile ends in its last kTailBlocks K blocks issued column part by column
      // part (kTailCols each, one wgmma group per part), and each part is stored as soon as its
      // group retires, while the later parts run on the tensor cores: only the last part's
      // stores are left after the tensor cores finish (bench/notes/gemm.md, v15).
      constexpr int kParts = kSplitTail<BN> ? BN / kTailCols : 1;
      for (int u = cluster; u < units; u += clusters) {
        int tm, tn;
        unit_tile(u, tm, tn);
        const bool last = u + clusters >= units;
        const bool split = kParts > 1 && last && k_blocks > kTailBlocks;
        const int body = split ? k_blocks - kTailBlocks : k_blocks;  // at least 1
        mbar_wait(full_at + 8 * ring.stage, ring.phase);
        issue(acc, ring.stage, false);
        if (pending) store_tile(prev_tm, prev_tn, false, from_packed);
        int prev_stage = ring.stage;
        ring.advance();
        for (int kb = 1; kb < body; ++kb) {
          mbar_wait(full_at + 8 * ring.stage, ring.phase);
          issue(acc, ring.stage, true);
          // Keep one group in flight: the previous stage is free once its group has retired.
          wgmma_wait<1>();
          release(prev_stage);
          prev_stage = ring.stage;
          ring.advance();
        }
        if constexpr (kParts > 1) {
          // The tail's stages are all waited for while the body's last one is still held: with
          // four blocks in a ring of four the producer could never fill the last (it hung).
          static_assert(kTailBlocks < kStages, "the tail's stages and the body's last must fit in the ring");
          if (split) {
            int tail[kTailBlocks];
#pragma unroll
            for (int i = 0; i < kTailBlocks; ++i) {
              mbar_wait(full_at + 8 * ring.stage, ring.phase);
              tail[i] = ring.stage;
              ring.advance();
            }
            // Part 0 runs in place. ptxas serialises every wgmma of the kernel (C7511) when one
            // writes a slice of `acc` that does not start at acc[0], so the other parts run on
            // copies, taken once the body's last group has retired (part 0 is on the tensor
            // cores by then; the copies are register moves).
            constexpr int kPartRegs = kTailCols / 2, kPartGroups = kTailCols / 32;
            auto& first = *reinterpret_cast<float(*)[kPartRegs]>(&acc[0]);
            issue_blocks(first, tail, std::integral_constant<int, kTailBlocks>{}, true, 0);
            wgmma_wait<1>();
            release(prev_stage);
            float rest[kParts - 1][kPartRegs];
#pragma unroll
            for (int p = 1; p < kParts; ++p)
#pragma unroll
              for (int i = 0; i < kPartRegs; ++i) copy_register(rest[p - 1][i], acc[p * kPartRegs + i]);
            for_each_index(std::make_integer_sequence<int, kParts - 1>{}, [&](auto q) {
              issue_blocks(rest[q], tail, std::integral_constant<int, kTailBlocks>{}, true, (q + 1) * kTailCols / 64);
            });
            // One group in flight per part, retiring in order: each part is stored as soon as
            // its group has, while the later parts run.
            for_each_index(std::make_integer_sequence<int, kParts>{}, [&](auto p) {
              constexpr int kPart = decltype(p)::value;
              wgmma_wait<kParts - 1 - kPart>();
              auto& regs = [&]() -> float(&)[kPartRegs] {
                if constexpr (kPart == 0) return first;
                else return rest[kPart - 1];
              }();
              fence_registers(regs);
              if (kPart == kParts - 1) {
#pragma unroll
                for (int i = 0; i < kTailBlocks; ++i) release(tail[i]);
              }
              store_groups(tm, tn, std::integral_constant<int, kPart * kPartGroups>{},
                           std::integral_constant<int, (kPart + 1) * kPartGroups>{},
                           [&](int g, int half, std::uint32_t(&w)[4]) {
                             row_chunk<typename Traits<E>::Out>(regs, g - kPart * kPartGroups, half, scale, lane, w);
                           });
            });
            // The last tile: leave the loop, so that nothing of a next iteration (the packed
            // tile above all) is live here (with `continue`, ptxas kept it and spilled 240 bytes).
            break;
          }
        }
        wgmma_wait<0>();
        fence_registers(acc);
        release(prev_stage);
        if (!kBehind || last) {
          store_tile(tm, tn, last, from_acc);
          pending = false;
        } else {
#pragma unroll
          for (int j = 0; j < (kBehind ? BN / 4 : 0); ++j)
            packed[j] = pack2<typename Traits<E>::Out>(acc[2 * j] * scale, acc[2 * j + 1] * scale);
          pending = true;
          prev_tm = tm;
          prev_tn = tn;
        }
      }
    }
    if (tid == 0) bulk_wait_all();  // the last stores have landed before the CTA exits
  }
}

template <Elem E, int BM, int BN, int C>
cudaError_t launch_tile(int m, int n, int k, const void* a, const void* b, void* c, const float* sa,
                        const float* sb, cudaStream_t stream) {
  using T = Tile<E, BM, BN>;
  int device = 0;
  cudaError_t err = cudaGetDevice(&device);
  if (err != cudaSuccess) return err;
  const DeviceFacts& facts = device_facts(device);
  if (!facts.hopper || device >= kMaxDevices) return cudaErrorNoKernelImageForDevice;
  // Per device: the shared-memory opt-in, then how many clusters fit at once (GPCs hold
  // uneven SM counts, so 2-CTA clusters can number fewer than SMs / 2). Threads launching at
  // once may both find 0 and both set it up: the set-up is idempotent, the slot atomic.
  static std::atomic<int> max_clusters[kMaxDevices];
  int cluster_limit = max_clusters[device].load(std::memory_order_acquire);
  if (cluster_limit == 0) {
    err = cudaFuncSetAttribute(hopper_gemm_kernel<E, BM, BN, C>, cudaFuncAttributeMaxDynamicSharedMemorySize,
                               T::kSmemBytes);
    if (err != cudaSuccess) return err;
    int found = facts.sms;
    if constexpr (C > 1) {
      cudaLaunchConfig_t probe = {};
      cudaLaunchAttribute attr = {};
      attr.id = cudaLaunchAttributeClusterDimension;
      attr.val.clusterDim.x = C;
      attr.val.clusterDim.y = attr.val.clusterDim.z = 1;
      probe.gridDim = dim3(facts.sms / C * C);
      probe.blockDim = dim3(Groups<BM, BN>::kThreads);
      probe.dynamicSmemBytes = T::kSmemBytes;
      probe.attrs = &attr;
      probe.numAttrs = 1;
      err = cudaOccupancyMaxActiveClusters(&found, hopper_gemm_kernel<E, BM, BN, C>, &probe);
      if (err != cudaSuccess) return err;
    }
    if (found < 1) return cudaErrorInvalidConfiguration;
    cluster_limit = found;
    max_clusters[device].store(found, std::memory_order_release);
  }
  const MapElem me = E == Elem::e4m3 ? MapElem::u8 : MapElem::u16;
  CUtensorMap map_a, map_b;
  // A: k contiguous, m rows; box BK x BM.
  err = tensor_map(map_a, device, me, a, k, m, T::kBK, BM);
  if (err != cudaSuccess) return err;
  if constexpr (Traits<E>::kBKMajor)
    err = tensor_map(map_b, device, me, b, k, n, T::kBK, BN / C);  // B: n x k, box BK x BN/C (one per CTA)
  else
    err = tensor_map(map_b, device, me, b, n, k, 64, T::kBK);      // B: k x n, box 64 x BK
  if (err != cudaSuccess) return err;
  CUtensorMap map_c;  // C: m x n (bf16/f16), one consumer's 64 rows x 64 columns per store
  err = tensor_map(map_c, device, MapElem::u16, c, n, m, kOutCols, 64);
  if (err != cudaSuccess) return err;
  const int units = ((m + BM - 1) / BM + C - 1) / C * ((n + BN - 1) / BN);
  const int clusters = persistent_clusters(units, cluster_limit);
  cudaLaunchConfig_t cfg = {};
  cudaLaunchAttribute attr = {};
  attr.id = cudaLaunchAttributeClusterDimension;
  attr.val.clusterDim.x = C;
  attr.val.clusterDim.y = attr.val.clusterDim.z = 1;
  cfg.gridDim = dim3(clusters * C);
  cfg.blockDim = dim3(Groups<BM, BN>::kThreads);
  cfg.dynamicSmemBytes = T::kSmemBytes;
  cfg.stream = stream;
  cfg.attrs = &attr;
  cfg.numAttrs = C > 1 ? 1 : 0;
  err = cudaLaunchKernelEx(&cfg, hopper_gemm_kernel<E, BM, BN, C>, map_a, map_b, map_c,
                           static_cast<typename Traits<E>::Out*>(c), m, n, k, sa, sb);
  if (err != cudaSuccess) return err;
  return cudaGetLastError();
}

template <Elem E, int C>
cudaError_t launch_elem(int tile_m, int tile_n, int m, int n, int k, const void* a, const void* b, void* c, const float* sa,
                        const float* sb, cudaStream_t stream) {
  // fp8 keeps a partial set beside the fp32 accumulators (256 columns would not fit) and alone
  // has 208 and 176 (f16/bf16 load B in 64-column boxes).
  if constexpr (kPromote<E>) {
    if (tile_m != 128) return cudaErrorInvalidValue;
    switch (tile_n) {
      case 208: return launch_tile<E, 128, 208, C>(m, n, k, a, b, c, sa, sb, stream);
      case 192: return launch_tile<E, 128, 192, C>(m, n, k, a, b, c, sa, sb, stream);
      case 176: return launch_tile<E, 128, 176, C>(m, n, k, a, b, c, sa, sb, stream);
      case 128: return launch_tile<E, 128, 128, C>(m, n, k, a, b, c, sa, sb, stream);
      case 64: return launch_tile<E, 128, 64, C>(m, n, k, a, b, c, sa, sb, stream);
    }
  } else {
    if (tile_m == 192) return tile_n == 192 ? launch_tile<E, 192, 192, C>(m, n, k, a, b, c, sa, sb, stream)
                                            : cudaErrorInvalidValue;
    if (tile_m != 128) return cudaErrorInvalidValue;
    switch (tile_n) {
      case 256: return launch_tile<E, 128, 256, C>(m, n, k, a, b, c, sa, sb, stream);
      case 192: return launch_tile<E, 128, 192, C>(m, n, k, a, b, c, sa, sb, stream);
      case 128: return launch_tile<E, 128, 128, C>(m, n, k, a, b, c, sa, sb, stream);
      case 64: return launch_tile<E, 128, 64, C>(m, n, k, a, b, c, sa, sb, stream);
    }
  }
  return cudaErrorInvalidValue;
}

template <Elem E>
cudaError_t launch_cluster(int cluster, int tile_m, int tile_n, int m, int n, int k, const void* a, const void* b, void* c,
                           const float* sa, const float* sb, cudaStream_t stream) {
  return cluster == 2 ? launch_elem<E, 2>(tile_m, tile_n, m, n, k, a, b, c, sa, sb, stream)
                      : launch_elem<E, 1>(tile_m, tile_n, m, n, k, a, b, c, sa, sb, stream);
}

bool aligned16(const void* p) { return reinterpret_cast<std::uintptr_t>(p) % 16 == 0; }

}  // namespace

int stages(int tile_m, int tile_n) { return stages_for(tile_m, tile_n); }


bool eligible(Elem e, int m, int n, int k, const void* a, const void* b, const void* c) {
  if (m < 1 || n < 1 || k < 1) return false;
  // Row pitches the copy engine accepts (multiples of 16 bytes); n % 8 also keeps the
  // epilogue's paired stores inside each row.
  const bool pitches = e == Elem::e4m3 ? (k % 16 == 0 && n % 8 == 0) : (k % 8 == 0 && n % 8 == 0);
  return pitches && aligned16(a) && aligned16(b) && aligned16(c);
}

cudaError_t launch(Elem e, int tile_m, int tile_n, int cluster, int m, int n, int k, const void* a, const void* b, void* c,
                   const float* scale_a, const float* scale_b, cudaStream_t stream) {
  if (!eligible(e, m, n, k, a, b, c)) return cudaErrorInvalidValue;
  if (e == Elem::e4m3 && (scale_a == nullptr || scale_b == nullptr)) return cudaErrorInvalidValue;
  if (cluster != 1 && cluster != 2) return cudaErrorInvalidValue;
  switch (e) {
    case Elem::f16: return launch_cluster<Elem::f16>(cluster, tile_m, tile_n, m, n, k, a, b, c, scale_a, scale_b, stream);
    case Elem::bf16: return launch_cluster<Elem::bf16>(cluster, tile_m, tile_n, m, n, k, a, b, c, scale_a, scale_b, stream);
    case Elem::e4m3: return launch_cluster<Elem::e4m3>(cluster, tile_m, tile_n, m, n, k, a, b, c, scale_a, scale_b, stream);
  }
  return cudaErrorInvalidValue;
}

}  // namespace assay::kernels::hopper
