// Tensor-core rate of wgmma by width N: does a 176-wide tile pay for 192 columns? (bench/notes/gemm.md,
// v9). One CTA per SM, two warp groups each issuing m64nNk32 e4m3 (m64nNk16 bf16) from shared memory
// into one accumulator set, groups of four K steps (one 128-byte K block), one group in flight; the
// operands random bytes (no zeros, no NaN). Prints MACs per SM clock (clock64 around the loop, the
// slowest CTA) for each N. The fp8 widths the GEMM lacks come from wgmma_extra.cuh (generated with
// scripts/gen_wgmma_ops.py's wrapper()). Built from the repository root with
//   nvcc -O3 -std=c++17 -gencode=arch=compute_90a,code=sm_90a -Isrc -I<this folder> wgmma_width.cu
#include <cstdio>
#include <cstdint>
#include <cuda_runtime.h>

#include "kernels/gemm/hopper/hopper_ptx.cuh"
#include "wgmma_extra.cuh"

using namespace assay::kernels::hopper;

constexpr int kIters = 4096;

template <int N, bool kFp8>
__global__ void __launch_bounds__(256, 1) width_kernel(unsigned long long* cycles, float* sink, unsigned seed) {
  extern __shared__ unsigned char smem_raw[];
  unsigned char* smem = reinterpret_cast<unsigned char*>((reinterpret_cast<std::uintptr_t>(smem_raw) + 1023) & ~std::uintptr_t(1023));
  constexpr int kABytes = 2 * 64 * 128, kBBytes = N * 128;
  // Random operand bytes: e4m3 exponent field kept below all-ones (no NaN), bf16 likewise small.
  for (int i = threadIdx.x; i < (kABytes + kBBytes) / 4; i += blockDim.x) {
    unsigned x = (i + 1) * 2654435761u ^ seed;
    x ^= x >> 13; x *= 0x5bd1e995u; x ^= x >> 15;
    reinterpret_cast<unsigned*>(smem)[i] = (x & 0x37373737u) | 0x08080808u;
  }
  fence_proxy_async_smem();
  __syncthreads();
  const int wg = __shfl_sync(0xffffffffu, static_cast<int>(threadIdx.x / 128), 0);
  const std::uint64_t da = smem_desc(smem + wg * 64 * 128, 16, 1024);
  // B as the GEMM lays it out: K-major for fp8, MN-major 64-column atoms (64 K rows of 128 bytes) for bf16.
  const std::uint64_t db = smem_desc(smem + kABytes, kFp8 ? 16 : 64 * 128, 1024);
  constexpr int kStepB = kFp8 ? 32 >> 4 : (16 * 128) >> 4;  // one K step, 16-byte units
  float d[N / 2];
#pragma unroll
  for (int i = 0; i < N / 2; ++i) d[i] = 0.f;
  const unsigned long long t0 = clock64();
  for (int it = 0; it < kIters; ++it) {
    fence_registers(d);
    wgmma_fence();
#pragma unroll
    for (int kk = 0; kk < 4; ++kk) {
      if constexpr (kFp8) wgmma_e4m3<N>(d, da + kk * 2, db + kk * kStepB, 1);
      else wgmma_bf16<N>(d, da + kk * 2, db + kk * kStepB, 1);
    }
    wgmma_commit();
    wgmma_wait<0>();
    fence_registers(d);
  }
  const unsigned long long t1 = clock64();
  float s = 0.f;
#pragma unroll
  for (int i = 0; i < N / 2; ++i) s += d[i];
  sink[blockIdx.x * blockDim.x + threadIdx.x] = s;
  if (threadIdx.x == 0) cycles[blockIdx.x] = t1 - t0;
}

template <int N, bool kFp8>
void run(int sms, unsigned long long* cycles, float* sink) {
  const int smem = 2 * 64 * 128 + N * 128 + 1024;
  cudaFuncSetAttribute(width_kernel<N, kFp8>, cudaFuncAttributeMaxDynamicSharedMemorySize, smem);
  unsigned long long best = ~0ull;
  for (int rep = 0; rep < 5; ++rep) {
    width_kernel<N, kFp8><<<sms, 256, smem>>>(cycles, sink, 12345u + rep);
    if (cudaDeviceSynchronize() != cudaSuccess) { std::printf("N=%d: %s\n", N, cudaGetErrorString(cudaGetLastError())); return; }
    unsigned long long host[1024], worst = 0;
    cudaMemcpy(host, cycles, sms * sizeof(unsigned long long), cudaMemcpyDeviceToHost);
    for (int i = 0; i < sms; ++i) worst = host[i] > worst ? host[i] : worst;
    best = worst < best ? worst : best;
  }
  const double k = kFp8 ? 32 : 16;
  const double macs = 2.0 * 64 * N * k * 4 * kIters;  // two warp groups per SM
  std::printf("%s N=%3d  %7.1f MAC/clk/SM  %6.1f clk per K-block per warp group\n", kFp8 ? "e4m3" : "bf16", N,
              macs / best, static_cast<double>(best) / kIters);
}

int main() {
  int sms = 0;
  cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, 0);
  unsigned long long* cycles;
  float* sink;
  cudaMalloc(&cycles, 1024 * sizeof(unsigned long long));
  cudaMalloc(&sink, 1024 * 256 * sizeof(float));
  run<128, true>(sms, cycles, sink);
  run<160, true>(sms, cycles, sink);
  run<176, true>(sms, cycles, sink);
  run<192, true>(sms, cycles, sink);
  run<208, true>(sms, cycles, sink);
  run<224, true>(sms, cycles, sink);
  run<240, true>(sms, cycles, sink);
  run<256, true>(sms, cycles, sink);
  run<128, false>(sms, cycles, sink);
  run<192, false>(sms, cycles, sink);
  run<256, false>(sms, cycles, sink);
  return 0;
}
