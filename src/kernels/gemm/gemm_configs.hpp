#pragma once
// The GEMM configurations a caller may pin (backend "assay@<name>"), without CUDA headers so
// that a CPU-only build still knows the names. "auto" is the shape heuristic.
#include <array>
#include <string_view>

namespace assay::kernels {

// wgmma_MxN: the Hopper kernel with M x N output tiles (64 x 128: f16/bf16, one consumer); the _c2 forms run CTA pairs
// (clusters of 2) that multicast their common B tile, the _c4 forms (f16/bf16, 128 rows, 128-256
// wide) clusters of four row tiles; the _k<S> forms (f16/bf16) split each tile's K blocks over S CTAs (split-K),
// the _sk forms (f16/bf16) share all tiles' K blocks evenly over the SMs (stream-K).
inline constexpr std::array<std::string_view, 40> kGemmConfigNames = {
    "auto", "wgmma_128x256", "wgmma_128x256_c2", "wgmma_128x256_c4", "wgmma_128x208", "wgmma_128x208_c2", "wgmma_128x192",
    "wgmma_128x192_c2", "wgmma_128x192_c4", "wgmma_128x176", "wgmma_128x176_c2", "wgmma_128x128", "wgmma_128x128_c2",
    "wgmma_128x128_c4", "wgmma_128x128_k2", "wgmma_128x128_k3", "wgmma_128x128_k4", "wgmma_128x128_k6", "wgmma_128x128_k8",
    "wgmma_128x128_sk",
    "wgmma_128x64", "wgmma_128x64_c2", "wgmma_128x64_k2", "wgmma_128x64_k3", "wgmma_128x64_k4",
    "wgmma_128x64_k6", "wgmma_128x64_k8", "wgmma_128x64_sk", "wgmma_192x192", "wgmma_192x192_c2", "wgmma_64x128",
    "wgmma_64x128_c2", "wgmma_64x128_k2", "wgmma_64x128_k3", "wgmma_64x128_k4", "wgmma_64x128_k6",
    "wgmma_64x128_k8", "wgmma_64x128_sk", "mma_sync", "simt"};

}  // namespace assay::kernels
