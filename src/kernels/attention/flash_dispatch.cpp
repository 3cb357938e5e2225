// The flash attention family's host side: what it takes, the shape heuristic, the launch.
#include <cstdint>

#include "kernels/attention/flash_attention.hpp"
#include "kernels/attention/hopper/flash_hopper.hpp"
#include "kernels/gemm/hopper/tensor_maps.hpp"

namespace assay::kernels {

namespace {
bool aligned16(const void* p) { return reinterpret_cast<std::uintptr_t>(p) % 16 == 0; }
}  // namespace

std::string FlashConfig::name(int d) const {
  return std::string(wgmma ? "flash_wgmma_m" : "flash_mma_m") + std::to_string(rows) + (wgmma ? "n128_d" : "n64_d") +
         std::to_string(d);
}

std::string flash_attention_unsupported(DType dtype, long long heads, long long s, long long d) {
  if (dtype != DType::f16 && dtype != DType::bf16) return "the flash kernel takes f16 and bf16";
  if (d != 64 && d != 128) return "the flash kernel takes d = 64 or 128";
  if (heads < 1 || heads > 65535) return "the flash kernel takes 1 <= b*h <= 65535 (grid.y)";
  if (s < 1 || s > (1 << 30)) return "the flash kernel takes 1 <= s <= 2^30";
  return {};
}

FlashConfig choose_flash_config(const FlashAttentionArgs& a, int sm_count, bool hopper) {
  if (!hopper) return FlashConfig{false, 64};
  // d = 64: one consumer warp group per block won at every measured shape, 64 to 2304 blocks
  // (a block's K/V reuse matters less than its latency there). d = 128: two, once they still
  // give every SM a block (docs/kernels/attention.md, v6).
  const long long big_blocks = static_cast<long long>(a.heads) * ((a.s + 127) / 128);
  return FlashConfig{true, a.d == 128 && big_blocks >= sm_count ? 128 : 64};
}

cudaError_t launch_flash_attention(const FlashAttentionArgs& a, const FlashConfig& c, cudaStream_t stream) {
  if (!flash_attention_unsupported(a.dtype, a.heads, a.s, a.d).empty() || (c.rows != 64 && c.rows != 128) ||
      !aligned16(a.q) || !aligned16(a.k) || !aligned16(a.v) || !aligned16(a.o))
    return cudaErrorInvalidValue;
  if (!c.wgmma) return detail::launch_flash_mma(a, c.rows, stream);
  int device = 0;
  const cudaError_t err = cudaGetDevice(&device);
  if (err != cudaSuccess) return err;
  if (!hopper::device_facts(device).hopper) return cudaErrorInvalidValue;
  return attention_hopper::launch(a, c.rows / 64, stream);
}

}  // namespace assay::kernels
