#pragma once
// Every CUDA runtime call is checked; a failure becomes an InternalError naming the call.
#include <cuda_runtime.h>

#include <string>

#include "core/error.hpp"

namespace assay::gpu {

inline bool is_sticky(cudaError_t e) {
  return e == cudaErrorIllegalAddress || e == cudaErrorLaunchFailure || e == cudaErrorAssert ||
         e == cudaErrorIllegalInstruction || e == cudaErrorMisalignedAddress || e == cudaErrorInvalidAddressSpace ||
         e == cudaErrorInvalidPc || e == cudaErrorHardwareStackError || e == cudaErrorLaunchTimeout;
}

[[noreturn]] inline void throw_cuda_error(cudaError_t e, const char* what, const char* file, int line) {
  const std::string msg = std::string("CUDA error in ") + what + " (" + file + ":" + std::to_string(line) +
                          "): " + cudaGetErrorName(e) + ": " + cudaGetErrorString(e);
  if (is_sticky(e)) throw DeviceFault(msg);
  throw InternalError(msg);
}

}  // namespace assay::gpu

#define ASSAY_CUDA(call)                                                                   \
  do {                                                                                     \
    const cudaError_t assay_cuda_err_ = (call);                                            \
    if (assay_cuda_err_ != cudaSuccess)                                                    \
      ::assay::gpu::throw_cuda_error(assay_cuda_err_, #call, __FILE__, __LINE__);          \
  } while (0)
