// v11: where the block scheduler puts a persistent GEMM's CTAs. One CTA per SM (200 KB of shared
// memory), 132 CTAs, launched alone and in clusters of 2 and 4; each CTA writes its %smid and
// %cluster_ctarank and its start time (%globaltimer, ns after the first block's). Printed: blockIdx ->
// SM@start, and for each TPC (SMs 2t, 2t+1) the blocks on it; clusters of 2 under each of the three
// cluster scheduling policies (default, spread, load balancing).
#include <cuda_runtime.h>
#include <cstdio>
#include <vector>

__global__ void where(int* out) {
  extern __shared__ unsigned char smem[];
  unsigned smid, rank;
  unsigned long long t;
  asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(t));
  asm volatile("mov.u32 %0, %%smid;" : "=r"(smid));
  asm volatile("mov.u32 %0, %%cluster_ctarank;" : "=r"(rank));
  if (threadIdx.x == 0) {
    smem[0] = 1;
    out[2 * blockIdx.x] = smid;
    out[2 * blockIdx.x + 1] = rank;
    reinterpret_cast<unsigned long long*>(out + 1024)[blockIdx.x] = t;
  }
  // Hold the SM a while so that no block is placed on a freed SM.
  long long t0 = clock64();
  while (clock64() - t0 < 2000000) {}
}

int main() {
  const int n = 132, smem = 200 * 1024;
  cudaFuncSetAttribute(where, cudaFuncAttributeMaxDynamicSharedMemorySize, smem);
  int* d;
  cudaMalloc(&d, 1024 * sizeof(int) + n * sizeof(unsigned long long));
  struct Run { int cl, policy; };
  for (Run run : {Run{1, 0}, Run{2, 0}, Run{2, 1}, Run{2, 2}, Run{4, 0}}) {
    const int cl = run.cl;
    for (int rep = 0; rep < 2; ++rep) {
      int grid = n;
      if (cl == 4) grid = 120;
      cudaMemset(d, 0xff, 2 * n * sizeof(int));
      cudaLaunchConfig_t cfg = {};
      cudaLaunchAttribute attrs[2] = {};
      attrs[0].id = cudaLaunchAttributeClusterDimension;
      attrs[0].val.clusterDim.x = cl;
      attrs[0].val.clusterDim.y = attrs[0].val.clusterDim.z = 1;
      attrs[1].id = cudaLaunchAttributeClusterSchedulingPolicyPreference;
      attrs[1].val.clusterSchedulingPolicyPreference = static_cast<cudaClusterSchedulingPolicy>(run.policy);
      cfg.gridDim = dim3(grid);
      cfg.blockDim = dim3(384);
      cfg.dynamicSmemBytes = smem;
      cfg.attrs = attrs;
      cfg.numAttrs = 2;
      cudaError_t e = cudaLaunchKernelEx(&cfg, where, d);
      if (e == cudaSuccess) e = cudaDeviceSynchronize();
      if (e != cudaSuccess) { std::printf("cluster %d: %s\n", cl, cudaGetErrorString(e)); continue; }
      std::vector<int> h(2 * n);
      std::vector<unsigned long long> ts(n);
      cudaMemcpy(h.data(), d, 2 * n * sizeof(int), cudaMemcpyDeviceToHost);
      cudaMemcpy(ts.data(), d + 1024, n * sizeof(unsigned long long), cudaMemcpyDeviceToHost);
      unsigned long long t0 = ~0ull;
      for (int b = 0; b < grid; ++b) t0 = ts[b] < t0 ? ts[b] : t0;
      std::printf("cluster %d policy %d rep %d: block:sm@ns", cl, run.policy, rep);
      for (int b = 0; b < grid; ++b) std::printf(" %d:%d@%llu", b, h[2 * b], ts[b] - t0);
      std::printf("\ncluster %d policy %d rep %d: tpc:blocks", cl, run.policy, rep);
      std::vector<std::vector<int>> tpc(80);
      for (int b = 0; b < grid; ++b) if (h[2 * b] >= 0 && h[2 * b] < 160) tpc[h[2 * b] / 2].push_back(b);
      for (int t = 0; t < 80; ++t) {
        if (tpc[t].empty()) continue;
        std::printf(" %d:", t);
        for (size_t i = 0; i < tpc[t].size(); ++i) std::printf("%s%d", i ? "," : "", tpc[t][i]);
      }
      std::printf("\n");
    }
  }
  return 0;
}
