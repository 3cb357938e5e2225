#pragma once
// Test helper: keeps some SMs busy, so that a kernel launched beside it runs on the others.
#include <cuda_runtime.h>

namespace assay::testing {

// Launches `ctas` CTAs on `stream`, one per SM (each holds most of the SM's shared memory), that
// spin for `microseconds` and then exit. Returns the launch's error.
cudaError_t occupy_sms(int ctas, int microseconds, cudaStream_t stream);

}  // namespace assay::testing
