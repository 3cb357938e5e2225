#pragma once
// Host side of the Hopper GEMM: TMA tensor maps (built through the driver entry point that the
// runtime hands out, so the binary does not link libcuda) and per-device facts.
#include <cuda.h>
#include <cuda_runtime.h>

#include <cstdint>

namespace assay::kernels::hopper {

constexpr int kMaxDevices = 64;

struct DeviceFacts {
  int sms = 0;
  bool hopper = false;  // compute capability 9.0: the sm_90a image runs here
};

// Read once per device (cudaGetDeviceProperties is slow enough to matter per launch).
const DeviceFacts& device_facts(int device);

enum class MapElem { u8, u16 };

// A 2-D row-major tensor of `rows` rows of `cols` elements (pitch cols * element size), boxes
// of box_cols x box_rows, 128-byte swizzle (64-byte for a 64-byte box row), zeros outside, for the current device `device`.
// Cached by all arguments: a cache hit costs a lookup, a miss one driver call.
cudaError_t tensor_map(CUtensorMap& out, int device, MapElem elem, const void* base, std::uint64_t cols,
                       std::uint64_t rows, std::uint32_t box_cols, std::uint32_t box_rows);

// The same for a 3-D tensor of `planes` such matrices (attention: [b·h][s][d]): a box of
// box_cols x box_rows x 1 never reaches into the next plane; rows past `rows` arrive as zeros.
cudaError_t tensor_map_3d(CUtensorMap& out, int device, MapElem elem, const void* base, std::uint64_t cols,
                          std::uint64_t rows, std::uint64_t planes, std::uint32_t box_cols, std::uint32_t box_rows);

}  // namespace assay::kernels::hopper
