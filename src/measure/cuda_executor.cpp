#include <cuda_profiler_api.h>

#include <cmath>

#include "gpu/cuda_check.hpp"
#include "gpu/device_context.hpp"
#include "gpu/device_info.hpp"
#include "measure/gpu_samplers.hpp"
#include "measure/executor.hpp"

namespace assay::measure {

namespace {

class CudaExecutor final : public Executor {
 public:
  explicit CudaExecutor(int index) : ctx_(index) {}
  const DeviceRecord& device() const override { return ctx_.record(); }
  void* stream() const override { return ctx_.stream(); }
  std::uint64_t free_memory() const override { return ctx_.free_memory(); }
  std::unique_ptr<Sampler> sampler(const Method& method, Instance& inst,
                                            std::uint64_t device_bytes) override {
    // Rounded up: any gap asked for is kept, at least 1 ns.
    ctx_.set_sample_gap_ns(static_cast<std::uint64_t>(std::ceil(method.gap_us * 1e3)));
    ctx_.set_l2_flush_clean(method.l2_flush == L2Flush::clean);
    switch (method.mode) {
      case Mode::hot: return std::make_unique<HotSampler>(ctx_, inst, device_bytes);
      case Mode::graph: return std::make_unique<GraphSampler>(ctx_, inst, device_bytes, method.graph_calls);
      case Mode::host: return std::make_unique<HostSampler>(ctx_, inst);
      case Mode::cold: break;
    }
    return std::make_unique<ColdSampler>(ctx_, inst);
  }
  void synchronize() override {
    ASSAY_CUDA(cudaStreamSynchronize(ctx_.stream()));
    ASSAY_CUDA(cudaGetLastError());
  }
  void profiler_window(bool open) override {
    ASSAY_CUDA(open ? cudaProfilerStart() : cudaProfilerStop());
  }

 private:
  gpu::DeviceContext ctx_;
};

}  // namespace

int cuda_devices(std::string* why) { return gpu::cuda_device_count(why); }

std::unique_ptr<Executor> make_cuda_executor(int index) {
  std::string why;
  const int n = gpu::cuda_device_count(&why);
  if (n == 0) throw SkipError("no CUDA device (" + why + ")");
  if (index < 0 || index >= n)
    throw InputError("--device " + std::to_string(index) + ": this machine has " + std::to_string(n) +
                     " CUDA device(s), numbered from 0");
  return std::make_unique<CudaExecutor>(index);
}

std::optional<DeviceRecord> describe_cuda_device(const std::string& device) {
  std::size_t used = 0;
  int index = -1;
  try {
    index = std::stoi(device, &used);
  } catch (const std::exception&) {
    return std::nullopt;
  }
  if (used != device.size() || index < 0 || index >= gpu::cuda_device_count(nullptr)) return std::nullopt;
  return gpu::query_device(index);
}

std::map<std::string, std::string> cuda_library_versions() {
  int runtime = 0, driver = 0;
  cudaRuntimeGetVersion(&runtime);
  cudaDriverGetVersion(&driver);
  const auto v = [](int x) { return std::to_string(x / 1000) + "." + std::to_string((x % 1000) / 10); };
  return {{"cuda_runtime", v(runtime)}, {"cuda_driver_api", driver ? v(driver) : "none"}};
}

}  // namespace assay::measure
