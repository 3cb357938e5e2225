// NVRTC compilation and the module cache (kernel_cache.hpp).
#include "graph_gpu/kernel_cache.hpp"

#include <dlfcn.h>
#include <nvrtc.h>

#include <vector>

#include "core/dynamic_library.hpp"
#include "core/error.hpp"
#include "gpu/cuda_check.hpp"

namespace assay::graph::gpu {

namespace {

struct Nvrtc {
  decltype(&nvrtcCreateProgram) create = nullptr;
  decltype(&nvrtcDestroyProgram) destroy = nullptr;
  decltype(&nvrtcCompileProgram) compile = nullptr;
  decltype(&nvrtcGetProgramLogSize) log_size = nullptr;
  decltype(&nvrtcGetProgramLog) log = nullptr;
  decltype(&nvrtcGetCUBINSize) cubin_size = nullptr;
  decltype(&nvrtcGetCUBIN) cubin = nullptr;
  decltype(&nvrtcGetErrorString) error_string = nullptr;
  std::string error;
};

const Nvrtc& nvrtc() {
  static const Nvrtc n = [] {
    Nvrtc r;
    // The soname first (LD_LIBRARY_PATH, ldconfig), then the toolkit's usual place.
    void* lib = open_library({"libnvrtc.so.13", "/usr/local/cuda/lib64/libnvrtc.so.13"}, r.error);
    if (!lib) return r;
    const std::string so = "libnvrtc.so.13";
    resolve_symbol(lib, r.create, "nvrtcCreateProgram", so, r.error);
    resolve_symbol(lib, r.destroy, "nvrtcDestroyProgram", so, r.error);
    resolve_symbol(lib, r.compile, "nvrtcCompileProgram", so, r.error);
    resolve_symbol(lib, r.log_size, "nvrtcGetProgramLogSize", so, r.error);
    resolve_symbol(lib, r.log, "nvrtcGetProgramLog", so, r.error);
    resolve_symbol(lib, r.cubin_size, "nvrtcGetCUBINSize", so, r.error);
    resolve_symbol(lib, r.cubin, "nvrtcGetCUBIN", so, r.error);
    resolve_symbol(lib, r.error_string, "nvrtcGetErrorString", so, r.error);
    return r;
  }();
  return n;
}

// Driver entry points through the runtime (the binary links no libcuda).
template <class F>
F driver(const char* name) {
  void* p = nullptr;
  cudaDriverEntryPointQueryResult q{};
  if (cudaGetDriverEntryPointByVersion(name, &p, 12000, cudaEnableDefault, &q) != cudaSuccess ||
      q != cudaDriverEntryPointSuccess || !p)
    throw InternalError(std::string("the CUDA driver lacks ") + name);
  return reinterpret_cast<F>(p);
}

struct Driver {
  decltype(&cuModuleLoadData) load = driver<decltype(&cuModuleLoadData)>("cuModuleLoadData");
  decltype(&cuModuleGetFunction) function = driver<decltype(&cuModuleGetFunction)>("cuModuleGetFunction");
  decltype(&cuModuleUnload) unload = driver<decltype(&cuModuleUnload)>("cuModuleUnload");
  decltype(&cuLaunchKernel) launch = driver<decltype(&cuLaunchKernel)>("cuLaunchKernel");
  decltype(&cuLaunchKernelEx) launch_ex = driver<decltype(&cuLaunchKernelEx)>("cuLaunchKernelEx");
};

const Driver& drv() {
  static const Driver d;
  return d;
}

void check_cu(CUresult r, const char* what) {
  if (r != CUDA_SUCCESS) throw InternalError(std::string(what) + " failed with CUresult " + std::to_string(r));
}

}  // namespace

std::string nvrtc_unavailable() { return nvrtc().error; }

std::string compile_cubin(const std::string& source, const std::string& name, int cc) {
  const Nvrtc& n = nvrtc();
  if (!n.error.empty()) throw InternalError(n.error);
  nvrtcProgram prog = nullptr;
  if (n.create(&prog, source.c_str(), (name + ".cu").c_str(), 0, nullptr, nullptr) != NVRTC_SUCCESS)
    throw InternalError("nvrtcCreateProgram failed for " + name);
  const std::string arch = "--gpu-architecture=sm_" + std::to_string(cc);
  const char* opts[] = {arch.c_str(), "--std=c++17", "-lineinfo"};
  const nvrtcResult res = n.compile(prog, 3, opts);
  std::string log;
  std::size_t log_size = 0;
  if (n.log_size(prog, &log_size) == NVRTC_SUCCESS && log_size > 1) {
    log.resize(log_size);
    n.log(prog, log.data());
  }
  if (res != NVRTC_SUCCESS) {
    n.destroy(&prog);
    throw InternalError("NVRTC could not compile " + name + " (" + n.error_string(res) + "):\n" + log);
  }
  std::size_t size = 0;
  n.cubin_size(prog, &size);
  std::string cubin(size, '\0');
  n.cubin(prog, cubin.data());
  n.destroy(&prog);
  return cubin;
}

KernelCache::KernelCache() {
  int dev = 0, major = 0, minor = 0;
  ASSAY_CUDA(cudaGetDevice(&dev));
  ASSAY_CUDA(cudaDeviceGetAttribute(&major, cudaDevAttrComputeCapabilityMajor, dev));
  ASSAY_CUDA(cudaDeviceGetAttribute(&minor, cudaDevAttrComputeCapabilityMinor, dev));
  cc_ = major * 10 + minor;
}

KernelCache::~KernelCache() {
  for (auto& [key, m] : loaded_) drv().unload(m.first);
}

CUfunction KernelCache::get(const GeneratedKernel& k) {
  if (auto it = loaded_.find(k.key); it != loaded_.end()) {
    ++hits_;
    return it->second.second;
  }
  const std::string cubin = compile_cubin(k.source, k.name, cc_);
  CUmodule mod = nullptr;
  CUfunction fn = nullptr;
  check_cu(drv().load(&mod, cubin.data()), "cuModuleLoadData");
  check_cu(drv().function(&fn, mod, k.name.c_str()), "cuModuleGetFunction");
  loaded_.emplace(k.key, std::make_pair(mod, fn));
  ++compiled_;
  return fn;
}

void launch_generated(CUfunction f, const GeneratedKernel& k, void** params, int sm_count, bool dependent,
                      cudaStream_t s) {
  if (k.work == 0) return;
  std::int64_t grid = k.reduction ? k.work : (k.work + k.block - 1) / k.block;
  const std::int64_t cap = k.reduction ? (1 << 30) : static_cast<std::int64_t>(sm_count) * 32;
  if (grid > cap) grid = cap;
  CUlaunchAttribute attr{};
  attr.id = CU_LAUNCH_ATTRIBUTE_PROGRAMMATIC_STREAM_SERIALIZATION;
  attr.value.programmaticStreamSerializationAllowed = 1;
  CUlaunchConfig cfg{};
  cfg.gridDimX = static_cast<unsigned>(grid);
  cfg.gridDimY = cfg.gridDimZ = 1;
  cfg.blockDimX = static_cast<unsigned>(k.block);
  cfg.blockDimY = cfg.blockDimZ = 1;
  cfg.hStream = s;
  cfg.attrs = dependent ? &attr : nullptr;
  cfg.numAttrs = dependent ? 1 : 0;
  check_cu(drv().launch_ex(&cfg, f, params, nullptr), "cuLaunchKernelEx (generated kernel)");
}

}  // namespace assay::graph::gpu
