// The planted GPU faults of the isolation tests (ASSAY_TEST_BACKENDS=1 only).
#include "test_backends.hpp"

namespace assay {

namespace {

__global__ void out_of_bounds_kernel(int* p) { p[threadIdx.x + (1ll << 36)] = 1; }  // far past any allocation

__global__ void trap_kernel() { __trap(); }

__global__ void endless_kernel(volatile int* never) {
  while (*never == 0) {
  }
}

__device__ int g_never = 0;

}  // namespace

cudaError_t launch_faulty_kernel(GpuFault fault, void* stream) {
  const auto s = static_cast<cudaStream_t>(stream);
  switch (fault) {
    case GpuFault::out_of_bounds: {
      static int* base = nullptr;
      if (!base && cudaMalloc(&base, 64) != cudaSuccess) return cudaErrorMemoryAllocation;
      out_of_bounds_kernel<<<1, 32, 0, s>>>(base);
      break;
    }
    case GpuFault::trap: trap_kernel<<<1, 1, 0, s>>>(); break;
    case GpuFault::hang: {
      int* never = nullptr;
      cudaGetSymbolAddress(reinterpret_cast<void**>(&never), g_never);
      endless_kernel<<<1, 1, 0, s>>>(never);
      break;
    }
  }
  return cudaGetLastError();
}

}  // namespace assay
