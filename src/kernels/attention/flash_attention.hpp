#pragma once
// assay's fused attention forward (flash attention: K/V streamed through shared memory, the
// s x s scores never leave registers, online softmax). O = softmax(Q·Kᵀ·scale [causal]) · V
// per (batch, head); Q, K, V, O are [b, h, s, d] row-major, f16 or bf16, fp32 accumulation.
#include <cuda_runtime.h>

#include <functional>
#include <string>

#include "core/dtype.hpp"

namespace assay::kernels {

// Where a head's rows of one tensor are when they are not the dense [heads, s, d] layout: head
// index y = b · heads_per_batch + h starts at b·batch + h·head elements and its rows are `row`
// elements apart (each row's d elements contiguous). row = 0: dense. Only the mma.sync kernel
// reads strided tensors (the wgmma kernel's TMA descriptors assume dense ones); strides and
// offsets must keep every row 16-byte aligned.
struct HeadStrides {
  long long batch = 0, head = 0, row = 0;
};

struct FlashAttentionArgs {
  const void* q = nullptr;
  const void* k = nullptr;
  const void* v = nullptr;
  void* o = nullptr;
  int heads = 0;  // b * h
  int s = 0;
  int d = 0;
  bool causal = false;
  float scale = 0.0f;  // usually 1/sqrt(d)
  DType dtype = DType::f16;
  int heads_per_batch = 1;  // for strided tensors
  HeadStrides q_strides, k_strides, v_strides, o_strides;
  bool strided() const { return q_strides.row || k_strides.row || v_strides.row || o_strides.row; }
};

// One kernel configuration.
//  - mma.sync (sm_80 and newer): `rows` = 16 per warp, 64 (4 warps) or 128 (8 warps) query
//    rows per block; K/V blocks of 64 keys, double-buffered by cp.async.
//  - wgmma (sm_90a, Hopper only): `rows` = 64 per consumer warp group, 64 or 128; K/V blocks
//    of 128 keys (80 at d = 256, which has the 128-row instance only) in a 2-stage TMA ring
//    (kernels/attention/hopper/flash_hopper.cu); with 64
//    rows, `splits` CTAs (1, 2, 4 or 8; one cluster) per query block, each taking a share of
//    its key blocks, merged through distributed shared memory.
struct FlashConfig {
  bool wgmma = false;
  int rows = 64;
  int splits = 1;
  std::string name(int d) const;
};

// The configuration a pinned name ("wgmma_m64_kv4", see attention_configs.hpp) stands for.
FlashConfig flash_config_named(const std::string& name);

// Whether the kernel family takes this problem: f16/bf16, d in {64, 128} (and 256 where
// `hopper`: the wgmma kernel only), 1 <= b·h <= 65535. Empty when it does, else the reason.
// (The tensors must also be 16-byte aligned, as cudaMalloc'd buffers are; the launch returns
// cudaErrorInvalidValue otherwise.)
std::string flash_attention_unsupported(DType dtype, long long heads, long long s, long long d, bool hopper);

// Whether configuration c has an instance for head dimension d: 64 or 128 rows; split-KV (2, 4,
// 8) on wgmma_m64 only; d = 256 on wgmma_m128 only. Empty when it has, else the reason.
std::string flash_config_unsupported(const FlashConfig& c, long long d);

// The configuration the shape heuristic picks for this device: the wgmma family on Hopper,
// mma.sync elsewhere (64 rows: 4 warps ran faster than 8 at every measured shape). Hopper:
// 64 rows (one consumer warp group) for d = 64; for d = 128 64 rows while those CTAs fit one
// wave (b·h·⌈s/64⌉ <= SMs: one CTA per SM), else the 128-row block (two consumers share each K/V
// block; docs/kernels/attention.md, "One wave of 64-row CTAs"); d = 256: 128 rows always. Hopper with s <= 64 and at least as many 64-row
// blocks as SMs: mma.sync (docs/kernels/attention.md, short sequences).
//
// Hopper, split-KV (FlashConfig::splits), where the query blocks leave SMs idle: the shares S in
// {1, 2, 4} minimising ⌈kv/S⌉ + 1.5·[S > 1] key blocks of serial work per CTA (kv: the last query
// block's key blocks; 1.5 blocks: the merge, measured), among those that keep one CTA per SM
// (blocks·S <= SMs) and whose clusters are all resident at once (`capacity`). Clusters of 8
// never won a measurement (docs/kernels/attention.md, split-KV).
//
// capacity(splits): how many clusters of `splits` CTAs can be resident at once at one CTA per SM;
// empty (host-only callers, unit tests): SMs / splits.
using ClusterCapacity = std::function<int(int splits)>;
FlashConfig choose_flash_config(const FlashAttentionArgs& a, int sm_count, bool hopper,
                                const ClusterCapacity& capacity = {});
int choose_flash_splits(const FlashAttentionArgs& a, int rows, int sm_count, const ClusterCapacity& capacity = {});

// The current device's capacity (cudaOccupancyMaxActiveClusters of the kernel that holds one CTA
// per SM).
ClusterCapacity device_cluster_capacity(const FlashAttentionArgs& a);

// cudaErrorInvalidValue for a configuration the problem or the device cannot take.
cudaError_t launch_flash_attention(const FlashAttentionArgs& a, const FlashConfig& c, cudaStream_t stream);

namespace detail {
cudaError_t launch_flash_mma(const FlashAttentionArgs& a, int rows, cudaStream_t stream);
}

}  // namespace assay::kernels
