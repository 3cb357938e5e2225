#pragma once
// Device pieces both Hopper flash attention kernels use (flash_hopper.cu for f16/bf16,
// flash_hopper_fp8.cu for e4m3), on the fp32 accumulators of an m64nN wgmma: accumulator
// 4·nt + e of a thread (lane = 4g + t of its warp) is n8 tile nt, column 8nt + 2t + (e & 1),
// row g + 8·(e >> 1) of the warp's 16. The ring, TMA loads and descriptors are the GEMM's
// (kernels/gemm/hopper/hopper_ptx.cuh).
#include <cmath>
#include <cstdint>

#include "kernels/gemm/hopper/hopper_ptx.cuh"

namespace assay::kernels::attention_hopper {

// 2^x on the SFU alone (MUFU.EX2), flushing denormal results to zero; exp2f adds a range
// fix-up around it for denormals, which softmax weights below 2^-126 do not need. 2^-inf = 0.
__device__ __forceinline__ float ex2(float x) {
  float y;
  asm("ex2.approx.ftz.f32 %0, %1;" : "=f"(y) : "f"(x));
  return y;
}

// Row r of a block's scores (accumulators 4·nt + 2r, 4·nt + 2r + 1): the maximum of `start` and
// the thread's values. Four partial maxima, not one chain of kBN/4 dependent FMNMX stalled on their
// latency.
template <int kBN>
__device__ __forceinline__ float row_max_of(const float (&sacc)[kBN / 2], int r, float start) {
  float part[4] = {start, -INFINITY, -INFINITY, -INFINITY};
#pragma unroll
  for (int nt = 0; nt < kBN / 8; ++nt)
    part[nt % 4] = fmaxf(part[nt % 4], fmaxf(sacc[4 * nt + 2 * r], sacc[4 * nt + 2 * r + 1]));
  return fmaxf(fmaxf(part[0], part[1]), fmaxf(part[2], part[3]));
}

// Row r of a block's scores x to the unnormalised weights 2^(x·sl + bias), in place; returns the
// thread's sum of them (four partial sums, as above).
template <int kBN>
__device__ __forceinline__ float exp2_row(float (&sacc)[kBN / 2], int r, float sl, float bias) {
  float sums[4] = {0.0f, 0.0f, 0.0f, 0.0f};
#pragma unroll
  for (int nt = 0; nt < kBN / 8; ++nt) {
    const float p0 = ex2(fmaf(sacc[4 * nt + 2 * r], sl, bias));
    const float p1 = ex2(fmaf(sacc[4 * nt + 2 * r + 1], sl, bias));
    sacc[4 * nt + 2 * r] = p0;
    sacc[4 * nt + 2 * r + 1] = p1;
    sums[nt % 4] += p0 + p1;
  }
  return (sums[0] + sums[1]) + (sums[2] + sums[3]);
}

// The max and the sum of a row's values over the 4 lanes of a quad (the row's 4 threads).
__device__ __forceinline__ float quad_max(float x) {
  x = fmaxf(x, __shfl_xor_sync(0xffffffffu, x, 1));
  return fmaxf(x, __shfl_xor_sync(0xffffffffu, x, 2));
}
__device__ __forceinline__ float quad_sum(float x) {
  x += __shfl_xor_sync(0xffffffffu, x, 1);
  return x + __shfl_xor_sync(0xffffffffu, x, 2);
}

// Scores of keys past s, or (causal) past the row, set to -inf in the block of kBN keys from k0.
// Tested per element only in blocks that cross s or the warp's diagonal. row0: the thread's first
// row (g); warp_row0: the warp's first.
template <int kBN>
__device__ __forceinline__ void mask_block(float (&sacc)[kBN / 2], int k0, int s, bool causal, int warp_row0, int row0,
                                           int t) {
  if (k0 + kBN <= s && !(causal && k0 + kBN - 1 > warp_row0)) return;
#pragma unroll
  for (int nt = 0; nt < kBN / 8; ++nt)
#pragma unroll
    for (int e = 0; e < 4; ++e) {
      const int key = k0 + nt * 8 + 2 * t + (e & 1);
      const int row = row0 + (e >> 1) * 8;
      if (key >= s || (causal && key > row)) sacc[4 * nt + e] = -INFINITY;
    }
}

// A row's reference max `ref` (the m of P = 2^((x - m)·sl)) after a block whose max, the
// reference included, is mx; returns the factor alpha by which its O and row sum are rescaled.
// kLazy = false: m follows the row's max (FlashAttention-2/3). kLazy = true: FlashAttention-4's
// conditional rescale: m moves only when mx exceeds it by more than `lag` (log2 units), so the
// weights reach 2^lag and most blocks leave alpha = 1, which rescale_rows<true> skips.
template <bool kLazy>
__device__ __forceinline__ float move_reference_max(float& ref, float mx, float sl, float lag) {
  if constexpr (kLazy) {
    // −inf − (−inf) is NaN, which compares false: a row with every key so far masked keeps −inf.
    if (!((mx - ref) * sl > lag)) return 1.0f;
    const float alpha = ex2((ref - mx) * sl);
    ref = mx;
    return alpha;
  } else {
    // A row with every key so far masked keeps max −inf; subtract 0 then, not −inf (NaN).
    const float alpha = ex2(ref * sl - (mx == -INFINITY ? 0.0f : mx * sl));
    ref = mx;
    return alpha;
  }
}

// O's accumulators times each of the thread's two rows' factor. kSkipOnes: skipped by a warp
// whose factors are all 1 (move_reference_max<true> moved no row's max); a warp vote, worth it
// only where O is large enough (docs/kernels/attention.md, v11).
template <bool kSkipOnes, int N>
__device__ __forceinline__ void rescale_rows(float (&acc)[N], const float (&alpha)[2]) {
  if constexpr (kSkipOnes)
    if (!__any_sync(0xffffffffu, alpha[0] != 1.0f || alpha[1] != 1.0f)) return;
#pragma unroll
  for (int i = 0; i < N; ++i) acc[i] *= alpha[(i % 4) >> 1];
}

// The mbarriers of a K/V ring (shared-memory addresses of stage 0; 8 bytes a stage).
struct KvBarriers {
  std::uint32_t full_k, full_v, empty_k, empty_v;
};

// FlashAttention-3's consumer loop over key blocks [first, last): S_{j+1} and P_j·V_j issued back
// to back, S_{j+1}'s softmax while P_j·V_j occupies the tensor cores; P_{j+1} packed, and O
// rescaled, once P_j·V_j has retired (the wgmma reads its A registers until then). The last block
// is peeled: a branch on it inside the loop made ptxas serialise the wgmmas (C7514). `turn()`
// before and `pass(last)` after each group of issued wgmmas order the warp groups (ping-pong);
// no-ops where they do not take turns. The kernel's lambdas: issue_s(sacc, stage),
// issue_pv(pa, stage), softmax(sacc, j, alpha), pack_p(sacc, pa). `leader`: the thread that
// releases the ring's slots. kLazy: the kernel's softmax uses move_reference_max<kLazy>.
template <int kStages, bool kLazy, class SAcc, class OAcc, class PFrag, class IssueS, class IssuePv, class Softmax, class PackP,
          class Turn, class Pass>
__device__ __forceinline__ void overlapped_key_blocks(int first, int last, const KvBarriers& bar, bool leader,
                                                      SAcc& sacc, OAcc& oacc, PFrag& pa, float (&alpha)[2],
                                                      IssueS issue_s, IssuePv issue_pv, Softmax softmax, PackP pack_p,
                                                      Turn turn, Pass pass) {
  if (first >= last) return;
  hopper::Ring<kStages> rk, rv;
  hopper::mbar_wait(bar.full_k + 8 * rk.stage, rk.phase);
  turn();
  issue_s(sacc, rk.stage);
  pass(false);
  hopper::wgmma_wait<0>();
  hopper::fence_registers(sacc);
  if (leader) hopper::mbar_arrive(bar.empty_k + 8 * rk.stage);
  rk.advance();
  softmax(sacc, first, alpha);  // O is zero: this alpha needs no rescale
  pack_p(sacc, pa);
  for (int j = first; j + 1 < last; ++j) {
    hopper::mbar_wait(bar.full_k + 8 * rk.stage, rk.phase);
    turn();
    issue_s(sacc, rk.stage);
    hopper::mbar_wait(bar.full_v + 8 * rv.stage, rv.phase);
    issue_pv(pa, rv.stage);
    pass(false);
    hopper::wgmma_wait<1>();
    hopper::fence_registers(sacc);
    if (leader) hopper::mbar_arrive(bar.empty_k + 8 * rk.stage);
    rk.advance();
    softmax(sacc, j + 1, alpha);
    hopper::wgmma_wait<0>();
    hopper::fence_registers(oacc);
    if (leader) hopper::mbar_arrive(bar.empty_v + 8 * rv.stage);
    rv.advance();
    rescale_rows<kLazy>(oacc, alpha);
    pack_p(sacc, pa);
  }
  hopper::mbar_wait(bar.full_v + 8 * rv.stage, rv.phase);
  turn();
  issue_pv(pa, rv.stage);
  pass(true);
  hopper::wgmma_wait<0>();
  hopper::fence_registers(oacc);
  // The last V slot is not given back: the CTA ends here and its producer loads no more. A loop
  // that goes on to another tile (a persistent grid) must release it and advance rv.
}

}  // namespace assay::kernels::attention_hopper
