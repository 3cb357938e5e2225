// Which L2 side is near which SM? (bench/notes/gemm.md, v9, the next lead.) H100's L2 is two
// partitions; a line is homed in one. For each launch the host rewrites a 64 KB buffer with the copy
// engine (so no SM holds or has pulled a copy of it), then one CTA, whichever SM it lands on, times
// its first and its second load (ld.global.cg: L2, not L1) of each of the buffer's 512 lines, one
// load in flight at a time. A line homed on the SM's far side costs more on its first load. Prints,
// per launch, the SM id and the first-load latencies; the analysis (two groups of SMs whose
// near/far patterns over the lines are each other's complement, or not) is done on this machine.
// Build: nvcc -O3 -std=c++17 -gencode=arch=compute_90a,code=sm_90a l2_sides.cu
#include <cstdint>
#include <cstdio>
#include <vector>
#include <cuda_runtime.h>

constexpr int kLines = 512, kLineBytes = 128;

__device__ __forceinline__ unsigned smid() {
  unsigned r;
  asm volatile("mov.u32 %0, %%smid;" : "=r"(r));
  return r;
}

// Each line's first word holds the offset (in words) of the next line: a dependent chain.
__global__ void probe(const unsigned* buf, int target, unsigned* out_sm, unsigned* out_first, unsigned* out_second) {
  __shared__ volatile unsigned landed;
  if (blockIdx.x != target || threadIdx.x != 0) return;
  *out_sm = smid();
  for (int pass = 0; pass < 2; ++pass) {
    unsigned idx = 0;
    for (int i = 0; i < kLines; ++i) {
      const unsigned long long t0 = clock64();
      unsigned next;
      asm volatile("ld.global.cg.u32 %0, [%1];" : "=r"(next) : "l"(buf + idx) : "memory");
      // The store waits for the load's value, and the clock is read after it: instructions of a
      // warp issue in order, so t1 follows the load's completion.
      landed = next;
      const unsigned long long t1 = clock64();
      (pass == 0 ? out_first : out_second)[idx / (kLineBytes / 4)] = static_cast<unsigned>(t1 - t0);
      idx = next;
    }
  }
}

int main() {
  int sms = 0;
  cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, 0);
  const int words = kLines * kLineBytes / 4;
  std::vector<unsigned> host(words, 0);
  // A fixed pseudo-random order over the lines, so that no stride pattern helps.
  std::vector<int> order(kLines);
  for (int i = 0; i < kLines; ++i) order[i] = i;
  unsigned s = 12345;
  for (int i = kLines - 1; i > 0; --i) {
    s = s * 1664525u + 1013904223u;
    std::swap(order[i], order[s % (i + 1)]);
  }
  // Chain from line 0 through `order`.
  std::vector<int> chain;
  chain.push_back(0);
  for (int v : order) if (v != 0) chain.push_back(v);
  for (int i = 0; i < kLines; ++i) host[chain[i] * (kLineBytes / 4)] = chain[(i + 1) % kLines] * (kLineBytes / 4);
  unsigned *buf, *d_sm, *d_first, *d_second;
  cudaMalloc(&buf, words * 4);
  cudaMalloc(&d_sm, 4);
  cudaMalloc(&d_first, kLines * 4);
  cudaMalloc(&d_second, kLines * 4);
  std::vector<unsigned> first(kLines), second(kLines);
  const int launches = 4 * sms;
  for (int j = 0; j < launches; ++j) {
    cudaMemcpy(buf, host.data(), words * 4, cudaMemcpyHostToDevice);
    probe<<<sms, 32>>>(buf, j % sms, d_sm, d_first, d_second);
    unsigned sm = 0;
    if (cudaMemcpy(&sm, d_sm, 4, cudaMemcpyDeviceToHost) != cudaSuccess) { std::printf("error\n"); return 4; }
    cudaMemcpy(first.data(), d_first, kLines * 4, cudaMemcpyDeviceToHost);
    cudaMemcpy(second.data(), d_second, kLines * 4, cudaMemcpyDeviceToHost);
    std::printf("sm %u first", sm);
    for (unsigned x : first) std::printf(" %u", x);
    std::printf(" second");
    for (unsigned x : second) std::printf(" %u", x);
    std::printf("\n");
  }
  return 0;
}
