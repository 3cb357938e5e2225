#pragma once
// The GEMM kernels that assay owns, behind one launch function (gemm_dispatch.cpp):
//   f16 / bf16   the Hopper kernel (wgmma + TMA, hopper/) on compute capability 9.0 when the
//                operands are 16-byte addressable, else the mma.sync kernel (sm_80+, any shape)
//   f8e4m3       the Hopper kernel when addressable, else an fp32 CUDA-core fallback
//   f32          the FFMA SIMT kernel
#include <cuda_runtime.h>

#include <cstddef>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

namespace assay::kernels {

enum class GemmDtype { f32, f16, bf16, f8e4m3 };

// f32/f16/bf16: C[m,n] = A[m,k] * B[k,n], all row-major and dense, C in the input type.
// f8e4m3:       C[m,n] = scale_a * scale_b * A[m,k] * B[n,k]^T (B stored n x k), C bf16.
// fp32 accumulation, C rounded to nearest even. Every m, n, k >= 1 is valid.
struct GemmCall {
  GemmDtype dtype = GemmDtype::f16;
  int m = 0, n = 0, k = 0;
  const void* a = nullptr;
  const void* b = nullptr;
  void* c = nullptr;
  const float* scale_a = nullptr;  // f8e4m3: device pointers to the per-tensor scales
  const float* scale_b = nullptr;
};

// Configurations a caller may pin (gemm_configs.hpp): "auto" (the shape heuristic),
// "wgmma_128x{256,208,192,176,128,64}", "wgmma_192x192", "wgmma_64x128" (Hopper kernel, tile M x N;
// "_c2": in CTA pairs; "_c4" (f16/bf16, 128 x {128,192,256}): clusters of four row tiles; 208 and 176 fp8 only,
// 192x192 and 64x128 f16/bf16 only), "wgmma_128x{128,64}_k<S>" and "wgmma_64x128_k<S>" (f16/bf16: S
// CTAs share each tile's K, S from 2 to 16 here; the backends are named for 2, 3, 4, 6 and 8; the plan's
// name ends "_k<S>r" where neighbouring CTAs take a row's tiles, not a column's: k_segments.hpp),
// "wgmma_128x{128,64}_sk" and "wgmma_64x128_sk" (f16/bf16 stream-K: groups of one CTA per tile row, as
// many as fit on the SMs, share all tile columns' K blocks evenly),
// "mma_sync" (f16/bf16), "simt" (f32, f8e4m3).
const std::vector<std::string>& gemm_configs();

enum class GemmKernel { none, hopper, mma_sync, simt };

struct GemmPlan {
  std::string name;         // the kernel and its tiling, e.g. "wgmma_128x256x64_s4"; empty if unavailable
  std::string unavailable;  // why `config` cannot run this call (device, alignment, dtype)
  GemmKernel kernel = GemmKernel::none;
  int tile_m = 128;  // hopper: output tile rows
  int tile_n = 0;   // hopper: output tile width
  int cluster = 1;  // hopper: CTAs per cluster
  int splits = 1;   // hopper: CTAs sharing each tile's K blocks (split-K)
  bool split_by_row = false;  // hopper split-K: neighbouring CTAs take a row's tiles (share A), not a column's
  int stream_ctas = 0;  // hopper: stream-K's grid (CTAs sharing all tiles' K blocks evenly); 0: none
  // Split-K's and stream-K's workspace (tile counters and fp32 partial tiles), allocated on the current device by
  // plan_gemm (which then waits for its zeroing: planning a split is synchronous, so plan before a
  // stream capture) and freed with the last copy of the plan. Copies of a plan share it, so their
  // launches must not overlap (one stream, or ordered by events); a split plan launches only at
  // its planned m x n on its planned device (cudaErrorInvalidValue otherwise).
  std::shared_ptr<void> workspace;
  std::size_t workspace_bytes = 0;
  int split_m = 0, split_n = 0, split_device = -1;
};

// The kernel `config` runs for `call`, without launching: the device checks, the eligibility
// test and the shape heuristic. Reads the current device. An empty name: `unavailable` says why.
GemmPlan plan_gemm(const GemmCall& call, std::string_view config = "auto");

// Launches `plan` for `call` on `stream`, choosing nothing again: a caller that launches the
// same shape many times (a timed loop) plans once. `call` must match the planned one in dtype
// and sizes; its pointers may change (the Hopper kernel re-checks their alignment).
// cudaErrorInvalidValue for a plan with no kernel; otherwise the launch's error.
cudaError_t launch_gemm(const GemmPlan& plan, const GemmCall& call, cudaStream_t stream);

}  // namespace assay::kernels
