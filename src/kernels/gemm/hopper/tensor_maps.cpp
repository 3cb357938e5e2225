#include "kernels/gemm/hopper/tensor_maps.hpp"

#include <cudaTypedefs.h>

#include <array>
#include <mutex>

namespace assay::kernels::hopper {

namespace {

PFN_cuTensorMapEncodeTiled_v12000 encode_fn() {
  static PFN_cuTensorMapEncodeTiled_v12000 fn = [] {
    void* p = nullptr;
    cudaDriverEntryPointQueryResult q{};
    if (cudaGetDriverEntryPointByVersion("cuTensorMapEncodeTiled", &p, 12000, cudaEnableDefault, &q) !=
            cudaSuccess ||
        q != cudaDriverEntryPointSuccess)
      p = nullptr;
    return reinterpret_cast<PFN_cuTensorMapEncodeTiled_v12000>(p);
  }();
  return fn;
}

struct MapKey {
  MapElem elem;
  const void* base;
  std::uint64_t cols, rows, planes;  // planes 0: a 2-D map
  std::uint32_t box_cols, box_rows;
  int device;
  bool operator==(const MapKey& o) const {
    return elem == o.elem && base == o.base && cols == o.cols && rows == o.rows && planes == o.planes &&
           box_cols == o.box_cols && box_rows == o.box_rows && device == o.device;
  }
};

// Round-robin cache: a timed loop rotates through input sets, each needing an A and a B map
// (C is one buffer). More than ~30 sets (small shapes in hot mode) cycle it: a driver encode
// per launch, on the host.
constexpr std::size_t kCacheSize = 64;
struct MapCache {
  std::mutex mu;
  std::array<MapKey, kCacheSize> keys{};
  std::array<CUtensorMap, kCacheSize> maps{};
  std::size_t used = 0, next = 0;
};

}  // namespace

const DeviceFacts& device_facts(int device) {
  static DeviceFacts facts[kMaxDevices];
  static std::once_flag once[kMaxDevices];
  static DeviceFacts none;
  if (device < 0 || device >= kMaxDevices) return none;
  std::call_once(once[device], [device] {
    int major = 0, minor = 0, sms = 0;
    cudaDeviceGetAttribute(&major, cudaDevAttrComputeCapabilityMajor, device);
    cudaDeviceGetAttribute(&minor, cudaDevAttrComputeCapabilityMinor, device);
    cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, device);
    facts[device].sms = sms;
    facts[device].hopper = major == 9 && minor == 0;
  });
  return facts[device];
}

namespace {
cudaError_t cached_map(CUtensorMap& out, const MapKey& key) {
  static MapCache cache;
  const auto [elem, base, cols, rows, planes, box_cols, box_rows, device] = key;
  std::lock_guard<std::mutex> lock(cache.mu);
  for (std::size_t i = 0; i < cache.used; ++i)
    if (cache.keys[i] == key) {
      out = cache.maps[i];
      return cudaSuccess;
    }
  const auto encode = encode_fn();
  if (!encode) return cudaErrorNotSupported;
  const std::uint64_t elem_bytes = elem == MapElem::u8 ? 1 : 2;
  const cuuint64_t dims[3] = {cols, rows, planes};
  const cuuint64_t pitch[2] = {cols * elem_bytes, cols * elem_bytes * rows};
  const cuuint32_t box[3] = {box_cols, box_rows, 1};
  const cuuint32_t unit[3] = {1, 1, 1};
  // A box row of 64 bytes (the FP8 attention's d = 64 rows) takes the 64-byte swizzle, whose
  // atom is 8 such rows; every other box here is 128 bytes wide.
  const auto swizzle = box_cols * elem_bytes == 64 ? CU_TENSOR_MAP_SWIZZLE_64B : CU_TENSOR_MAP_SWIZZLE_128B;
  CUtensorMap map;
  const CUresult r = encode(&map, elem == MapElem::u8 ? CU_TENSOR_MAP_DATA_TYPE_UINT8 : CU_TENSOR_MAP_DATA_TYPE_UINT16,
                            planes == 0 ? 2 : 3, const_cast<void*>(base), dims, pitch, box, unit,
                            CU_TENSOR_MAP_INTERLEAVE_NONE,
                            swizzle, CU_TENSOR_MAP_L2_PROMOTION_L2_256B,
                            CU_TENSOR_MAP_FLOAT_OOB_FILL_NONE);
  if (r != CUDA_SUCCESS) return cudaErrorInvalidValue;
  const std::size_t slot = cache.used < kCacheSize ? cache.used++ : (cache.next++ % kCacheSize);
  cache.keys[slot] = key;
  cache.maps[slot] = map;
  out = map;
  return cudaSuccess;
}
}  // namespace

cudaError_t tensor_map(CUtensorMap& out, int device, MapElem elem, const void* base, std::uint64_t cols,
                       std::uint64_t rows, std::uint32_t box_cols, std::uint32_t box_rows) {
  return cached_map(out, MapKey{elem, base, cols, rows, 0, box_cols, box_rows, device});
}

cudaError_t tensor_map_3d(CUtensorMap& out, int device, MapElem elem, const void* base, std::uint64_t cols,
                          std::uint64_t rows, std::uint64_t planes, std::uint32_t box_cols, std::uint32_t box_rows) {
  if (planes == 0) return cudaErrorInvalidValue;
  return cached_map(out, MapKey{elem, base, cols, rows, planes, box_cols, box_rows, device});
}

}  // namespace assay::kernels::hopper
