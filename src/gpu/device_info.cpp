#include "gpu/device_info.hpp"

#include <dlfcn.h>

#include <cstdio>
#include <thread>

#include "gpu/cuda_check.hpp"

namespace assay::gpu {

int cuda_device_count(std::string* why, bool* driver_too_old) {
  if (driver_too_old) *driver_too_old = false;
  int n = 0;
  const cudaError_t e = cudaGetDeviceCount(&n);
  if (e != cudaSuccess) {
    cudaGetLastError();  // clear the sticky-free error so later calls are not confused
    // "CUDA driver version is insufficient" is also what a machine with no driver gets.
    const bool driver = ::dlopen("libcuda.so.1", RTLD_LAZY | RTLD_LOCAL) != nullptr;
    const bool old = driver && e == cudaErrorInsufficientDriver;
    if (driver_too_old) *driver_too_old = old;
    int runtime = 0;
    cudaRuntimeGetVersion(&runtime);
    if (why)
      *why = !driver ? std::string("no NVIDIA driver (libcuda.so.1 cannot be loaded)")
             : old   ? "the NVIDIA driver is older than this build's CUDA runtime " + std::to_string(runtime / 1000) +
                         "." + std::to_string(runtime % 1000 / 10) + " (" + cudaGetErrorName(e) + ")"
                     : std::string(cudaGetErrorName(e)) + ": " + cudaGetErrorString(e);
    return 0;
  }
  if (n == 0 && why) *why = "the driver reports no device";
  return n;
}

namespace {
std::string version_string(int v) {  // 13000 -> "13.0"
  return std::to_string(v / 1000) + "." + std::to_string((v % 1000) / 10);
}
int attribute(cudaDeviceAttr a, int dev) {
  int v = 0;
  ASSAY_CUDA(cudaDeviceGetAttribute(&v, a, dev));
  return v;
}
}  // namespace

DeviceRecord query_device(int index) {
  cudaDeviceProp p{};
  ASSAY_CUDA(cudaGetDeviceProperties(&p, index));
  DeviceRecord d;
  d.kind = "cuda";
  d.index = index;
  d.name = p.name;
  char uuid[64];
  const auto* u = reinterpret_cast<const unsigned char*>(p.uuid.bytes);
  std::snprintf(uuid, sizeof uuid,
                "GPU-%02x%02x%02x%02x-%02x%02x-%02x%02x-%02x%02x-%02x%02x%02x%02x%02x%02x", u[0], u[1],
                u[2], u[3], u[4], u[5], u[6], u[7], u[8], u[9], u[10], u[11], u[12], u[13], u[14], u[15]);
  d.uuid = uuid;
  d.compute_capability = std::to_string(p.major) + "." + std::to_string(p.minor);
  d.sm_count = p.multiProcessorCount;
  d.memory_bytes = p.totalGlobalMem;
  d.l2_bytes = static_cast<std::uint64_t>(p.l2CacheSize);
  // CUDA 13 dropped the clock fields from cudaDeviceProp; the attributes remain (kHz).
  d.max_sm_clock_mhz = attribute(cudaDevAttrClockRate, index) / 1000;
  d.max_memory_clock_mhz = attribute(cudaDevAttrMemoryClockRate, index) / 1000;
  d.memory_bus_width_bits = attribute(cudaDevAttrGlobalMemoryBusWidth, index);
  int driver = 0, runtime = 0;
  ASSAY_CUDA(cudaDriverGetVersion(&driver));
  ASSAY_CUDA(cudaRuntimeGetVersion(&runtime));
  d.driver_version = version_string(driver);
  d.runtime_version = version_string(runtime);
  d.cpu_threads = static_cast<int>(std::thread::hardware_concurrency());
  return d;
}

}  // namespace assay::gpu
