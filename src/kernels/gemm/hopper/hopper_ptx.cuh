#pragma once
// The sm_90 building blocks of the Hopper GEMM and flash attention, as inline PTX: the stage
// ring's position, mbarriers, TMA tile loads, shared-memory matrix descriptors, wgmma fences and
// register reallocation.
#include <cuda.h>

#include <cstdint>

namespace assay::kernels::hopper {

__device__ __forceinline__ std::uint32_t smem_u32(const void* p) {
  return static_cast<std::uint32_t>(__cvta_generic_to_shared(p));
}

// Position in a shared-memory ring of S stages: the stage, and the parity of its barriers'
// current phase.
template <int S>
struct Ring {
  int stage = 0;
  unsigned phase = 0;
  __device__ __forceinline__ void advance() {
    if (++stage == S) {
      stage = 0;
      phase ^= 1;
    }
  }
};

// ---- mbarriers -------------------------------------------------------------------------

__device__ __forceinline__ void mbar_init(std::uint64_t* bar, unsigned count) {
  asm volatile("mbarrier.init.shared::cta.b64 [%0], %1;" ::"r"(smem_u32(bar)), "r"(count));
}

// Makes the initialised barriers visible to the async proxy (the TMA unit completes on them).
__device__ __forceinline__ void mbar_init_fence() {
  asm volatile("fence.mbarrier_init.release.cluster;" ::: "memory");
}

// One arrival that also announces `bytes` of TMA transactions this phase must receive.
__device__ __forceinline__ void mbar_arrive_expect_tx(std::uint32_t bar, std::uint32_t bytes) {
  asm volatile("mbarrier.arrive.expect_tx.shared::cta.b64 _, [%0], %1;" ::"r"(bar), "r"(bytes) : "memory");
}
__device__ __forceinline__ void mbar_arrive_expect_tx(std::uint64_t* bar, std::uint32_t bytes) {
  mbar_arrive_expect_tx(smem_u32(bar), bytes);
}

// The barrier functions also take the shared-memory address itself: a loop that indexes a
// ring of barriers then adds to one address kept in a register, instead of converting a
// generic pointer (which reads the shared window's base again) on every wait.
__device__ __forceinline__ void mbar_arrive(std::uint32_t bar) {
  asm volatile("mbarrier.arrive.shared::cta.b64 _, [%0];" ::"r"(bar) : "memory");
}

// Spins until the phase with this parity has completed. A fresh barrier is in phase 0, so a
// wait on parity 1 returns at once: that is how a producer starts on empty slots.
__device__ __forceinline__ void mbar_wait(std::uint32_t bar, unsigned parity) {
  asm volatile(
      "{\n"
      ".reg .pred ready;\n"
      "WAIT_%=:\n"
      "mbarrier.try_wait.parity.shared::cta.b64 ready, [%0], %1;\n"
      "@!ready bra WAIT_%=;\n"
      "}\n" ::"r"(bar),
      "r"(parity)
      : "memory");
}
__device__ __forceinline__ void mbar_wait(std::uint64_t* bar, unsigned parity) { mbar_wait(smem_u32(bar), parity); }

// Arrives on the barrier at the same shared-memory offset in CTA `cta` of this cluster.
// Release at CTA scope (the default), as a stage release needs: what is ordered is this
// warp group's wgmma reads of the stage, already retired by wgmma.wait_group; the peer's
// next write there is a TMA (async proxy). `.release.cluster` here cost the 2-CTA
// configurations 30-70% (docs/kernels/hopper-gemm.md, v1b -> v2).
__device__ __forceinline__ void mbar_arrive_cluster(std::uint64_t* bar, unsigned cta) {
  asm volatile(
      "{\n"
      ".reg .b32 remote;\n"
      "mapa.shared::cluster.u32 remote, %0, %1;\n"
      "mbarrier.arrive.shared::cluster.b64 _, [remote];\n"
      "}\n" ::"r"(smem_u32(bar)),
      "r"(cta)
      : "memory");
}

// ---- clusters ----------------------------------------------------------------------------

__device__ __forceinline__ unsigned cluster_rank() {
  unsigned r;
  asm volatile("mov.u32 %0, %%cluster_ctarank;" : "=r"(r));
  return r;
}

// Every thread of every CTA of the cluster: orders the barrier set-up before any peer's use.
__device__ __forceinline__ void cluster_sync() {
  asm volatile("barrier.cluster.arrive.release.aligned;\nbarrier.cluster.wait.acquire.aligned;" ::: "memory");
}

// ---- TMA -------------------------------------------------------------------------------

// Copies the box at (x, y) of a 2-D tensor map (x the contiguous coordinate) into shared
// memory; completion is counted on `bar` in bytes. Out-of-bounds elements arrive as zeros.
__device__ __forceinline__ void tma_load_2d(void* dst, const CUtensorMap* map, std::uint64_t* bar, int x,
                                            int y) {
  asm volatile(
      "cp.async.bulk.tensor.2d.shared::cluster.global.tile.mbarrier::complete_tx::bytes"
      " [%0], [%1, {%3, %4}], [%2];" ::"r"(smem_u32(dst)),
      "l"(reinterpret_cast<std::uint64_t>(map)), "r"(smem_u32(bar)), "r"(x), "r"(y)
      : "memory");
}

// The box at (x, y, z) of a 3-D tensor map into shared memory at address `dst`, completing on the
// barrier at `bar` (attention: [b·h][s][d], a box never reaching into the next head).
__device__ __forceinline__ void tma_load_3d(std::uint32_t dst, const CUtensorMap* map, std::uint32_t bar, int x, int y,
                                            int z) {
  asm volatile(
      "cp.async.bulk.tensor.3d.shared::cluster.global.tile.mbarrier::complete_tx::bytes"
      " [%0], [%1, {%3, %4, %5}], [%2];" ::"r"(dst),
      "l"(reinterpret_cast<std::uint64_t>(map)), "r"(bar), "r"(x), "r"(y), "r"(z)
      : "memory");
}

// The same box written to the same shared-memory offset of every CTA in `cta_mask`, each
// CTA's barrier at `bar`'s offset counting the bytes it receives.
__device__ __forceinline__ void tma_load_2d_multicast(void* dst, const CUtensorMap* map, std::uint64_t* bar, int x,
                                                      int y, std::uint16_t cta_mask) {
  asm volatile(
      "cp.async.bulk.tensor.2d.shared::cluster.global.tile.mbarrier::complete_tx::bytes.multicast::cluster"
      " [%0], [%1, {%3, %4}], [%2], %5;" ::"r"(smem_u32(dst)),
      "l"(reinterpret_cast<std::uint64_t>(map)), "r"(smem_u32(bar)), "r"(x), "r"(y), "h"(cta_mask)
      : "memory");
}

// Pulls a tensor map (a __grid_constant__ kernel parameter) into the TMA unit's descriptor
// cache ahead of its first use, taking that miss off the first load's latency.
__device__ __forceinline__ void prefetch_tensor_map(const CUtensorMap* map) {
  asm volatile("prefetch.tensormap [%0];" ::"l"(reinterpret_cast<std::uint64_t>(map)) : "memory");
}

// Copies a box from shared memory to (x, y) of a 2-D tensor map; the parts of the box outside
// the tensor are not written. Completion is tracked per thread in bulk async-groups.
__device__ __forceinline__ void tma_store_2d(const CUtensorMap* map, const void* src, int x, int y) {
  asm volatile("cp.async.bulk.tensor.2d.global.shared::cta.bulk_group [%0, {%2, %3}], [%1];" ::"l"(
                   reinterpret_cast<std::uint64_t>(map)),
               "r"(smem_u32(src)), "r"(x), "r"(y)
               : "memory");
}
__device__ __forceinline__ void bulk_commit() { asm volatile("cp.async.bulk.commit_group;" ::: "memory"); }
// Waits until at most N of this thread's bulk groups are still reading shared memory.
template <int N>
__device__ __forceinline__ void bulk_wait_read() {
  asm volatile("cp.async.bulk.wait_group.read %0;" ::"n"(N) : "memory");
}
// Waits until all of this thread's bulk groups have completed (their writes are done).
__device__ __forceinline__ void bulk_wait_all() { asm volatile("cp.async.bulk.wait_group 0;" ::: "memory"); }

// Orders this thread's ordinary shared-memory writes before later async-proxy (TMA) reads.
__device__ __forceinline__ void fence_proxy_async_smem() {
  asm volatile("fence.proxy.async.shared::cta;" ::: "memory");
}

__device__ __forceinline__ void st_shared_v4(void* p, std::uint32_t a, std::uint32_t b, std::uint32_t c,
                                             std::uint32_t d) {
  asm volatile("st.shared.v4.b32 [%0], {%1, %2, %3, %4};" ::"r"(smem_u32(p)), "r"(a), "r"(b), "r"(c), "r"(d)
               : "memory");
}

// Four 8 x 8 b16 matrices from the warp's registers to shared memory (lanes 8i..8i+7 address
// matrix i's rows; lane l's register i is row l/4, columns 2(l%4), +1 of matrix i). sm_90.
__device__ __forceinline__ void stmatrix_x4(std::uint32_t addr, const std::uint32_t (&r)[4]) {
  asm volatile("stmatrix.sync.aligned.m8n8.x4.shared.b16 [%0], {%1, %2, %3, %4};" ::"r"(addr), "r"(r[0]), "r"(r[1]),
               "r"(r[2]), "r"(r[3])
               : "memory");
}

// A barrier among the `threads` threads (whole warps) that name the same id (1..15; 0 is
// __syncthreads).
__device__ __forceinline__ void named_barrier(int id, int threads) {
  asm volatile("bar.sync %0, %1;" ::"r"(id), "r"(threads) : "memory");
}
// Arrives on named barrier `id` without waiting: with bar.sync on the other side, one warp
// group signals another (the barrier completes once `threads` have arrived or synced).
__device__ __forceinline__ void named_barrier_arrive(int id, int threads) {
  asm volatile("bar.arrive %0, %1;" ::"r"(id), "r"(threads) : "memory");
}

// ---- wgmma -------------------------------------------------------------------------------

// Matrix descriptor of a tile written by TMA with a swizzle, at shared address `addr`: the
// leading and stride byte offsets (16-byte units), the layout type in bits 62-63 (1: 128-byte
// swizzle, 2: 64-byte). The tile base must be aligned to the swizzle's atom (1024 or 512 bytes)
// so the swizzle phase matches the TMA's.
__device__ __forceinline__ std::uint64_t smem_desc_at(std::uint32_t addr, std::uint32_t leading_bytes,
                                                      std::uint32_t stride_bytes, std::uint64_t swizzle = 1) {
  return ((addr & 0x3FFFF) >> 4) | (static_cast<std::uint64_t>((leading_bytes & 0x3FFFF) >> 4) << 16) |
         (static_cast<std::uint64_t>((stride_bytes & 0x3FFFF) >> 4) << 32) | (swizzle << 62);
}
// The same for a generic pointer into shared memory, 128-byte swizzle.
__device__ __forceinline__ std::uint64_t smem_desc(const void* p, std::uint32_t leading_bytes,
                                                   std::uint32_t stride_bytes) {
  return smem_desc_at(smem_u32(p), leading_bytes, stride_bytes);
}

__device__ __forceinline__ void wgmma_fence() { asm volatile("wgmma.fence.sync.aligned;" ::: "memory"); }
__device__ __forceinline__ void wgmma_commit() { asm volatile("wgmma.commit_group.sync.aligned;" ::: "memory"); }
template <int N>
__device__ __forceinline__ void wgmma_wait() {
  asm volatile("wgmma.wait_group.sync.aligned %0;" ::"n"(N) : "memory");
}

// Keeps the compiler from moving accumulator registers across the asynchronous wgmma window.
template <int R>
__device__ __forceinline__ void fence_registers(float (&d)[R]) {
#pragma unroll
  for (int i = 0; i < R; ++i) asm volatile("" : "+f"(d[i])::"memory");
}

// A register copy the compilers keep as one: wgmmas on plain copies of an accumulator slice
// still made ptxas serialise the kernel's wgmmas (C7511), on these it did not (v15).
__device__ __forceinline__ void copy_register(float& dst, float src) {
  asm volatile("mov.b32 %0, %1;" : "=f"(dst) : "f"(src));
}

// ---- register reallocation between warp groups ---------------------------------------

template <int R>
__device__ __forceinline__ void regs_release() {
  asm volatile("setmaxnreg.dec.sync.aligned.u32 %0;" ::"n"(R));
}
template <int R>
__device__ __forceinline__ void regs_claim() {
  asm volatile("setmaxnreg.inc.sync.aligned.u32 %0;" ::"n"(R));
}

}  // namespace assay::kernels::hopper
