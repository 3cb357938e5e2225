#pragma once
// Generated kernels compiled with NVRTC (opened at run time, libnvrtc.so.13, as cuBLAS is) for
// the current device's architecture, loaded as modules through the driver API, and cached by
// their key (GeneratedKernel::key): a chain seen again in any graph is not compiled again.
#include <cuda.h>
#include <cuda_runtime.h>

#include <cstdint>
#include <string>
#include <unordered_map>

#include "graph/codegen_cuda.hpp"

namespace assay::graph::gpu {

// Empty when NVRTC can be used here, else why not.
std::string nvrtc_unavailable();

// CUDA source -> CUBIN for sm_<cc> (e.g. 90), or throws InternalError with NVRTC's log.
std::string compile_cubin(const std::string& source, const std::string& name, int cc);

class KernelCache {
 public:
  KernelCache();
  ~KernelCache();
  KernelCache(const KernelCache&) = delete;
  KernelCache& operator=(const KernelCache&) = delete;
  // The loaded function for k (compiled on first sight).
  CUfunction get(const GeneratedKernel& k);
  std::int64_t compiled() const { return compiled_; }
  std::int64_t hits() const { return hits_; }

 private:
  int cc_ = 0;
  std::unordered_map<std::uint64_t, std::pair<CUmodule, CUfunction>> loaded_;
  std::int64_t compiled_ = 0, hits_ = 0;
};

// Launches a generated kernel: parameters are the input pointers then the output pointer.
// `dependent` (sm_90): a programmatic dependent launch, which may begin while the previous
// kernel in the stream drains (the kernel waits with griddepcontrol.wait before reading).
void launch_generated(CUfunction f, const GeneratedKernel& k, void** params, int sm_count, bool dependent,
                      cudaStream_t s);

}  // namespace assay::graph::gpu
