#include "occupy_sms.hpp"

namespace assay::testing {

namespace {

constexpr int kHoldSmem = 200 * 1024;  // a GEMM CTA (up to 227 KB) cannot join one of these

__global__ void spin(long long nanoseconds) {
  extern __shared__ unsigned char held[];
  if (threadIdx.x != 0) return;
  held[0] = 1;
  unsigned long long start, now;
  asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(start));
  do {
    asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(now));
  } while (now - start < static_cast<unsigned long long>(nanoseconds));
}

}  // namespace

cudaError_t occupy_sms(int ctas, int microseconds, cudaStream_t stream) {
  cudaError_t err = cudaFuncSetAttribute(spin, cudaFuncAttributeMaxDynamicSharedMemorySize, kHoldSmem);
  if (err != cudaSuccess) return err;
  spin<<<ctas, 32, kHoldSmem, stream>>>(1000LL * microseconds);
  return cudaGetLastError();
}

}  // namespace assay::testing
