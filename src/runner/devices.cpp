#include "runner/devices.hpp"

#include <cstdlib>
#include <set>

#include "backends/backend.hpp"
#include "core/error.hpp"

namespace assay::runner {

using measure::cuda_devices;
using measure::describe_cuda_device;

bool needs_cuda(const std::vector<std::string>& backends) {
  for (const auto& name : backends)
    if (find_backend(name)->target() != Target::cpu) return true;
  return false;
}

Executors make_executors(const std::string& device, bool in_process, bool cuda_wanted) {
  Executors ex;
  ex.cpu = measure::make_cpu_executor();
  ex.device = ex.cpu->device();
  if (device == "cpu") {
    ex.cuda_skip = "--device cpu";
    return ex;
  }
  if (!cuda_wanted) return ex;
  int index = -1;
  try {
    std::size_t used = 0;
    index = std::stoi(device, &used);
    if (used != device.size()) throw std::invalid_argument("trailing");
  } catch (const std::exception&) {
    throw InputError("--device '" + device + "': must be a CUDA device index or 'cpu'");
  }
  std::string why;
  const int n = cuda_devices(&why);
  if (n == 0) {
    ex.cuda_skip = "no CUDA device (" + why + ")";
    return ex;
  }
  if (index < 0 || index >= n)
    throw InputError("--device " + std::to_string(index) + ": this machine has " + std::to_string(n) +
                     " CUDA device(s), numbered from 0");
  ex.cuda_ok = true;
  ex.index = index;
  if (auto d = describe_cuda_device(device)) ex.device = *d;
  // In-process runs measure here and need the device set up; isolated runs leave that to
  // each worker, so this process holds no CUDA context while they run.
  if (in_process) ex.cuda = measure::make_cuda_executor(index);
  return ex;
}

std::vector<std::string> resolve_devices(const RunOptions& opt, const Executors& ex) {
  if (opt.devices.empty()) return {opt.device};
  if (!opt.isolate) throw InputError("--devices runs one worker per GPU: it cannot be combined with --no-isolate");
  std::string why;
  const int n = cuda_devices(&why);
  if (n == 0) throw InputError("--devices: no CUDA device here (" + why + ")");
  std::vector<std::string> out;
  if (opt.devices.size() == 1 && opt.devices.front() == "all") {
    for (int i = 0; i < n; ++i) out.push_back(std::to_string(i));
  } else {
    // Two workers measuring on one GPU at once disturb each other: refused, but for the test of
    // the scheduler on a one-GPU host (ASSAY_ALLOW_SHARED_DEVICES=1, docs/suite-format.md).
    const char* shared = std::getenv("ASSAY_ALLOW_SHARED_DEVICES");
    const bool allow_shared = shared && std::string(shared) == "1";
    std::set<int> seen;
    for (const auto& d : opt.devices) {
      std::size_t used = 0;
      int i = -1;
      try {
        i = std::stoi(d, &used);
      } catch (const std::exception&) {
      }
      if (used != d.size() || i < 0 || i >= n)
        throw InputError("--devices: '" + d + "' is not a CUDA device index here (0 to " + std::to_string(n - 1) + ")");
      if (!seen.insert(i).second && !allow_shared)
        throw InputError("--devices: device " + std::to_string(i) + " is listed twice: two workers on one GPU disturb each other's measurements");
      out.push_back(std::to_string(i));
    }
  }
  // No case needs a GPU: the host's cases run one at a time, as without --devices (in parallel
  // they would time each other's CPU load).
  if (!ex.cuda_ok) return {opt.device};
  // One run is one kind of GPU, as `assay merge` requires of shards: a point may run on any of
  // them, and the document's `run.device` describes them all.
  if (out.size() > 1) {
    const auto first = describe_cuda_device(out.front());
    for (std::size_t k = 1; first && k < out.size(); ++k) {
      const auto other = describe_cuda_device(out[k]);
      if (other && (other->name != first->name || other->compute_capability != first->compute_capability ||
                    other->memory_bytes != first->memory_bytes || other->sm_count != first->sm_count))
        throw InputError("--devices: GPU " + out[k] + " (" + other->name + ", sm_" + other->compute_capability + ") differs from GPU " +
                         out.front() + " (" + first->name + ", sm_" + first->compute_capability +
                         "): one run measures one kind of GPU (run each kind on its own and compare the documents)");
    }
  }
  return out;
}

}  // namespace assay::runner
