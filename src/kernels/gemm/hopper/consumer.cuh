#pragma once
// What the consumer warp groups of the Hopper GEMM share, 16-bit and fp8 alike: issuing a
// stage's wgmmas into an accumulator set, and releasing a stage back to the producer. The
// structs refer to the kernel's locals, as lambdas capturing them by reference would: the
// accumulators stay the kernel's own arrays.
#include <cstdint>
#include <type_traits>
#include <utility>

#include "kernels/gemm/hopper/hopper_ptx.cuh"
#include "kernels/gemm/hopper/schedule.cuh"
#include "kernels/gemm/hopper/wgmma_ops.cuh"

namespace assay::kernels::hopper {

namespace {

// Calls f(std::integral_constant<int, I>) for each I of the sequence, in order.
template <typename F, int... I>
__device__ __forceinline__ void for_each_index(std::integer_sequence<int, I...>, F&& f) {
  (f(std::integral_constant<int, I>{}), ...);
}

template <Elem E, int N>
__device__ __forceinline__ void mma(float (&d)[N / 2], std::uint64_t da, std::uint64_t db, int acc) {
  if constexpr (E == Elem::f16) wgmma_f16<N>(d, da, db, acc);
  else if constexpr (E == Elem::bf16) wgmma_bf16<N>(d, da, db, acc);
  else wgmma_e4m3<N>(d, da, db, acc);
}

// Frees stage s for the producer of this CTA and of every peer (each multicast into all of them).
// One lane per warp signals, so the local and the remote arrivals go out side by side: warp w
// (1 <= w < C) arrives on the barrier of rank ^ w, which takes each other rank once.
template <int C>
struct Release {
  const int& tid;
  const std::uint32_t& empty_at;
  std::uint64_t* const& empty;
  const unsigned& rank;
  __device__ void operator()(int s) const {
    if (tid == 0) mbar_arrive(empty_at + 8 * s);
    if constexpr (C > 1)
      if (tid % 32 == 0 && tid / 32 >= 1 && tid / 32 < C)
        mbar_arrive_cluster(&empty[s], rank ^ static_cast<unsigned>(tid / 32));
  }
};

// Issues the wgmmas of `blocks` K blocks (stages s[0..blocks)) into `d`, a 64 x N accumulator
// set (N = 2 x its registers) for the N columns from 64-column atom `atom0` of B (f16/bf16:
// atoms are BK rows of 128 bytes apart), as one wgmma group. desc_a0 and desc_b0 describe
// stage 0 (see the kernel).
template <Elem E, int BM, int BN>
struct IssueBlocks {
  using T = Tile<E, BM, BN>;
  const std::uint64_t& desc_a0;
  const std::uint64_t& desc_b0;
  template <typename D, typename Blocks>
  __device__ void operator()(D& d, const int* s, Blocks blocks, bool accumulate_first, int atom0) const {
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
  }
};

// One K block (stage s) into the whole accumulator set `d`.
template <Elem E, int BM, int BN>
struct Issue {
  const IssueBlocks<E, BM, BN>& issue_blocks;
  template <typename D>
  __device__ void operator()(D& d, int s, bool accumulate_first) const {
    issue_blocks(d, &s, std::integral_constant<int, 1>{}, accumulate_first, 0);
  }
};

}  // namespace

}  // namespace assay::kernels::hopper
