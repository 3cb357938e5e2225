// v11: when does the L2 request coalescer (LRC) merge the same TMA reads from different SMs?
// One CTA per SM (200 KB of shared memory), 132 CTAs. Thread 0 of each CTA reads kBlocks blocks of
// 16 KB with 1-D bulk copies (cp.async.bulk, the TMA unit), four in flight, each completed on an
// mbarrier. Which block a CTA reads at step i depends on its SM and the sharing mode, so that SMs
// that "share" read the same blocks in the same order:
//   private   every SM its own blocks
//   tpc       the two SMs of a TPC (2t, 2t+1) share
//   chunk     SMs s and s^2 share (one chunk, different TPCs)
//   cross     SMs s and s^16 share (different chunks; SMs below 64 only, the rest private)
//   all8      SMs s, s^16, s^32, s^48 ... : s % 16 decides (SMs below 128), 8 sharers in 8 chunks
// The second sharer of each pair may start `delay` ns late (spin on %globaltimer); every CTA spends
// `pace` ns after each completed block (about a GEMM's pace: 16 KB per 250 ns). Two regimes: each
// group streams 256 distinct blocks (4 MB; 132 groups do not fit in L2: misses) or cycles over 8
// (128 KB; all groups fit: hits after the first touches). Each configuration launches twice; the
// host prints the launches in order, and Nsight Compute (run by lrc_probe.sh) their lrc__ counters.
// Layout 1: 1-D bulk copies of contiguous 16 KB. Layout 2 (call 14): the GEMM's A boxes instead, 2-D
// tensor-map loads of 64 bf16 x 128 rows (128-byte swizzle, 256-byte L2 promotion) from a row-major
// matrix 4096 wide, so each box is 128 lines of 128 bytes, 8 KB apart.
#include <cuda.h>
#include <cudaTypedefs.h>
#include <cuda_runtime.h>
#include <cstdint>
#include <cstdio>

constexpr int kBlocks = 256, kBlockBytes = 16384, kRing = 4;

__device__ __forceinline__ unsigned smid() {
  unsigned s;
  asm volatile("mov.u32 %0, %%smid;" : "=r"(s));
  return s;
}
__device__ __forceinline__ unsigned long long now() {
  unsigned long long t;
  asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(t));
  return t;
}

// key: which group of sharers this SM is in; role: 0 for the first of a pair, 1 for the second.
__device__ void share(int mode, unsigned s, unsigned& key, unsigned& role) {
  key = s; role = 0;
  if (mode == 1) { key = s & ~1u; role = s & 1u; }
  if (mode == 2) { key = s & ~2u; role = (s >> 1) & 1u; }
  if (mode == 3 && s < 64) { key = s & ~16u; role = (s >> 4) & 1u; }
  if (mode == 4 && s < 128) { key = 132 + s % 16; role = (s / 16) & 1u; }
}

__global__ void probe(const unsigned char* src, const __grid_constant__ CUtensorMap map, int layout, int mode,
                      long long delay_ns, int span, long long pace_ns, int tag, unsigned* sink) {
  extern __shared__ __align__(1024) unsigned char smem[];
  __shared__ __align__(8) unsigned long long bar[kRing];
  if (threadIdx.x != 0) return;
  unsigned key, role;
  share(mode, smid(), key, role);
  for (int r = 0; r < kRing; ++r)
    asm volatile("mbarrier.init.shared::cta.b64 [%0], 1;" ::"r"((unsigned)__cvta_generic_to_shared(&bar[r])));
  asm volatile("fence.mbarrier_init.release.cluster;" ::: "memory");
  if (role) {
    const unsigned long long t0 = now();
    while (now() - t0 < (unsigned long long)delay_ns) {}
  }
  for (int i = 0; i < kBlocks; ++i) {
    const int r = i % kRing;
    const unsigned b = (unsigned)__cvta_generic_to_shared(&bar[r]);
    if (i >= kRing) {  // wait for the load that used this slot
      const unsigned parity = ((i / kRing) - 1) & 1;
      asm volatile("{\n.reg .pred p;\nW: mbarrier.try_wait.parity.shared::cta.b64 p, [%0], %1;\n@!p bra W;\n}" ::"r"(b),
                   "r"(parity) : "memory");
      const unsigned long long t0 = now();
      while (now() - t0 < (unsigned long long)pace_ns) {}
    }
    const std::size_t blk = (std::size_t)key * kBlocks + i % span;  // 148 groups x 4 MB
    asm volatile("mbarrier.arrive.expect_tx.shared::cta.b64 _, [%0], %1;" ::"r"(b), "r"(kBlockBytes) : "memory");
    const unsigned dst = (unsigned)__cvta_generic_to_shared(smem + r * kBlockBytes);
    if (layout == 1) {
      asm volatile("cp.async.bulk.shared::cluster.global.mbarrier::complete_tx::bytes [%0], [%1], %2, [%3];" ::"r"(dst),
                   "l"(src + blk * kBlockBytes), "r"(kBlockBytes), "r"(b)
                   : "memory");
    } else {  // the same 4 MB of the group as 4 row blocks x 64 K blocks
      const int j = i % span, x = (j % 64) * 64, y = (key * 4 + (j / 64) % 4) * 128;
      asm volatile(
          "cp.async.bulk.tensor.2d.shared::cluster.global.tile.mbarrier::complete_tx::bytes [%0], [%1, {%3, %4}], [%2];" ::"r"(
              dst),
          "l"(reinterpret_cast<std::uint64_t>(&map)), "r"(b), "r"(x), "r"(y)
          : "memory");
    }
  }
  for (int i = kBlocks; i < kBlocks + kRing; ++i) {
    const unsigned b = (unsigned)__cvta_generic_to_shared(&bar[i % kRing]);
    const unsigned parity = ((i / kRing) - 1) & 1;
    asm volatile("{\n.reg .pred p;\nW2: mbarrier.try_wait.parity.shared::cta.b64 p, [%0], %1;\n@!p bra W2;\n}" ::"r"(b),
                 "r"(parity) : "memory");
  }
  if (tag < 0) sink[0] = smem[0];  // never: keeps the loads
}

int main() {
  unsigned char* src;
  unsigned* sink;
  const std::size_t bytes = 148ull * kBlocks * kBlockBytes;  // also 148 x 512 rows x 4096 bf16
  cudaMalloc(&src, bytes);
  cudaMalloc(&sink, 4);
  cudaMemset(src, 1, bytes);
  void* fn = nullptr;
  cudaDriverEntryPointQueryResult q{};
  cudaGetDriverEntryPointByVersion("cuTensorMapEncodeTiled", &fn, 12000, cudaEnableDefault, &q);
  CUtensorMap map{};
  const cuuint64_t dims[2] = {4096, 148ull * 512}, pitch[1] = {4096 * 2};
  const cuuint32_t box[2] = {64, 128}, unit[2] = {1, 1};
  const CUresult cr = reinterpret_cast<PFN_cuTensorMapEncodeTiled_v12000>(fn)(
      &map, CU_TENSOR_MAP_DATA_TYPE_UINT16, 2, src, dims, pitch, box, unit, CU_TENSOR_MAP_INTERLEAVE_NONE,
      CU_TENSOR_MAP_SWIZZLE_128B, CU_TENSOR_MAP_L2_PROMOTION_L2_256B, CU_TENSOR_MAP_FLOAT_OOB_FILL_NONE);
  if (cr != CUDA_SUCCESS) std::printf("tensor map: error %d\n", (int)cr);
  const int smem = 200 * 1024;  // one CTA per SM
  cudaFuncSetAttribute(probe, cudaFuncAttributeMaxDynamicSharedMemorySize, smem);
  const char* names[] = {"private", "tpc", "chunk", "cross", "all8"};
  int tag = 0;
  for (int layout : {1, 2})
    for (int span : {256, 8})
      for (int mode = 0; mode < 5; ++mode)
        for (long long delay : {0LL, 1000LL}) {
          if (mode == 0 && delay) continue;
          probe<<<132, 128, smem>>>(src, map, layout, mode, delay, span, 250, tag, sink);
          cudaError_t e = cudaDeviceSynchronize();
          std::printf("launch %d: layout %d span %d mode %s delay %lld %s\n", tag, layout, span, names[mode], delay,
                      e == cudaSuccess ? "ok" : cudaGetErrorString(e));
          ++tag;
        }
  return 0;
}
