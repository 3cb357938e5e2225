#pragma once
// Where instances run: the host (CPU backends) or one CUDA device. An executor gives the case
// protocol's in-process subject a stream, its free memory and the sampler of a method, and
// hides the CUDA types, so that CPU-only builds share every layer above it.
#include <map>
#include <memory>
#include <optional>
#include <string>

#include "backends/backend.hpp"
#include "core/results.hpp"
#include "measure/method.hpp"
#include "measure/sampler.hpp"

namespace assay::measure {

class Executor {
 public:
  virtual ~Executor() = default;
  virtual const DeviceRecord& device() const = 0;
  virtual void* stream() const = 0;
  virtual std::uint64_t free_memory() const = 0;  // bytes usable for a new instance
  // The sampler of `method` for `inst`; the CPU executor always gives the host-clock sampler.
  virtual std::unique_ptr<Sampler> sampler(const Method& method, Instance& inst, std::uint64_t device_bytes) = 0;
  // Waits for the work in flight and reports an asynchronous device error, if any.
  virtual void synchronize() = 0;
  // Opens (true) or closes the profiler's window (cudaProfilerStart/Stop): under
  // `ncu --profile-from-start off` only the kernels launched inside it are profiled. Throws
  // SkipError where there is no GPU profiler (the host).
  virtual void profiler_window(bool open) = 0;
};

std::unique_ptr<Executor> make_cpu_executor();
// Throws SkipError("no CUDA device ...") when the device cannot be used here.
std::unique_ptr<Executor> make_cuda_executor(int index);
// Number of CUDA devices; 0 with `why` when none (or a CPU-only build).
int cuda_devices(std::string* why);
// Properties of the device named by `--device` ("0", ...), without setting it up for
// measuring; nullopt when it is not a usable CUDA device.
std::optional<DeviceRecord> describe_cuda_device(const std::string& device);
// Versions of the CUDA runtime pieces for the results metadata.
std::map<std::string, std::string> cuda_library_versions();

}  // namespace assay::measure
