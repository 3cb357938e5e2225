// v11 call 15: when do the CTAs that read the same A block (tile row tm, K block kb) ask for it?
// Built with trace.patch's hopper_gemm.cu, which records each producer's A-load issue time
// (%globaltimer) and (tm, kb) for its first 256 stages. bf16 4096^3, the pair (128x256_c2) and the
// single CTAs (128x256), one launch after a 256 MB memset (a cold L2, as the cold mode's flush).
// Printed: for each configuration, how far after the first request of each (tm, kb) the others come.
#include <cuda_bf16.h>
#include <cuda_runtime.h>

#include <algorithm>
#include <cstdio>
#include <map>
#include <vector>

#include "kernels/gemm/hopper/hopper_gemm.hpp"

namespace assay::kernels::hopper {
void trace_set(unsigned long long* t, unsigned* key);
}
using namespace assay::kernels::hopper;

int main() {
  const int n = 4096, ctas = 132, stages = 256;
  __nv_bfloat16 *a, *b, *c;
  cudaMalloc(&a, sizeof(__nv_bfloat16) * n * n);
  cudaMalloc(&b, sizeof(__nv_bfloat16) * n * n);
  cudaMalloc(&c, sizeof(__nv_bfloat16) * n * n);
  cudaMemset(a, 0x3c, sizeof(__nv_bfloat16) * n * n);
  cudaMemset(b, 0x3c, sizeof(__nv_bfloat16) * n * n);
  unsigned char* flush;
  cudaMalloc(&flush, 256 << 20);
  unsigned long long* t;
  unsigned* key;
  cudaMalloc(&t, sizeof(*t) * ctas * stages);
  cudaMalloc(&key, sizeof(*key) * ctas * stages);
  for (int cluster : {2, 1}) {
    for (int i = 0; i < 3; ++i) launch(Elem::bf16, 128, 256, cluster, n, n, n, a, b, c, nullptr, nullptr, 0);
    cudaMemset(t, 0, sizeof(*t) * ctas * stages);
    cudaMemset(flush, 1, 256 << 20);
    trace_set(t, key);
    cudaError_t e = launch(Elem::bf16, 128, 256, cluster, n, n, n, a, b, c, nullptr, nullptr, 0);
    cudaDeviceSynchronize();
    trace_set(nullptr, nullptr);
    std::vector<unsigned long long> ht(ctas * stages);
    std::vector<unsigned> hk(ctas * stages);
    cudaMemcpy(ht.data(), t, sizeof(*t) * ctas * stages, cudaMemcpyDeviceToHost);
    cudaMemcpy(hk.data(), key, sizeof(*key) * ctas * stages, cudaMemcpyDeviceToHost);
    std::map<unsigned, std::vector<long long>> by_key;
    unsigned long long t0 = ~0ull;
    for (int i = 0; i < ctas * stages; ++i) if (ht[i]) t0 = std::min(t0, ht[i]);
    for (int i = 0; i < ctas * stages; ++i)
      if (ht[i]) by_key[hk[i]].push_back(static_cast<long long>(ht[i] - t0));
    // For every request but the first of its (tm, kb): how long after the first one it came.
    std::vector<long long> after;
    std::map<int, int> sharers;
    for (auto& [k, v] : by_key) {
      std::sort(v.begin(), v.end());
      sharers[static_cast<int>(v.size())]++;
      for (size_t j = 1; j < v.size(); ++j) after.push_back(v[j] - v[0]);
    }
    std::sort(after.begin(), after.end());
    auto frac = [&](long long ns) {
      return 100.0 * (std::upper_bound(after.begin(), after.end(), ns) - after.begin()) / after.size();
    };
    auto pct = [&](double p) { return after[static_cast<size_t>(p * (after.size() - 1))]; };
    std::printf("cluster %d (%s): %zu (tm, kb) keys, %zu later requests; sharers per key:", cluster,
                cudaGetErrorString(e), by_key.size(), after.size());
    for (auto& [s, cnt] : sharers) std::printf(" %d:%d", s, cnt);
    std::printf("\n  after the first: <=200 ns %.1f%%, <=1 us %.1f%%, <=5 us %.1f%%; median %lld ns, p90 %lld ns\n",
                frac(200), frac(1000), frac(5000), pct(0.5), pct(0.9));
  }
  return 0;
}
