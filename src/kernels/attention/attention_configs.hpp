#pragma once
// The attention configurations a caller may pin (backend "assay@<name>"), without CUDA headers
// so that a CPU-only build still knows the names. Unpinned, "assay" lets the shape heuristic
// choose (kernels/attention/flash_attention.hpp).
#include <array>
#include <string_view>

namespace assay::kernels {

// wgmma_mNN: the Hopper kernel (sm_90a) with NN query rows per block (1 or 2 consumer warp
// groups); wgmma_m64_kvS: the 64-row kernel with split-KV, S CTAs (one cluster) per query block
// each taking a share of its key blocks; flash_mNN: the fused mma.sync kernel (sm_80+) with NN rows (4 or 8 warps);
// reference: cuBLAS GEMMs around assay's softmax kernel (materialises the scores).
inline constexpr std::array<std::string_view, 8> kAttentionConfigNames = {
    "wgmma_m64", "wgmma_m128", "wgmma_m64_kv2", "wgmma_m64_kv4", "wgmma_m64_kv8", "flash_m64", "flash_m128", "reference"};

inline bool is_attention_config(std::string_view name) {
  for (std::string_view c : kAttentionConfigNames)
    if (c == name) return true;
  return false;
}

}  // namespace assay::kernels
