// Energy per MAC of three ways to issue the same 128x256 tile's wgmmas (bench/notes/gemm.md, v12).
// Under the power cap the clock follows the energy per unit of work, so a way of issuing that costs
// less energy runs at a higher clock at the same cycles. One CTA per SM, two warp groups, operands
// random f16/bf16 in [-1, 1) resident in shared memory (four stages of a 128x64 A block and a
// 64x256 B block laid out as the GEMM's TMA writes them: A K-major, B MN-major 64-column atoms),
// each stage four K steps, one group in flight. Variants, per warp group and K step:
//   ours  : m64n256k16, A = its 64 rows, B = the 256 columns            (the GEMM's issue)
//   swap  : 2 x m64n128k16, A = 64 columns of B (MN-major, transposed), B = all 128 rows of A
//           (K-major): C^T, as cuBLAS's nvjet 256x128 kernel issues our 128x256 tile
//   split : 2 x m64n128k16, A = its 64 rows, B = 128 columns each
// Each variant runs back to back for a fixed wall time; per launch CTA 0 records clock64 and
// %globaltimer around its loop (its SM clock); the host prints the variant windows' wall times
// so nvidia-smi's power log can be joined. Built from the repository root with
//   nvcc -O3 -std=c++17 -gencode=arch=compute_90a,code=sm_90a -Isrc -I<this folder> wgmma_power.cu
#include <cuda_bf16.h>
#include <cuda_fp16.h>
#include <cuda_runtime.h>

#include <algorithm>
#include <chrono>
#include <cstdint>
#include <cstdio>
#include <vector>

#include "kernels/gemm/hopper/hopper_ptx.cuh"
#include "kernels/gemm/hopper/wgmma_ops.cuh"
#include "wgmma_swap.cuh"

using namespace assay::kernels::hopper;

constexpr int kStages = 4, kABytes = 128 * 128, kBBytes = 256 * 128, kStageBytes = kABytes + kBBytes;
constexpr int kSmem = kStages * kStageBytes + 1024;

__device__ __forceinline__ unsigned long long global_ns() {
  unsigned long long t;
  asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(t));
  return t;
}

template <bool kBf16, int kVariant>
__global__ void __launch_bounds__(256, 1) power_kernel(int stages_to_run, unsigned seed, unsigned long long* stamps,
                                                      float* sink) {
  extern __shared__ unsigned char smem_raw[];
  unsigned char* smem =
      reinterpret_cast<unsigned char*>((reinterpret_cast<std::uintptr_t>(smem_raw) + 1023) & ~std::uintptr_t(1023));
  auto* h = reinterpret_cast<unsigned short*>(smem);
  for (int i = threadIdx.x; i < kStages * kStageBytes / 2; i += blockDim.x) {
    unsigned x = (i + 1) * 2654435761u ^ (seed + blockIdx.x * 7919u);
    x ^= x >> 13; x *= 0x5bd1e995u; x ^= x >> 15;
    const float v = (x >> 8) * (2.0f / 16777216.0f) - 1.0f;  // [-1, 1)
    if constexpr (kBf16) { __nv_bfloat16 b = __float2bfloat16(v); h[i] = *reinterpret_cast<unsigned short*>(&b); }
    else { __half b = __float2half(v); h[i] = *reinterpret_cast<unsigned short*>(&b); }
  }
  fence_proxy_async_smem();
  __syncthreads();
  const int wg = __shfl_sync(0xffffffffu, static_cast<int>(threadIdx.x / 128), 0);
  // ours / split: A = this group's 64 rows (K-major), B = MN-major atoms 8 KB apart.
  const std::uint64_t da_rows = smem_desc(smem + wg * 64 * 128, 16, 1024);
  const std::uint64_t db_cols = smem_desc(smem + kABytes, 64 * 128, 1024);
  // swap: A = atom (2 wg + j) of B (MN-major), B = all of A (K-major, 128 rows).
  const std::uint64_t da_atom = smem_desc(smem + kABytes + 2 * wg * 64 * 128, 64 * 128, 1024);
  const std::uint64_t db_rows = smem_desc(smem, 16, 1024);
  constexpr std::uint64_t kAtom = (64 * 128) >> 4, kKA = 32 >> 4, kKB = (16 * 128) >> 4;
  float d0[64], d1[64];
#pragma unroll
  for (int i = 0; i < 64; ++i) d0[i] = d1[i] = 0.f;
  float dd[128];
#pragma unroll
  for (int i = 0; i < 128; ++i) dd[i] = 0.f;
  __syncthreads();
  unsigned long long c0 = 0, t0 = 0;
  if (threadIdx.x == 0) { t0 = global_ns(); c0 = clock64(); }
  for (int it = 0; it < stages_to_run; ++it) {
    const std::uint64_t so = static_cast<std::uint64_t>((it % kStages) * (kStageBytes >> 4));
    if constexpr (kVariant == 0) {
      fence_registers(dd);
      wgmma_fence();
#pragma unroll
      for (int kk = 0; kk < 4; ++kk) {
        if constexpr (kBf16) wgmma_bf16<256>(dd, da_rows + so + kk * kKA, db_cols + so + kk * kKB, 1);
        else wgmma_f16<256>(dd, da_rows + so + kk * kKA, db_cols + so + kk * kKB, 1);
      }
      wgmma_commit();
      wgmma_wait<0>();
      fence_registers(dd);
    } else {
      fence_registers(d0);
      fence_registers(d1);
      wgmma_fence();
#pragma unroll
      for (int kk = 0; kk < 4; ++kk) {
        if constexpr (kVariant == 1) {
          // A's K step in an MN-major atom: 16 rows of 128 bytes; B's (K-major): 32 bytes.
          if constexpr (kBf16) {
            wgmma_bf16_swap<128>(d0, da_atom + so + kk * kKB, db_rows + so + kk * kKA, 1);
            wgmma_bf16_swap<128>(d1, da_atom + kAtom + so + kk * kKB, db_rows + so + kk * kKA, 1);
          } else {
            wgmma_f16_swap<128>(d0, da_atom + so + kk * kKB, db_rows + so + kk * kKA, 1);
            wgmma_f16_swap<128>(d1, da_atom + kAtom + so + kk * kKB, db_rows + so + kk * kKA, 1);
          }
        } else {
          if constexpr (kBf16) {
            wgmma_bf16<128>(d0, da_rows + so + kk * kKA, db_cols + so + kk * kKB, 1);
            wgmma_bf16<128>(d1, da_rows + so + kk * kKA, db_cols + 2 * kAtom + so + kk * kKB, 1);
          } else {
            wgmma_f16<128>(d0, da_rows + so + kk * kKA, db_cols + so + kk * kKB, 1);
            wgmma_f16<128>(d1, da_rows + so + kk * kKA, db_cols + 2 * kAtom + so + kk * kKB, 1);
          }
        }
      }
      wgmma_commit();
      wgmma_wait<0>();
      fence_registers(d0);
      fence_registers(d1);
    }
  }
  if (threadIdx.x == 0 && blockIdx.x == 0) {
    stamps[0] = clock64() - c0;
    stamps[1] = global_ns() - t0;
  }
  float s = 0.f;
#pragma unroll
  for (int i = 0; i < 64; ++i) s += d0[i] + d1[i] + dd[i] + dd[i + 64];
  sink[blockIdx.x * blockDim.x + threadIdx.x] = s;
}

struct Window {
  const char* name;
  double start_ms, end_ms, mhz, tflops;
  int launches;
};

static double now_ms() {
  return std::chrono::duration<double, std::milli>(std::chrono::system_clock::now().time_since_epoch()).count();
}

template <bool kBf16, int kVariant>
Window run(const char* name, int sms, double seconds, unsigned long long* stamps, float* sink) {
  cudaFuncSetAttribute(power_kernel<kBf16, kVariant>, cudaFuncAttributeMaxDynamicSharedMemorySize, kSmem);
  constexpr int kStagesPerLaunch = 3000;
  std::vector<double> mhz, tf;
  const double start = now_ms();
  int launches = 0;
  cudaEvent_t e0, e1;
  cudaEventCreate(&e0);
  cudaEventCreate(&e1);
  while (now_ms() - start < seconds * 1000.0) {
    cudaEventRecord(e0);
    power_kernel<kBf16, kVariant><<<sms, 256, kSmem>>>(kStagesPerLaunch, 1234u + launches, stamps, sink);
    cudaEventRecord(e1);
    if (cudaEventSynchronize(e1) != cudaSuccess) {
      std::printf("%s: %s\n", name, cudaGetErrorString(cudaGetLastError()));
      break;
    }
    unsigned long long host[2];
    cudaMemcpy(host, stamps, sizeof host, cudaMemcpyDeviceToHost);
    float ms = 0.f;
    cudaEventElapsedTime(&ms, e0, e1);
    ++launches;
    if (now_ms() - start < seconds * 400.0) continue;  // the first 40% settle the clock
    mhz.push_back(1e3 * static_cast<double>(host[0]) / static_cast<double>(host[1]));
    tf.push_back(2.0 * 128 * 256 * 64 * static_cast<double>(kStagesPerLaunch) * sms / (ms * 1e-3) / 1e12);
  }
  const double end = now_ms();
  std::sort(mhz.begin(), mhz.end());
  std::sort(tf.begin(), tf.end());
  Window w{name, start, end, mhz.empty() ? 0 : mhz[mhz.size() / 2], tf.empty() ? 0 : tf[tf.size() / 2], launches};
  std::printf("WINDOW %s %.0f %.0f mhz=%.0f tflops=%.1f launches=%d\n", name, w.start_ms, w.end_ms, w.mhz, w.tflops,
              launches);
  std::fflush(stdout);
  return w;
}

int main(int argc, char** argv) {
  const double seconds = argc > 1 ? std::atof(argv[1]) : 2.0;
  const int rounds = argc > 2 ? std::atoi(argv[2]) : 2;
  int sms = 0;
  cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, 0);
  unsigned long long* stamps;
  float* sink;
  cudaMalloc(&stamps, 2 * sizeof(unsigned long long));
  cudaMalloc(&sink, sms * 256 * sizeof(float));
  for (int r = 0; r < rounds; ++r) {
    run<false, 0>("f16-ours", sms, seconds, stamps, sink);
    run<false, 1>("f16-swap", sms, seconds, stamps, sink);
    run<false, 2>("f16-split", sms, seconds, stamps, sink);
    run<true, 0>("bf16-ours", sms, seconds, stamps, sink);
    run<true, 1>("bf16-swap", sms, seconds, stamps, sink);
    run<true, 2>("bf16-split", sms, seconds, stamps, sink);
  }
  return 0;
}
