// How many clusters of 1, 2 and 4 CTAs of the Hopper GEMM's launch shape (384 threads, 1 CTA per
// SM by its 227 KB of shared memory) the device holds at once: the persistent grid's size.
#include <cstdio>
#include <cuda_runtime.h>

__global__ void probe_kernel(int* p) {
  extern __shared__ int s[];
  if (p) p[0] = s[0];
}

int main() {
  const int smem = 227 * 1024;
  if (cudaFuncSetAttribute(probe_kernel, cudaFuncAttributeMaxDynamicSharedMemorySize, smem) != cudaSuccess) return 4;
  cudaFuncSetAttribute(probe_kernel, cudaFuncAttributeNonPortableClusterSizeAllowed, 1);
  int sms = 0;
  cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, 0);
  for (int c : {1, 2, 4, 8}) {
    cudaLaunchConfig_t cfg = {};
    cudaLaunchAttribute attr = {};
    attr.id = cudaLaunchAttributeClusterDimension;
    attr.val.clusterDim.x = c;
    attr.val.clusterDim.y = attr.val.clusterDim.z = 1;
    cfg.gridDim = dim3(sms / c * c);
    cfg.blockDim = dim3(384);
    cfg.dynamicSmemBytes = smem;
    cfg.attrs = &attr;
    cfg.numAttrs = 1;
    int found = -1;
    const cudaError_t e = cudaOccupancyMaxActiveClusters(&found, probe_kernel, &cfg);
    std::printf("cluster %d: %d clusters = %d CTAs of %d SMs (%s)\n", c, found, found * c, sms, cudaGetErrorString(e));
  }
  return 0;
}
