// assay's Hopper GEMM: see hopper_gemm.hpp for the contract, bench/notes/gemm.md for the
// versions and their measurements. Compiled for sm_90a only (src/kernels/gemm/hopper.cmake).
#include "kernels/gemm/hopper/hopper_gemm.hpp"

#include <cuda_bf16.h>
#include <cuda_fp16.h>

#include <cstdint>
#include <type_traits>

#include "kernels/gemm/hopper/hopper_ptx.cuh"
#include "kernels/gemm/hopper/tensor_maps.hpp"
#include "kernels/gemm/hopper/wgmma_ops.cuh"

namespace assay::kernels::hopper {

namespace {

constexpr int kThreads = 384;        // warp group 0 produces, 1 and 2 consume
constexpr int kConsumers = 2;
constexpr int kRowBytes = 128;       // one swizzle row: each tile row holds 128 bytes of K
constexpr int kGroupM = 8;           // tile rows walked together (L2 reuse of B)
constexpr int kProducerRegs = 40;
constexpr int kConsumerRegs = 232;

template <Elem E>
struct Traits;
template <>
struct Traits<Elem::f16> {
  using Out = __half;
  static constexpr int kElemBytes = 2, kStepK = 16;
  static constexpr bool kBKMajor = false;  // B is k x n row-major: N-contiguous (MN-major)
};
template <>
struct Traits<Elem::bf16> {
  using Out = __nv_bfloat16;
  static constexpr int kElemBytes = 2, kStepK = 16;
  static constexpr bool kBKMajor = false;
};
template <>
struct Traits<Elem::e4m3> {
  using Out = __nv_bfloat16;
  static constexpr int kElemBytes = 1, kStepK = 32;
  static constexpr bool kBKMajor = true;   // B is n x k: K-contiguous, as fp8 wgmma requires
};

// As many stages as fit in 227 KB with the 1 KB alignment slack: 4 x 48 KB, 5 x 40, 6 x 32, 8 x 24.
// fp8 sums each K block apart from the fp32 accumulators (see the consumer loop).
template <Elem E>
constexpr bool kPromote = E == Elem::e4m3;

constexpr int stages_for(int tile_n) { return tile_n == 256 ? 4 : tile_n == 192 ? 5 : tile_n == 128 ? 6 : 8; }

template <Elem E, int BN>
struct Tile {
  static constexpr int kBK = kRowBytes / Traits<E>::kElemBytes;  // K per stage
  static constexpr int kStages = stages_for(BN);
  static constexpr int kABytes = kTileM * kRowBytes;
  static constexpr int kBBytes = BN * kRowBytes;
  static constexpr int kStageBytes = kABytes + kBBytes;
  // Stages, the barriers, and slack to align the ring to 1024 bytes (the swizzle period).
  static constexpr int kSmemBytes = kStages * kStageBytes + 2 * kStages * 8 + 1024;
};

template <Elem E, int N>
__device__ __forceinline__ void mma(float (&d)[N / 2], std::uint64_t da, std::uint64_t db, int acc) {
  if constexpr (E == Elem::f16) wgmma_f16<N>(d, da, db, acc);
  else if constexpr (E == Elem::bf16) wgmma_bf16<N>(d, da, db, acc);
  else wgmma_e4m3<N>(d, da, db, acc);
}

// Position in the shared-memory ring: the stage, and the parity of its barriers' current phase.
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

__device__ __forceinline__ void tile_coords(int t, int tiles_m, int tiles_n, int& tm, int& tn) {
  const int per_group = kGroupM * tiles_n;
  const int g = t / per_group;
  const int first = g * kGroupM;
  const int rows = min(tiles_m - first, kGroupM);
  const int r = t - g * per_group;
  tm = first + r % rows;
  tn = r / rows;
}

template <typename Out>
__device__ __forceinline__ void store_pair(Out* p, float lo, float hi) {
  if constexpr (std::is_same_v<Out, __half>)
    *reinterpret_cast<__half2*>(p) = __floats2half2_rn(lo, hi);
  else
    *reinterpret_cast<__nv_bfloat162*>(p) = __floats2bfloat162_rn(lo, hi);
}

// C = 1: each CTA loads its own tiles. C = 2 (clusters of 2 CTAs): CTA rank r takes tile row
// 2p + r of pair row p and the pair's common tile column; each CTA loads half of the common B
// tile for both (multicast), halving B's L2-to-SM traffic.
template <Elem E, int BN, int C>
__global__ void __launch_bounds__(kThreads, 1)
    hopper_gemm_kernel(const __grid_constant__ CUtensorMap map_a, const __grid_constant__ CUtensorMap map_b,
                       typename Traits<E>::Out* __restrict__ c, int m, int n, int k,
                       const float* __restrict__ scale_a, const float* __restrict__ scale_b) {
  using T = Tile<E, BN>;
  constexpr int kStages = T::kStages;
  extern __shared__ unsigned char smem_raw[];
  unsigned char* smem = reinterpret_cast<unsigned char*>(
      (reinterpret_cast<std::uintptr_t>(smem_raw) + 1023) & ~std::uintptr_t(1023));
  std::uint64_t* full = reinterpret_cast<std::uint64_t*>(smem + kStages * T::kStageBytes);
  std::uint64_t* empty = full + kStages;

  const int warp_group = threadIdx.x / 128;
  const int tid = threadIdx.x % 128;
  const unsigned rank = C == 2 ? cluster_rank() : 0u;
  const unsigned peer = rank ^ 1u;
  if (threadIdx.x == 0) {
    for (int s = 0; s < kStages; ++s) {
      mbar_init(&full[s], 1);
      // A stage is rewritten (in both CTAs) once both consumers of both CTAs are done with it.
      mbar_init(&empty[s], kConsumers * C);
    }
    mbar_init_fence();
  }
  if constexpr (C == 2) cluster_sync();
  else __syncthreads();

  const int tiles_m = (m + kTileM - 1) / kTileM;
  const int pairs_m = (tiles_m + C - 1) / C;
  const int tiles_n = (n + BN - 1) / BN;
  const int units = pairs_m * tiles_n;
  const int cluster = blockIdx.x / C, clusters = gridDim.x / C;
  const int k_blocks = (k + T::kBK - 1) / T::kBK;

  if (warp_group == 0) {
    regs_release<kProducerRegs>();
    if (tid == 0) {
      Ring<kStages> ring;
      for (int u = cluster; u < units; u += clusters) {
        int pm, tn;
        tile_coords(u, pairs_m, tiles_n, pm, tn);
        const int tm = C * pm + static_cast<int>(rank);  // past the last row: TMA reads zeros
        for (int kb = 0; kb < k_blocks; ++kb) {
          mbar_wait(&empty[ring.stage], ring.phase ^ 1);
          unsigned char* sa = smem + ring.stage * T::kStageBytes;
          unsigned char* sb = sa + T::kABytes;
          // Own A plus both halves of B (one from each CTA) land in this stage.
          mbar_arrive_expect_tx(&full[ring.stage], T::kStageBytes);
          tma_load_2d(sa, &map_a, &full[ring.stage], kb * T::kBK, tm * kTileM);
          if constexpr (C == 1) {
            if constexpr (Traits<E>::kBKMajor) {
              tma_load_2d(sb, &map_b, &full[ring.stage], kb * T::kBK, tn * BN);
            } else {
#pragma unroll
              for (int j = 0; j < BN / 64; ++j)
                tma_load_2d(sb + j * T::kBK * kRowBytes, &map_b, &full[ring.stage], tn * BN + j * 64, kb * T::kBK);
            }
          } else if constexpr (Traits<E>::kBKMajor) {
            constexpr int kHalf = BN / 2;  // rows of B (n) per CTA
            tma_load_2d_multicast(sb + rank * kHalf * kRowBytes, &map_b, &full[ring.stage], kb * T::kBK,
                                  tn * BN + static_cast<int>(rank) * kHalf, 0x3);
          } else {
            // 64-column boxes (128 bytes of N each), dealt alternately to the two CTAs.
#pragma unroll
            for (int j = 0; j < BN / 64; ++j)
              if (j % 2 == static_cast<int>(rank))
                tma_load_2d_multicast(sb + j * T::kBK * kRowBytes, &map_b, &full[ring.stage], tn * BN + j * 64,
                                      kb * T::kBK, 0x3);
          }
          ring.advance();
        }
      }
    }
    __syncwarp();  // the producer lane rejoins its warp before the aligned cluster barrier
  } else {
    regs_claim<kConsumerRegs>();
    const int consumer = warp_group - 1;  // rows [64 * consumer, 64 * consumer + 64) of the tile
    float scale = 1.0f;
    if constexpr (E == Elem::e4m3) scale = *scale_a * *scale_b;
    float acc[BN / 2];
#pragma unroll
    for (int i = 0; i < BN / 2; ++i) acc[i] = 0.0f;
    Ring<kStages> ring;
    const int warp = tid / 32, lane = tid % 32;
    auto release = [&](int s) {
      if (tid == 0) {
        mbar_arrive(&empty[s]);
        if constexpr (C == 2) mbar_arrive_cluster(&empty[s], peer);
      }
    };
    auto issue = [&](float(&d)[BN / 2], int s, bool accumulate_first) {
      const unsigned char* sa = smem + s * T::kStageBytes + consumer * 64 * kRowBytes;
      const unsigned char* sb = smem + s * T::kStageBytes + T::kABytes;
      fence_registers(d);
      wgmma_fence();
#pragma unroll
      for (int kk = 0; kk < T::kBK / Traits<E>::kStepK; ++kk) {
        // K-major A: a K step is 32 bytes along the swizzled row; 8-row groups 1024 bytes apart.
        const std::uint64_t da = smem_desc(sa + kk * 32, 16, 1024);
        std::uint64_t db;
        if constexpr (Traits<E>::kBKMajor)
          db = smem_desc(sb + kk * 32, 16, 1024);
        else  // MN-major B: a K step is 16 rows of 128 bytes; 64-column atoms BK rows apart.
          db = smem_desc(sb + kk * Traits<E>::kStepK * kRowBytes, T::kBK * kRowBytes, 1024);
        mma<E, BN>(d, da, db, (accumulate_first || kk > 0) ? 1 : 0);
      }
      wgmma_commit();
      fence_registers(d);
    };
    for (int u = cluster; u < units; u += clusters) {
      int pm, tn;
      tile_coords(u, pairs_m, tiles_n, pm, tn);
      const int tm = C * pm + static_cast<int>(rank);
      if constexpr (kPromote<E>) {
        // fp8: wgmma's e4m3 accumulation keeps fewer bits than fp32, so each K block (128
        // products) is summed on its own and added to the fp32 accumulators, as cuBLASLt does
        // without fast accumulation. (Two alternating partial sets, to overlap the adds with
        // the next block's wgmma, spilled at 128 columns and made ptxas serialize the wgmmas:
        // bench/notes/gemm.md.)
        float part[BN / 2];
        for (int kb = 0; kb < k_blocks; ++kb) {
          mbar_wait(&full[ring.stage], ring.phase);
          issue(part, ring.stage, false);
          wgmma_wait<0>();
          fence_registers(part);
          release(ring.stage);
#pragma unroll
          for (int i = 0; i < BN / 2; ++i) acc[i] = kb == 0 ? part[i] : acc[i] + part[i];
          ring.advance();
        }
      } else {
        int prev_stage = 0;
        for (int kb = 0; kb < k_blocks; ++kb) {
          mbar_wait(&full[ring.stage], ring.phase);
          issue(acc, ring.stage, kb > 0);
          // Keep one group in flight: the previous stage is free once its group has retired.
          if (kb > 0) {
            wgmma_wait<1>();
            release(prev_stage);
          }
          prev_stage = ring.stage;
          ring.advance();
        }
        wgmma_wait<0>();
        fence_registers(acc);
        release(prev_stage);
      }

      // Accumulator j*4 + {0,1} is row r, columns 8j + 2(lane%4) + {0,1}; j*4 + {2,3} is row r+8.
      const int row0 = tm * kTileM + consumer * 64 + warp * 16 + lane / 4;
      const int col0 = tn * BN + 2 * (lane % 4);
#pragma unroll
      for (int j = 0; j < BN / 8; ++j) {
        const int col = col0 + 8 * j;
        if (col >= n) continue;  // n is a multiple of 8 here, so col + 1 < n as well
#pragma unroll
        for (int half = 0; half < 2; ++half) {
          const int row = row0 + 8 * half;
          if (row < m)
            store_pair(c + static_cast<std::size_t>(row) * n + col, acc[4 * j + 2 * half] * scale,
                       acc[4 * j + 2 * half + 1] * scale);
        }
      }
    }
  }
  if constexpr (C == 2) cluster_sync();
}

template <Elem E, int BN, int C>
cudaError_t launch_tile(int m, int n, int k, const void* a, const void* b, void* c, const float* sa,
                        const float* sb, cudaStream_t stream) {
  using T = Tile<E, BN>;
  int device = 0;
  cudaError_t err = cudaGetDevice(&device);
  if (err != cudaSuccess) return err;
  const DeviceFacts& facts = device_facts(device);
  if (!facts.hopper || device >= kMaxDevices) return cudaErrorNoKernelImageForDevice;
  // Per device: the shared-memory opt-in, then how many clusters fit at once (GPCs hold
  // uneven SM counts, so 2-CTA clusters can number fewer than SMs / 2).
  static int max_clusters[kMaxDevices] = {};
  if (max_clusters[device] == 0) {
    err = cudaFuncSetAttribute(hopper_gemm_kernel<E, BN, C>, cudaFuncAttributeMaxDynamicSharedMemorySize,
                               T::kSmemBytes);
    if (err != cudaSuccess) return err;
    int found = facts.sms;
    if constexpr (C > 1) {
      cudaLaunchConfig_t probe = {};
      cudaLaunchAttribute attr = {};
      attr.id = cudaLaunchAttributeClusterDimension;
      attr.val.clusterDim.x = C;
      attr.val.clusterDim.y = attr.val.clusterDim.z = 1;
      probe.gridDim = dim3(facts.sms / C * C);
      probe.blockDim = dim3(kThreads);
      probe.dynamicSmemBytes = T::kSmemBytes;
      probe.attrs = &attr;
      probe.numAttrs = 1;
      err = cudaOccupancyMaxActiveClusters(&found, hopper_gemm_kernel<E, BN, C>, &probe);
      if (err != cudaSuccess) return err;
    }
    if (found < 1) return cudaErrorInvalidConfiguration;
    max_clusters[device] = found;
  }
  const MapElem me = E == Elem::e4m3 ? MapElem::u8 : MapElem::u16;
  CUtensorMap map_a, map_b;
  // A: k contiguous, m rows; box BK x 128.
  err = tensor_map(map_a, device, me, a, k, m, T::kBK, kTileM);
  if (err != cudaSuccess) return err;
  if constexpr (Traits<E>::kBKMajor)
    err = tensor_map(map_b, device, me, b, k, n, T::kBK, BN / C);  // B: n x k, box BK x BN/C (one per CTA)
  else
    err = tensor_map(map_b, device, me, b, n, k, 64, T::kBK);      // B: k x n, box 64 x BK
  if (err != cudaSuccess) return err;
  const int units = ((m + kTileM - 1) / kTileM + C - 1) / C * ((n + BN - 1) / BN);
  const int clusters = units < max_clusters[device] ? units : max_clusters[device];
  cudaLaunchConfig_t cfg = {};
  cudaLaunchAttribute attr = {};
  attr.id = cudaLaunchAttributeClusterDimension;
  attr.val.clusterDim.x = C;
  attr.val.clusterDim.y = attr.val.clusterDim.z = 1;
  cfg.gridDim = dim3(clusters * C);
  cfg.blockDim = dim3(kThreads);
  cfg.dynamicSmemBytes = T::kSmemBytes;
  cfg.stream = stream;
  cfg.attrs = &attr;
  cfg.numAttrs = C > 1 ? 1 : 0;
  err = cudaLaunchKernelEx(&cfg, hopper_gemm_kernel<E, BN, C>, map_a, map_b,
                           static_cast<typename Traits<E>::Out*>(c), m, n, k, sa, sb);
  if (err != cudaSuccess) return err;
  return cudaGetLastError();
}

template <Elem E, int C>
cudaError_t launch_elem(int tile_n, int m, int n, int k, const void* a, const void* b, void* c, const float* sa,
                        const float* sb, cudaStream_t stream) {
  // fp8 keeps a partial accumulator set besides the fp32 one: 256 columns would not fit.
  if constexpr (kPromote<E>) {
    switch (tile_n) {
      case 192: return launch_tile<E, 192, C>(m, n, k, a, b, c, sa, sb, stream);
      case 128: return launch_tile<E, 128, C>(m, n, k, a, b, c, sa, sb, stream);
      case 64: return launch_tile<E, 64, C>(m, n, k, a, b, c, sa, sb, stream);
    }
  } else {
    switch (tile_n) {
      case 256: return launch_tile<E, 256, C>(m, n, k, a, b, c, sa, sb, stream);
      case 192: return launch_tile<E, 192, C>(m, n, k, a, b, c, sa, sb, stream);
      case 128: return launch_tile<E, 128, C>(m, n, k, a, b, c, sa, sb, stream);
      case 64: return launch_tile<E, 64, C>(m, n, k, a, b, c, sa, sb, stream);
    }
  }
  return cudaErrorInvalidValue;
}

template <Elem E>
cudaError_t launch_cluster(int cluster, int tile_n, int m, int n, int k, const void* a, const void* b, void* c,
                           const float* sa, const float* sb, cudaStream_t stream) {
  return cluster == 2 ? launch_elem<E, 2>(tile_n, m, n, k, a, b, c, sa, sb, stream)
                      : launch_elem<E, 1>(tile_n, m, n, k, a, b, c, sa, sb, stream);
}

bool aligned16(const void* p) { return reinterpret_cast<std::uintptr_t>(p) % 16 == 0; }

}  // namespace

int stages(int tile_n) { return stages_for(tile_n); }

bool builds(Elem e, int tile_n) { return e != Elem::e4m3 || tile_n <= 192; }

bool eligible(Elem e, int m, int n, int k, const void* a, const void* b, const void* c) {
  if (m < 1 || n < 1 || k < 1) return false;
  // Row pitches the copy engine accepts (multiples of 16 bytes); n % 8 also keeps the
  // epilogue's paired stores inside each row.
  const bool pitches = e == Elem::e4m3 ? (k % 16 == 0 && n % 8 == 0) : (k % 8 == 0 && n % 8 == 0);
  return pitches && aligned16(a) && aligned16(b) && aligned16(c);
}

cudaError_t launch(Elem e, int tile_n, int cluster, int m, int n, int k, const void* a, const void* b, void* c,
                   const float* scale_a, const float* scale_b, cudaStream_t stream) {
  if (!eligible(e, m, n, k, a, b, c)) return cudaErrorInvalidValue;
  if (e == Elem::e4m3 && (scale_a == nullptr || scale_b == nullptr)) return cudaErrorInvalidValue;
  if (cluster != 1 && cluster != 2) return cudaErrorInvalidValue;
  switch (e) {
    case Elem::f16: return launch_cluster<Elem::f16>(cluster, tile_n, m, n, k, a, b, c, scale_a, scale_b, stream);
    case Elem::bf16: return launch_cluster<Elem::bf16>(cluster, tile_n, m, n, k, a, b, c, scale_a, scale_b, stream);
    case Elem::e4m3: return launch_cluster<Elem::e4m3>(cluster, tile_n, m, n, k, a, b, c, scale_a, scale_b, stream);
  }
  return cudaErrorInvalidValue;
}

}  // namespace assay::kernels::hopper
