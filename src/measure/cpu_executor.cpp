#include <unistd.h>

#include <thread>

#include "core/error.hpp"
#include "measure/cpu_sampler.hpp"
#include "measure/executor.hpp"

namespace assay::measure {

namespace {

class CpuExecutor final : public Executor {
 public:
  CpuExecutor() {
    device_.kind = "cpu";
    device_.name = "host CPU";
    device_.cpu_threads = static_cast<int>(std::thread::hardware_concurrency());
  }
  const DeviceRecord& device() const override { return device_; }
  void* stream() const override { return nullptr; }
  // Available physical memory: a problem that cannot fit is a case error, not an OOM kill.
  std::uint64_t free_memory() const override {
    return static_cast<std::uint64_t>(sysconf(_SC_AVPHYS_PAGES)) * static_cast<std::uint64_t>(sysconf(_SC_PAGESIZE));
  }
  std::unique_ptr<Sampler> sampler(const Method&, Instance& inst,
                                            std::uint64_t) override {
    return std::make_unique<CpuSampler>([&inst] { inst.call(nullptr); });
  }
  void synchronize() override {}
  void profiler_window(bool) override {
    throw SkipError("a cpu backend runs no GPU kernel for Nsight Compute to profile");
  }

 private:
  DeviceRecord device_;
};

}  // namespace

std::unique_ptr<Executor> make_cpu_executor() { return std::make_unique<CpuExecutor>(); }

}  // namespace assay::measure
