#pragma once
// The f16/bf16 consumer loop of the Hopper GEMM: a finished tile is packed to 16 bits (half of
// `acc`'s registers), and its stores go out behind the next tile's first K block, whose wgmmas
// start `acc` afresh: the tensor cores no longer wait for the epilogue
// (docs/kernels/hopper-gemm.md, v6). A CTA's last tile stores straight from `acc`.
#include <cstdint>
#include <type_traits>
#include <utility>

#include "kernels/gemm/hopper/consumer.cuh"
#include "kernels/gemm/hopper/epilogue.cuh"
#include "kernels/gemm/hopper/hopper_ptx.cuh"
#include "kernels/gemm/hopper/schedule.cuh"

namespace assay::kernels::hopper {

namespace {

// The f16/bf16 epilogue of a CTA's last tile overlapped with its last K blocks (the consumer
// loop): the last kTailBlocks blocks are issued in column parts kTailCols wide, for widths that
// hold more than one part. Two parts of 128 took 1-1.5% off one wave at 2048^3; four of 64 ran
// their wgmmas slower than they saved (A is read from shared memory once per part; v15).
constexpr int kTailBlocks = 2;
constexpr int kTailCols = 128;
template <int BN>
constexpr bool kSplitTail = BN % kTailCols == 0 && BN > kTailCols;

// A consumer warp group's walk over this CTA's tiles, into the kernel's accumulators `acc`.
template <Elem E, int BM, int BN, int C>
__device__ __forceinline__ void consume_16bit(Ring<Tile<E, BM, BN>::kStages>& ring, float (&acc)[BN / 2],
                                              std::uint32_t full_at, int lane, float scale, int cluster,
                                              int clusters, int units, int k_blocks, const UnitTile<C>& unit_tile,
                                              const IssueBlocks<E, BM, BN>& issue_blocks,
                                              const Issue<E, BM, BN>& issue, const Release<C>& release,
                                              const StoreGroups<E, BM, BN>& store_groups,
                                              const StoreTile<E, BM, BN>& store_tile,
                                              const FromAcc<E, BN>& from_acc) {
  constexpr int kStages = Tile<E, BM, BN>::kStages;
  // Three consumers (192 rows) have 152 registers: no room for the packed tile beside `acc`, so
  // they store each tile as it ends. One consumer (64 rows) has 255.
  constexpr bool kBehind = BM != 192;
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
  // stores are left after the tensor cores finish (docs/kernels/hopper-gemm.md, v15).
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

}  // namespace

}  // namespace assay::kernels::hopper
