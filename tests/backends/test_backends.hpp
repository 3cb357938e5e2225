#pragma once
// Backends that fail on purpose, for the tests of crash isolation only: registered when
// ASSAY_TEST_BACKENDS=1 is in the environment, invisible otherwise.
//   test-abort, test-segv, test-hang (cpu)         abort(), SIGSEGV, an endless loop
//   test-gpu-oob, test-gpu-trap, test-gpu-hang     an out-of-bounds write, __trap(), an endless kernel
#include <vector>

#include "backends/backend.hpp"

namespace assay {

std::vector<const Backend*> test_backends();

#ifdef ASSAY_HAVE_CUDA
}  // namespace assay
#include <cuda_runtime.h>
namespace assay {
enum class GpuFault { out_of_bounds, trap, hang };
cudaError_t launch_faulty_kernel(GpuFault fault, void* stream);
#endif

}  // namespace assay
