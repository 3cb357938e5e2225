#pragma once
// Where the cases of a run execute: the host always; CUDA devices unless --device cpu.
#include <memory>
#include <string>
#include <vector>

#include "core/results.hpp"
#include "measure/executor.hpp"
#include "runner/run_options.hpp"

namespace assay::runner {

struct Executors {
  std::unique_ptr<measure::Executor> cpu;
  std::unique_ptr<measure::Executor> cuda;  // in-process runs only
  bool cuda_ok = false;
  int index = -1;
  std::string cuda_skip;  // why CUDA cases are skipped
  DeviceRecord device;    // the run's device
};

// Whether any of these backends runs on a CUDA device (in-process or as an adapter).
bool needs_cuda(const std::vector<std::string>& backends);

// The executors for `device` ("0", ... or "cpu"); a CUDA executor only for cases run in this
// process. Throws InputError for a device that is not there; without any CUDA device, CUDA
// cases are to be skipped with cuda_skip.
Executors make_executors(const std::string& device, bool in_process, bool cuda_wanted);

// The devices of a run: --devices (indices or "all"), else the one --device.
std::vector<std::string> resolve_devices(const RunOptions& opt, const Executors& ex);

}  // namespace assay::runner
