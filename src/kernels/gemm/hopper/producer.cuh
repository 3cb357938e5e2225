#pragma once
// The producer of the Hopper GEMM: one thread of warp group 0 sets up the ring's barriers and
// fills its stages with TMA loads of A and B, tile by tile, K block by K block.
#include <cstdint>

#include "kernels/gemm/hopper/hopper_ptx.cuh"
#include "kernels/gemm/hopper/schedule.cuh"

namespace assay::kernels::hopper {

namespace {

// The producer's fill of one stage: K block kb of output tile (tm, tn). Refers to the kernel's
// locals, as a lambda capturing them by reference would.
template <Elem E, int BM, int BN, int C>
struct LoadStage {
  using T = Tile<E, BM, BN>;
  unsigned char* const& smem;
  std::uint64_t* const& full;
  const CUtensorMap& map_a;
  const CUtensorMap& map_b;
  const unsigned& rank;
  __device__ void operator()(int stage, int kb, int tm, int tn) const {
    unsigned char* sa = smem + stage * T::kStageBytes;
    unsigned char* sb = sa + T::kABytes;
    // Own A plus both halves of B (one from each CTA) land in this stage.
    mbar_arrive_expect_tx(&full[stage], T::kStageBytes);
    // Pairs ask for the shared B first and their own A after it: the CTAs of other pairs that
    // read the same A rows then meet more often in the L2's request coalescer, which serves 5-30%
    // more of their A sectors with one lookup (by build; docs/kernels/hopper-gemm.md, v12).
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
      static_assert(C == 2, "fp8 (K-major B) runs alone or in pairs");
      constexpr int kHalf = BN / 2;  // rows of B (n) per CTA
      tma_load_2d_multicast(sb + rank * kHalf * kRowBytes, &map_b, &full[stage], kb * T::kBK,
                            tn * BN + static_cast<int>(rank) * kHalf, 0x3);
    } else {
      // 64-column boxes (128 bytes of N each), dealt in turn to the cluster's CTAs (with four CTAs
      // and a 128-wide tile, ranks 2 and 3 load only their A), each multicast to all of them.
#pragma unroll
      for (int j = 0; j < BN / 64; ++j)
        if (j % C == static_cast<int>(rank))
          tma_load_2d_multicast(sb + j * T::kBK * kRowBytes, &map_b, &full[stage], tn * BN + j * 64, kb * T::kBK,
                                (1u << C) - 1);
    }
    if constexpr (C > 1) tma_load_2d(sa, &map_a, &full[stage], kb * T::kBK, tm * BM);
  }
};

// Thread 0 before the CTA's barrier: the tensor maps' prefetch and the ring's barriers. Single
// CTAs also fill the first stages of their first tile here (`primed` of them), before the CTA's
// barrier and the register hand-over (a fresh ring is empty). Pairs cannot: a multicast needs the
// peer's barriers set up.
template <Elem E, int BM, int BN, int C>
__device__ __forceinline__ void producer_setup(const CUtensorMap& map_a, const CUtensorMap& map_b,
                                               const CUtensorMap& map_c, std::uint64_t* full, std::uint64_t* empty,
                                               int cluster, int units, int k_blocks, const UnitTile<C>& unit_tile,
                                               const LoadStage<E, BM, BN, C>& load_stage, int& primed) {
  constexpr int kStages = Tile<E, BM, BN>::kStages;
  prefetch_tensor_map(&map_a);
  prefetch_tensor_map(&map_b);
  prefetch_tensor_map(&map_c);
  for (int s = 0; s < kStages; ++s) {
    mbar_init(&full[s], 1);
    // A stage is rewritten (in both CTAs) once both consumers of both CTAs are done with it.
    mbar_init(&empty[s], Tile<E, BM, BN>::kConsumers * C);
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

// The producer thread's walk: every K block of every tile of this CTA, each into the next stage
// once the consumers have freed it (the first `primed` were loaded by producer_setup).
template <Elem E, int BM, int BN, int C>
__device__ __forceinline__ void produce(std::uint64_t* empty, int primed, int cluster, int clusters, int units,
                                        int k_blocks, const UnitTile<C>& unit_tile,
                                        const LoadStage<E, BM, BN, C>& load_stage) {
  constexpr int kStages = Tile<E, BM, BN>::kStages;
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
  // and took 0.3-1 us off every paired launch (docs/kernels/hopper-gemm.md, v6).
  if constexpr (C > 1) {
    for (int s = 0; s < kStages; ++s) {
      mbar_wait(&empty[ring.stage], ring.phase ^ 1);
      ring.advance();
    }
  }
}

}  // namespace

}  // namespace assay::kernels::hopper
