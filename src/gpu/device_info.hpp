#pragma once
#include <string>

#include "core/results.hpp"

namespace assay::gpu {

// Number of CUDA devices usable here; 0 with `why` set when there are none (no driver,
// no device, or a CPU-only build). `driver_too_old`: set when there is a driver (libcuda.so.1
// loads) older than this build's CUDA runtime, which the runtime reports as the same error as
// no driver at all (cudaErrorInsufficientDriver).
int cuda_device_count(std::string* why, bool* driver_too_old = nullptr);

// Properties of device `index` (throws InternalError when it cannot be queried).
DeviceRecord query_device(int index);

// Peak dense tensor/FMA rate of the device for a GEMM in `dtype` at its max SM clock:
// SMs x FLOP/clock/SM x clock. 0 when the architecture is not in the table.
double peak_tflops(const DeviceRecord& d, const std::string& dtype, std::string* source);

}  // namespace assay::gpu
