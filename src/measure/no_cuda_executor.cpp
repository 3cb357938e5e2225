// CPU-only builds: no CUDA device can ever be used.
#include "core/error.hpp"
#include "measure/executor.hpp"

namespace assay::measure {

int cuda_devices(std::string* why) {
  if (why) *why = "this assay was built without CUDA";
  return 0;
}

std::unique_ptr<Executor> make_cuda_executor(int) {
  throw SkipError("no CUDA device (this assay was built without CUDA)");
}

std::optional<DeviceRecord> describe_cuda_device(const std::string&) { return std::nullopt; }

std::map<std::string, std::string> cuda_library_versions() { return {}; }

}  // namespace assay::measure
