#pragma once
// The fp8 (e4m3) consumer loop of the Hopper GEMM: wgmma's e4m3 accumulation keeps fewer bits
// than fp32, so each K block (128 products) is summed on its own into a partial set and added to
// the fp32 accumulators, as cuBLASLt does without fast accumulation. The first call of a tile
// issues its first block(s) and then stores the previous tile (`after_issue`), so that epilogue
// runs behind this tile's first wgmmas (the partial sets are apart from `acc`;
// docs/kernels/hopper-gemm.md, v5).
#include <cstdint>
#include <type_traits>

#include "kernels/gemm/hopper/consumer.cuh"
#include "kernels/gemm/hopper/epilogue.cuh"
#include "kernels/gemm/hopper/hopper_ptx.cuh"
#include "kernels/gemm/hopper/schedule.cuh"

namespace assay::kernels::hopper {

namespace {

// fp8 widths promoted with one partial set per warp group and the two warp groups' wgmmas
// alternating (acc + one set: BN registers): 208, 192 and 176 (192 ran 4-12% faster that way than
// in halves); at 128 the quads stay (the alternation cost the 2-CTA clusters 3% at 4096^3; v5c).
template <int BN>
constexpr bool kOrdered = BN == 208 || BN == 192 || BN == 176;

// Adds a partial set into the accumulators, or copies it there when it is a tile's first K block.
template <int R>
__device__ __forceinline__ void add_partials(float (&acc)[R], const float (&part)[R], bool first) {
#pragma unroll
  for (int i = 0; i < R; ++i) acc[i] = first ? part[i] : acc[i] + part[i];
}

// The first free stage, once its loads have landed.
template <int S>
struct WaitFull {
  Ring<S>& ring;
  const std::uint32_t& full_at;
  __device__ int operator()() const {
    mbar_wait(full_at + 8 * ring.stage, ring.phase);
    return ring.stage;
  }
};

// The widths of kOrdered: one K block into the warp group's partial set `part`, issued in its
// turn (named barriers my_turn and their_turn), then added to `acc` once retired; the first
// block of a tile calls `after_issue` (the previous tile's epilogue) behind its wgmmas. The
// loop over the tiles stays in the kernel (see there).
template <Elem E, int BM, int BN, int C>
struct OrderedBlock {
  const WaitFull<Tile<E, BM, BN>::kStages>& wait_full;
  Ring<Tile<E, BM, BN>::kStages>& ring;
  const int& my_turn;
  const int& their_turn;
  const Issue<E, BM, BN>& issue;
  float (&part)[BN / 2];
  const Release<C>& release;
  float (&acc)[BN / 2];
  template <typename First, typename AfterIssue>
  __device__ void operator()(First first, AfterIssue&& after_issue) const {
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
  }
};

// The fp8 widths up to 128 columns: a consumer warp group's walk over this CTA's tiles
// (`consumer`: rows [64 * consumer, +64) of each), into the kernel's accumulators `acc`.
template <Elem E, int BM, int BN, int C>
__device__ __forceinline__ void consume_fp8_quads(Ring<Tile<E, BM, BN>::kStages>& ring, float (&acc)[BN / 2],
                                                  std::uint32_t full_at, int consumer, int cluster, int clusters,
                                                  int units, int k_blocks, const UnitTile<C>& unit_tile,
                                                  const Issue<E, BM, BN>& issue, const Release<C>& release,
                                                  const StoreTile<E, BM, BN>& store_tile,
                                                  const FromAcc<E, BN>& from_acc) {
  const WaitFull<Tile<E, BM, BN>::kStages> wait_full{ring, full_at};
  static_assert(BN <= 128, "two fp8 partial sets of the whole width fit up to 128 columns");
  // Up to 128 columns: two partial sets of the whole width, alternating over the blocks
  // of a call (3 x BN/2 registers). Calls of four blocks drain half as often as pairs:
  // 1.5-2.5% at 4096^3 (docs/kernels/hopper-gemm.md, v5). Written out: the same calls built
  // from shared helper lambdas compiled differently and ran 8% slower at 6144^3 (v5).
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

}  // namespace

}  // namespace assay::kernels::hopper
