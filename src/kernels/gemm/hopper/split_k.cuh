#pragma once
// Split-K and stream-K for the 16-bit single-CTA instances (Cut::split and Cut::stream in hopper_gemm.cu,
// one instance each, `Walk` their SegmentsOf): a CTA
// walks segments, each a run of one output tile's K blocks (k_segments.hpp: how the K loops are cut),
// and tiles whose K is cut into several segments reduce them through global memory. Stream-K gives
// every SM the same work whatever the tile count (93 tiles on 132 SMs leave 30% of them idle in one
// wave; split-K only fits whole multiples of the tiles), at the cost of at most two partial tiles per CTA.
// For shapes whose tiles fill only part of the chip with a deep K (m of a few hundred, or few
// tiles), where one CTA's serial K loop is the whole run (docs/kernels/hopper-gemm.md, "Split-K"
// and "Stream-K").
//
// The reduction goes through global memory, not distributed shared memory: every segment of a cut
// tile writes its fp32 partial tile to its own slot of a workspace (one per plan, gemm_dispatch.cpp),
// then takes a ticket on the tile's counter; the segment that arrives last adds the slots in K order
// (its own from its registers), stores the tile and resets the counter for the next launch. No CTA
// waits for another (so no residency is assumed), and the order of the sum is fixed: results do not
// depend on which segment came last.
// A cluster of S CTAs exchanging through distributed shared memory was built first: its two
// cluster barriers cost about 4 us a CTA (the last split's wait on the slowest), and its runtime
// split argument slowed the unsplit instances by up to 3%; here the unsplit instances compile to
// the same code as before (they never see this file's functions).
#include <cstdint>

#include "kernels/gemm/hopper/consumer.cuh"
#include "kernels/gemm/hopper/epilogue.cuh"
#include "kernels/gemm/hopper/hopper_ptx.cuh"
#include "kernels/gemm/hopper/producer.cuh"
#include "kernels/gemm/hopper/schedule.cuh"
#include "kernels/gemm/k_segments.hpp"

namespace assay::kernels::hopper {

namespace {

constexpr int kSplitBarrier = 7;  // named barrier of all consumer threads (1..3: stores, 3-4: fp8)

// The producer thread: after producer_setup (with nothing primed), every K block of every segment
// of this CTA, each into the next stage once the consumers have freed it.
template <Elem E, int BM, int BN, class Walk>
__device__ __forceinline__ void produce_split(std::uint64_t* empty, Walk segments,
                                              const LoadStage<E, BM, BN, 1>& load_stage) {
  constexpr int kStages = Tile<E, BM, BN>::kStages;
  Ring<kStages> ring;
  Segment g;
  while (segments.next(g)) {
    int tm, tn;
    segments.tile(g, tm, tn);
    for (int kb = g.first; kb < g.end; ++kb) {
      mbar_wait(&empty[ring.stage], ring.phase ^ 1);
      load_stage(ring.stage, kb, tm, tn);
      ring.advance();
    }
  }
}

// A consumer warp group's walk over this CTA's segments. `t` numbers the consumer threads of the
// CTA (0 .. 128 x consumers); each writes and reads its own accumulator registers' elements of a
// partial slot, 16 bytes at a time, a warp's 32 lanes on 512 contiguous bytes.
template <Elem E, int BM, int BN, class Walk>
__device__ __forceinline__ void consume_split(Ring<Tile<E, BM, BN>::kStages>& ring, float (&acc)[BN / 2],
                                              std::uint32_t full_at, Walk segments, int t,
                                              const Issue<E, BM, BN>& issue,
                                              const Release<1>& release, const StoreTile<E, BM, BN>& store_tile,
                                              const FromAcc<E, BN>& from_acc, float* __restrict__ slots,
                                              unsigned* __restrict__ counters) {
  constexpr int kThreads = 128 * Groups<BM, BN>::kConsumers;
  constexpr int kQuads = BN / 8;  // float4s of accumulators per thread
  static_assert(BN % 8 == 0, "the partial slot is written 16 bytes at a time");
  __shared__ int last_arrival;
  Segment g;
  while (segments.next(g)) {
    int tm, tn;
    segments.tile(g, tm, tn);
    mbar_wait(full_at + 8 * ring.stage, ring.phase);
    issue(acc, ring.stage, false);
    int prev_stage = ring.stage;
    ring.advance();
    for (int kb = g.first + 1; kb < g.end; ++kb) {
      mbar_wait(full_at + 8 * ring.stage, ring.phase);
      issue(acc, ring.stage, true);
      wgmma_wait<1>();  // one group in flight: the previous stage is free once its group retired
      release(prev_stage);
      prev_stage = ring.stage;
      ring.advance();
    }
    wgmma_wait<0>();
    fence_registers(acc);
    release(prev_stage);

    if (g.count > 1) {
      // This segment's partial to its slot (through L2: another SM reads it), then the ticket. The
      // fence before the barrier orders every thread's stores before thread 0's atomic.
      float4* own = reinterpret_cast<float4*>(slots + segments.slot(g, g.index) * (BM * BN));
#pragma unroll
      for (int q = 0; q < kQuads; ++q)
        __stcg(own + q * kThreads + t, make_float4(acc[4 * q], acc[4 * q + 1], acc[4 * q + 2], acc[4 * q + 3]));
      __threadfence();
      named_barrier(kSplitBarrier, kThreads);
      if (t == 0) {
        const bool last = atomicAdd(&counters[segments.counter(g)], 1u) == static_cast<unsigned>(g.count - 1);
        if (last) counters[segments.counter(g)] = 0;  // every segment has arrived: ready for the next launch
        last_arrival = last;
      }
      named_barrier(kSplitBarrier, kThreads);
      if (!last_arrival) continue;
      __threadfence();
      float sum[BN / 2];
#pragma unroll
      for (int i = 0; i < BN / 2; ++i) sum[i] = 0.0f;
      for (int j = 0; j < g.count; ++j) {
        if (j == g.index) {
#pragma unroll
          for (int i = 0; i < BN / 2; ++i) sum[i] += acc[i];
          continue;
        }
        const float4* other = reinterpret_cast<const float4*>(slots + segments.slot(g, j) * (BM * BN));
#pragma unroll
        for (int q = 0; q < kQuads; ++q) {
          const float4 v = __ldcg(other + q * kThreads + t);
          sum[4 * q] += v.x;
          sum[4 * q + 1] += v.y;
          sum[4 * q + 2] += v.z;
          sum[4 * q + 3] += v.w;
        }
      }
#pragma unroll
      for (int i = 0; i < BN / 2; ++i) acc[i] = sum[i];
    }
    store_tile(tm, tn, true, from_acc);  // straight from the registers
  }
}

}  // namespace

}  // namespace assay::kernels::hopper
