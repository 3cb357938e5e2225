#pragma once
// randn's values: a counter-based generator, so that element i of randn(seed) is a pure
// function of (seed, i) and any executor (the CPU reference, a GPU kernel, a remote process)
// makes the same tensor without sharing state. core has no seeded generator of its own.
//
// u1, u2 = the top 53 bits of splitmix64's finaliser over (seed, 2i) and (seed, 2i+1), mapped to
// (0, 1] and [0, 1); z = sqrt(-2 ln u1) cos(2 pi u2) (Box-Muller, one value per pair).
#include <cmath>
#include <cstdint>

#if defined(__CUDACC__)
#define ASSAY_RANDOM_HD __host__ __device__
#else
#define ASSAY_RANDOM_HD
#endif

namespace assay::graph {

// Also compiled for the device (the GPU executor's randn kernel), so both make the same values.
ASSAY_RANDOM_HD inline std::uint64_t mix64(std::uint64_t seed, std::uint64_t counter) {
  std::uint64_t z = seed * 0x9e3779b97f4a7c15ull + counter * 0xbf58476d1ce4e5b9ull + 0x94d049bb133111ebull;
  z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
  z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
  return z ^ (z >> 31);
}

ASSAY_RANDOM_HD inline double randn_value(std::uint64_t seed, std::uint64_t i) {
  const double u1 = static_cast<double>((mix64(seed, 2 * i) >> 11) + 1) * 0x1.0p-53;  // (0, 1]
  const double u2 = static_cast<double>(mix64(seed, 2 * i + 1) >> 11) * 0x1.0p-53;    // [0, 1)
  return std::sqrt(-2.0 * std::log(u1)) * std::cos(6.283185307179586476925 * u2);
}

}  // namespace assay::graph
