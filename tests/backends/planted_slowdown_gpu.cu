// The GPU side of the planted slowdown (planted_slowdown.hpp).
#include <algorithm>
#include <vector>

#include <cuda_runtime.h>

#include "planted_slowdown.hpp"

namespace assay {

namespace {

__global__ void spin_kernel(long long cycles) {
  const long long start = clock64();
  while (clock64() - start < cycles) {
  }
}

}  // namespace

void launch_spin(long long cycles, void* stream) {
  spin_kernel<<<1, 1, 0, static_cast<cudaStream_t>(stream)>>>(cycles);
}

double median_gpu_ns(void (*fn)(void* ctx, void* stream), void* ctx) {
  cudaStream_t s;
  cudaEvent_t a, b;
  cudaStreamCreateWithFlags(&s, cudaStreamNonBlocking);
  cudaEventCreate(&a);
  cudaEventCreate(&b);
  for (int i = 0; i < 3; ++i) fn(ctx, s);
  cudaStreamSynchronize(s);
  std::vector<double> ns;
  for (int i = 0; i < 21; ++i) {
    cudaEventRecord(a, s);
    fn(ctx, s);
    cudaEventRecord(b, s);
    cudaEventSynchronize(b);
    float ms = 0;
    cudaEventElapsedTime(&ms, a, b);
    ns.push_back(1e6 * ms);
  }
  cudaEventDestroy(a);
  cudaEventDestroy(b);
  cudaStreamDestroy(s);
  std::nth_element(ns.begin(), ns.begin() + 10, ns.end());
  return ns[10];
}

}  // namespace assay
