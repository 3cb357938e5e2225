#pragma once
// assay's FP8 (e4m3) flash attention forward for Hopper (sm_90a): Q, K, V in e4m3 with fp32
// descales (per tensor, or per (batch, head)), O in bf16, fp32 accumulation. The kernel is in
// kernels/attention/hopper/flash_hopper_fp8.cu; docs/kernels/attention.md ("FP8 kernel") has
// its design and measurements.
#include <cuda_runtime.h>

#include <cstddef>
#include <string>

namespace assay::kernels {

struct FlashFp8Args {
  const void* q = nullptr;  // [b·h, s, d] e4m3, dense
  const void* k = nullptr;
  const void* v = nullptr;
  void* o = nullptr;  // [b·h, s, d] bf16
  // Device fp32 descales: one each, or one per (batch, head) when per_head_scales.
  const float* q_descale = nullptr;
  const float* k_descale = nullptr;
  const float* v_descale = nullptr;
  bool per_head_scales = false;
  int heads = 0;  // b * h
  int s = 0;
  int d = 0;
  bool causal = false;
  float scale = 0.0f;  // usually 1/sqrt(d)
  // Device memory of flash_fp8_workspace_bytes for a configuration that transposes V in a
  // pre-pass (V as Vt [b·h, d, s rounded up to 128]); unused otherwise.
  void* workspace = nullptr;
};

// consumers: warp groups of 64 query rows per block (1 or 2). vt_in_kernel: the producer warp
// group transposes V in shared memory (d <= 128), else a pre-pass kernel writes Vt to the
// workspace (kernels/attention/hopper/flash_hopper_fp8.cu explains both).
struct FlashFp8Config {
  int consumers = 1;
  bool vt_in_kernel = true;
  int block_keys = 128;  // keys per K/V block: 128, or 224 (d = 128, two consumers, pre-pass)
  std::string name(int d) const;
};

// Empty when the FP8 kernel takes this problem (d in {64, 128, 256}, 1 <= b·h <= 65535), else
// the reason. It runs on compute capability 9.0 only.
std::string flash_fp8_unsupported(long long heads, long long s, long long d);

// Where V is transposed: chosen by the keys a query tile sees, or pinned (for an `assay ab` of
// one binary).
enum class Fp8VtPin { automatic, in_kernel, pre_pass };

// The configuration for this shape on `sm_count` SMs; `consumers` > 0 pins that count,
// `block_keys` 128 or 224 pins the key block where the 224-key instance applies (d = 128, two
// consumers, V by the pre-pass; 0 chooses it by fp8_block_keys_by_cost), and `vt` where V is
// transposed (d = 256 has the pre-pass only: a pin to the kernel there is ignored).
FlashFp8Config choose_flash_fp8_config(const FlashFp8Args& a, int sm_count, int consumers = 0, int block_keys = 0,
                                       Fp8VtPin vt = Fp8VtPin::automatic);

// 224 or 128: the key block a cost model prefers for length s (flash_dispatch.cpp explains it).
int fp8_block_keys_by_cost(long long s, bool causal);

// Bytes of workspace the configuration needs (0 when V is transposed in the kernel).
std::size_t flash_fp8_workspace_bytes(const FlashFp8Config& c, long long heads, long long s, long long d);

// cudaErrorInvalidValue for a problem the kernel does not take, unaligned tensors or a device
// other than Hopper.
cudaError_t launch_flash_attention_fp8(const FlashFp8Args& a, const FlashFp8Config& c, cudaStream_t stream);

}  // namespace assay::kernels
