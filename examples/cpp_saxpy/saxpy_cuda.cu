// The CUDA kernel of the saxpy example: one thread per element, launched on assay's stream.
#include <assay/bench.hpp>

#include <cuda_runtime.h>

#include <stdexcept>

namespace {

using namespace assay::bench;

__global__ void saxpy_kernel(std::int64_t n, const float* x, const float* y, float* z) {
  const std::int64_t i = blockIdx.x * static_cast<std::int64_t>(blockDim.x) + threadIdx.x;
  if (i < n) z[i] = 2.0f * x[i] + y[i];
}

void saxpy_cuda(const Call& c) {
  const std::int64_t n = c["n"];
  const unsigned blocks = static_cast<unsigned>((n + 255) / 256);
  saxpy_kernel<<<blocks, 256, 0, static_cast<cudaStream_t>(c.stream)>>>(n, c.inputs[0].as<float>(),
                                                                         c.inputs[1].as<float>(), c.output.as<float>());
  if (const cudaError_t e = cudaGetLastError(); e != cudaSuccess) throw std::runtime_error(cudaGetErrorString(e));
}

ASSAY_BENCH_KERNEL({.name = "saxpy-cuda", .workload = "saxpy", .dtypes = {DType::f32}, .launch = saxpy_cuda,
                    .device = Device::cuda, .description = "one thread per element"});

}  // namespace
