// assay's Hopper GEMM: see hopper_gemm.hpp for the contract, docs/kernels/hopper-gemm.md for the
// versions and their measurements. Compiled for sm_90a only (src/kernels/gemm/hopper.cmake).
// One translation unit in parts: schedule.cuh (warp groups, shared-memory layout,
// tile order), producer.cuh (barrier set-up, TMA loads), consumer.cuh (wgmma issue, stage
// release), consumer_f16.cuh and consumer_fp8.cuh (the consumer loops), epilogue.cuh (stores);
// here the kernel that puts them together, and its launch. The parts refer to the kernel's
// locals (as lambdas capturing by reference would): the accumulators and the ring stay the
// kernel's own. Kept as values owned by structs instead, they compiled differently (other
// unrolling, duplicated TMA loads, fp8 spills of up to 1 KB).
#include "kernels/gemm/hopper/hopper_gemm.hpp"

#include <atomic>
#include <climits>
#include <cstdint>
#include <type_traits>

#include "kernels/gemm/hopper/consumer.cuh"
#include "kernels/gemm/hopper/consumer_f16.cuh"
#include "kernels/gemm/hopper/consumer_fp8.cuh"
#include "kernels/gemm/hopper/epilogue.cuh"
#include "kernels/gemm/hopper/hopper_ptx.cuh"
#include "kernels/gemm/hopper/producer.cuh"
#include "kernels/gemm/hopper/schedule.cuh"
#include "kernels/gemm/hopper/split_k.cuh"
#include "kernels/gemm/hopper/tensor_maps.hpp"

namespace assay::kernels::hopper {

namespace {

// C = 1: each CTA loads its own tiles. C = 2 (clusters of 2 CTAs): CTA rank r takes tile row
// 2p + r of pair row p and the pair's common tile column; each CTA loads half of the common B
// tile for both (multicast), halving B's L2-to-SM traffic.
// K = Cut::split (16-bit, C = 1): `splits` CTAs share each tile's K blocks, in lines along rows or
// columns (`split_by_row`); Cut::stream: the grid's CTAs share all of them evenly (split_k.cuh,
// k_segments.hpp). Both reduce through `split_slots` and `split_counters`; the other instances
// (Cut::none) ignore the four arguments.
template <Elem E, int BM, int BN, int C, Cut K>
__global__ void __launch_bounds__(Groups<BM, BN>::kThreads, 1)
    hopper_gemm_kernel(const __grid_constant__ CUtensorMap map_a, const __grid_constant__ CUtensorMap map_b,
                       const __grid_constant__ CUtensorMap map_c, typename Traits<E>::Out* __restrict__ c, int m,
                       int n, int k,
                       const float* __restrict__ scale_a, const float* __restrict__ scale_b,
                       float* __restrict__ split_slots, unsigned* __restrict__ split_counters, int splits,
                       bool split_by_row) {
  using T = Tile<E, BM, BN>;
  constexpr int kStages = T::kStages;
  // fp8's alternating consumers use named barriers 3 and 4, the staging boxes 1 + consumer.
  static_assert(BM == 128 || E != Elem::e4m3, "fp8 tiles have 128 rows");
  static_assert(K == Cut::none || K == Cut::split || K == Cut::stream, "one walk per instance");
  constexpr bool SplitK = K != Cut::none;  // split-K or stream-K
  static_assert(!SplitK || (C == 1 && !kPromote<E>), "split-K is built for 16-bit single CTAs");
  extern __shared__ unsigned char smem_raw[];
  unsigned char* smem = reinterpret_cast<unsigned char*>(
      (reinterpret_cast<std::uintptr_t>(smem_raw) + 1023) & ~std::uintptr_t(1023));
  unsigned char* out_stage = smem + T::kRingBytes;
  std::uint64_t* full = reinterpret_cast<std::uint64_t*>(out_stage + T::kOutBytes);
  std::uint64_t* empty = full + kStages;

  // Broadcast from lane 0 so the compiler knows the warp group is uniform across the warp:
  // everything derived from it (the wgmma descriptors above all) then lives in uniform
  // registers instead of being recomputed per lane before every wgmma
  // (docs/kernels/hopper-gemm.md, v4).
  const int warp_group = __shfl_sync(0xffffffffu, static_cast<int>(threadIdx.x / 128), 0);
  const int tid = threadIdx.x % 128;
  const unsigned rank = C > 1 ? cluster_rank() : 0u;
  const int tiles_m = (m + BM - 1) / BM;
  const int pairs_m = (tiles_m + C - 1) / C;
  const int tiles_n = (n + BN - 1) / BN;
  const int units = pairs_m * tiles_n;
  const int cluster = blockIdx.x / C, clusters = gridDim.x / C;
  const int k_blocks = (k + T::kBK - 1) / T::kBK;
  // One wave of 16-bit single CTAs (1024^3, 2048^3): every tile is in flight at once, so the order
  // only decides which CTAs are neighbours in launch order (which share L2 lookups: scattering the
  // order cost 41% more). Row-major neighbours share A rows instead of B columns: 0.2-1.1% faster at
  // 2048^3 in cold mode, though the L2 counts 20% more lookups (docs/kernels/hopper-gemm.md, v10).
  // fp8 and pairs keep one code path.
  bool row_major = false;
  if constexpr (C == 1 && !kPromote<E>) row_major = units <= clusters;
  const UnitTile<C> unit_tile{row_major, tiles_n, pairs_m, rank};
  const LoadStage<E, BM, BN, C> load_stage{smem, full, map_a, map_b, rank};

  int primed = 0;
  // Split-K's and stream-K's walks are segments of tiles (split_k.cuh); their producer primes nothing
  // in the set-up.
  if (threadIdx.x == 0)
    producer_setup(map_a, map_b, map_c, full, empty, cluster, SplitK ? 0 : units, k_blocks, unit_tile, load_stage,
                   primed);
  if constexpr (C > 1) cluster_sync();
  else __syncthreads();

  // One consumer (64-row tiles) has the registers of 256 threads to itself: nothing to move.
  constexpr bool kMoveRegs = Groups<BM, BN>::kConsumers > 1;
  if (warp_group == 0) {
    if constexpr (kMoveRegs) regs_release<Groups<BM, BN>::kProducerRegs>();
    if constexpr (SplitK) {
      if (tid == 0)
        produce_split(empty, SegmentsOf<K>(cluster, clusters, tiles_m, tiles_n, splits, k_blocks, split_by_row),
                      load_stage);
    } else {
      if (tid == 0) produce(empty, primed, cluster, clusters, units, k_blocks, unit_tile, load_stage);
    }
    __syncwarp();  // the producer lane rejoins its warp
  } else {
    if constexpr (kMoveRegs) regs_claim<Groups<BM, BN>::kConsumerRegs>();
    const int consumer = warp_group - 1;  // rows [64 * consumer, 64 * consumer + 64) of the tile
    float scale = 1.0f;
    if constexpr (E == Elem::e4m3) scale = *scale_a * *scale_b;
    float acc[BN / 2];
    int out_buffer = 0;  // which of this consumer's staging boxes the next store uses
#pragma unroll
    for (int i = 0; i < BN / 2; ++i) acc[i] = 0.0f;
    Ring<kStages> ring;
    const int warp = tid / 32, lane = tid % 32;
    const std::uint32_t full_at = smem_u32(full), empty_at = smem_u32(empty);
    const Release<C> release{tid, empty_at, empty, rank};
    // The descriptors of stage 0; another stage or K step only moves the start address, the
    // descriptor's low field (16-byte units; shared addresses stay under 2^18, so no carry).
    // K-major A: 8-row groups 1024 bytes apart. K-major B (fp8) likewise; MN-major B: 64-column
    // atoms BK rows of 128 bytes apart.
    const std::uint64_t desc_a0 = smem_desc(smem + consumer * 64 * kRowBytes, 16, 1024);
    const std::uint64_t desc_b0 = Traits<E>::kBKMajor ? smem_desc(smem + T::kABytes, 16, 1024)
                                                      : smem_desc(smem + T::kABytes, T::kBK * kRowBytes, 1024);
    const IssueBlocks<E, BM, BN> issue_blocks{desc_a0, desc_b0};
    const Issue<E, BM, BN> issue{issue_blocks};
    const FromAcc<E, BN> from_acc{acc, scale, lane};
    const StoreGroups<E, BM, BN> store_groups{m, n, c, consumer, warp, lane};
    const StoreTile<E, BM, BN> store_tile{store_groups, m,     n,         c,          consumer, warp, lane,
                                          acc,          scale, out_stage, out_buffer, tid,      map_c};
    if constexpr (SplitK) {
      consume_split(ring, acc, full_at, SegmentsOf<K>(cluster, clusters, tiles_m, tiles_n, splits, k_blocks, split_by_row),
                    consumer * 128 + tid, issue, release, store_tile, from_acc, split_slots, split_counters);
    } else if constexpr (kPromote<E> && kOrdered<BN>) {
      // fp8 (consumer_fp8.cuh), one partial set per warp group, waited for every block, with the
      // two consumers' wgmmas strictly alternating (named barriers 3 and 4): while one warp group
      // adds its finished set, the other's block runs on the tensor cores. No wgmma of this warp
      // group is in flight during its adds, which in the halves stalled the adds at dispatch (the
      // structure of cuBLASLt's fp8 kernel; docs/kernels/hopper-gemm.md, v5c). Without the
      // alternation the two warp groups ran in step and idled the tensor cores together (v4's
      // single set: 0.68x). This loop stays in the kernel: moved into a function (a lambda too),
      // NVVM joined the accumulators' registers across tiles otherwise, and ptxas then emitted
      // one more instruction per accumulator register (88-104 for 176-208 wide).
      float part[BN / 2];
      const int my_turn = 3 + consumer, their_turn = 4 - consumer;
      if (consumer == 1) named_barrier_arrive(their_turn, 256);  // the first consumer goes first
      const WaitFull<kStages> wait_full{ring, full_at};
      const OrderedBlock<E, BM, BN, C> block{wait_full, ring, my_turn, their_turn, issue, part, release, acc};
      bool pending = false;
      int prev_tm = 0, prev_tn = 0;
      auto store_prev = [&]() {
        if (pending) store_tile(prev_tm, prev_tn, false, from_acc);
      };
      auto nothing = []() {};
      for (int u = cluster; u < units; u += clusters) {
        block(std::true_type{}, store_prev);
        for (int kb = 1; kb < k_blocks; ++kb) block(std::false_type{}, nothing);
        pending = true;
        unit_tile(u, prev_tm, prev_tn);
      }
      // The second consumer arrived once more than the first waited: take that arrival.
      if (consumer == 0) named_barrier(my_turn, 256);
      if (pending) store_tile(prev_tm, prev_tn, true, from_acc);
    } else if constexpr (kPromote<E>) {
      consume_fp8_quads(ring, acc, full_at, consumer, cluster, clusters, units, k_blocks, unit_tile, issue, release,
                        store_tile, from_acc);
    } else {
      consume_16bit(ring, acc, full_at, lane, scale, cluster, clusters, units, k_blocks, unit_tile, issue_blocks,
                    issue, release, store_groups, store_tile, from_acc);
    }
    if (tid == 0) bulk_wait_all();  // the last stores have landed before the CTA exits
  }
}

// Opts the instance into its shared memory and counts how many clusters of C of its CTAs fit on the
// device at once (`sms` for single CTAs; GPCs hold uneven SM counts, so clusters can number fewer
// than SMs / C).
template <Elem E, int BM, int BN, int C, Cut K>
cudaError_t opt_in_and_count_clusters(int sms, int& found) {
  using T = Tile<E, BM, BN>;
  cudaError_t err =
      cudaFuncSetAttribute(hopper_gemm_kernel<E, BM, BN, C, K>, cudaFuncAttributeMaxDynamicSharedMemorySize, T::kSmemBytes);
  if (err != cudaSuccess) return err;
  found = sms;
  if constexpr (C > 1) {
    cudaLaunchConfig_t probe = {};
    cudaLaunchAttribute attr = {};
    attr.id = cudaLaunchAttributeClusterDimension;
    attr.val.clusterDim.x = C;
    attr.val.clusterDim.y = attr.val.clusterDim.z = 1;
    probe.gridDim = dim3(sms / C * C);
    probe.blockDim = dim3(Groups<BM, BN>::kThreads);
    probe.dynamicSmemBytes = T::kSmemBytes;
    probe.attrs = &attr;
    probe.numAttrs = 1;
    err = cudaOccupancyMaxActiveClusters(&found, hopper_gemm_kernel<E, BM, BN, C, K>, &probe);
  }
  return err;
}

template <Elem E, int BM, int BN, int C, Cut K = Cut::none>
cudaError_t launch_tile(int m, int n, int k, const void* a, const void* b, void* c, const float* sa,
                        const float* sb, cudaStream_t stream, const Split& split = {}) {
  using T = Tile<E, BM, BN>;
  int device = 0;
  cudaError_t err = cudaGetDevice(&device);
  if (err != cudaSuccess) return err;
  const DeviceFacts& facts = device_facts(device);
  if (!facts.hopper || device >= kMaxDevices) return cudaErrorNoKernelImageForDevice;
  // Per device: the shared-memory opt-in, then how many clusters fit at once (GPCs hold
  // uneven SM counts, so 2-CTA clusters can number fewer than SMs / 2). Threads launching at
  // once may both find 0 and both set it up: the set-up is idempotent, the slot atomic.
  static std::atomic<int> max_clusters[kMaxDevices];
  int cluster_limit = max_clusters[device].load(std::memory_order_acquire);
  if (cluster_limit == 0) {
    int found = 0;
    err = opt_in_and_count_clusters<E, BM, BN, C, K>(facts.sms, found);
    if (err != cudaSuccess) return err;
    if (found < 1) return cudaErrorInvalidConfiguration;
    cluster_limit = found;
    max_clusters[device].store(found, std::memory_order_release);
  }
  const MapElem me = E == Elem::e4m3 ? MapElem::u8 : MapElem::u16;
  CUtensorMap map_a, map_b;
  // A: k contiguous, m rows; box BK x BM.
  err = tensor_map(map_a, device, me, a, k, m, T::kBK, BM);
  if (err != cudaSuccess) return err;
  if constexpr (Traits<E>::kBKMajor)
    err = tensor_map(map_b, device, me, b, k, n, T::kBK, BN / C);  // B: n x k, box BK x BN/C (one per CTA)
  else
    err = tensor_map(map_b, device, me, b, n, k, 64, T::kBK);      // B: k x n, box 64 x BK
  if (err != cudaSuccess) return err;
  CUtensorMap map_c;  // C: m x n (bf16/f16), one consumer's 64 rows x 64 columns per store
  err = tensor_map(map_c, device, MapElem::u16, c, n, m, kOutCols, 64);
  if (err != cudaSuccess) return err;
  const int units = ((m + BM - 1) / BM + C - 1) / C * ((n + BN - 1) / BN) * (K == Cut::split ? split.splits : 1);
  // Stream-K: the grid is the plan's, not a number of waves (no CTA waits for another).
  const int clusters = K == Cut::stream ? split.stream_ctas : persistent_clusters(units, cluster_limit);
  cudaLaunchConfig_t cfg = {};
  cudaLaunchAttribute attr = {};
  attr.id = cudaLaunchAttributeClusterDimension;
  attr.val.clusterDim.x = C;
  attr.val.clusterDim.y = attr.val.clusterDim.z = 1;
  cfg.gridDim = dim3(clusters * C);
  cfg.blockDim = dim3(Groups<BM, BN>::kThreads);
  cfg.dynamicSmemBytes = T::kSmemBytes;
  cfg.stream = stream;
  cfg.attrs = &attr;
  cfg.numAttrs = C > 1 ? 1 : 0;
  err = cudaLaunchKernelEx(&cfg, hopper_gemm_kernel<E, BM, BN, C, K>, map_a, map_b, map_c,
                           static_cast<typename Traits<E>::Out*>(c), m, n, k, sa, sb, split.slots, split.counters,
                           K == Cut::stream ? 0 : split.splits, split.by_row);
  if (err != cudaSuccess) return err;
  return cudaGetLastError();
}

template <Elem E, int C>
cudaError_t launch_elem(int tile_m, int tile_n, int m, int n, int k, const void* a, const void* b, void* c, const float* sa,
                        const float* sb, cudaStream_t stream) {
  // fp8 keeps a partial set beside the fp32 accumulators (256 columns would not fit) and alone
  // has 208 and 176 (f16/bf16 load B in 64-column boxes).
  if constexpr (kPromote<E>) {
    if (tile_m != 128) return cudaErrorInvalidValue;
    switch (tile_n) {
      case 208: return launch_tile<E, 128, 208, C>(m, n, k, a, b, c, sa, sb, stream);
      case 192: return launch_tile<E, 128, 192, C>(m, n, k, a, b, c, sa, sb, stream);
      case 176: return launch_tile<E, 128, 176, C>(m, n, k, a, b, c, sa, sb, stream);
      case 128: return launch_tile<E, 128, 128, C>(m, n, k, a, b, c, sa, sb, stream);
      case 64: return launch_tile<E, 128, 64, C>(m, n, k, a, b, c, sa, sb, stream);
    }
  } else {
    if (tile_m == 192) return tile_n == 192 ? launch_tile<E, 192, 192, C>(m, n, k, a, b, c, sa, sb, stream)
                                            : cudaErrorInvalidValue;
    if (tile_m == 64)
      return tile_n == 128 ? launch_tile<E, 64, 128, C>(m, n, k, a, b, c, sa, sb, stream) : cudaErrorInvalidValue;
    if (tile_m != 128) return cudaErrorInvalidValue;
    switch (tile_n) {
      case 256: return launch_tile<E, 128, 256, C>(m, n, k, a, b, c, sa, sb, stream);
      case 192: return launch_tile<E, 128, 192, C>(m, n, k, a, b, c, sa, sb, stream);
      case 128: return launch_tile<E, 128, 128, C>(m, n, k, a, b, c, sa, sb, stream);
      case 64: return launch_tile<E, 128, 64, C>(m, n, k, a, b, c, sa, sb, stream);
    }
  }
  return cudaErrorInvalidValue;
}

// The split-K and stream-K instances (one of each per tile, K): 16-bit, single CTAs, 128 x 128 and
// 128 x 64 (the tiles that run with few CTAs: docs/kernels/hopper-gemm.md, "Split-K") and 64 x 128
// (where it pads less than 128 x 64: m <= 64 over a deep K above all, where a 128-row tile loads and
// reduces rows that do not exist).
template <Elem E, Cut K>
cudaError_t launch_cut(int tile_m, int tile_n, int m, int n, int k, const void* a, const void* b, void* c,
                       cudaStream_t stream, const Split& split) {
  if constexpr (kPromote<E>) {
    return cudaErrorInvalidValue;
  } else {
    if (tile_m == 64 && tile_n == 128)
      return launch_tile<E, 64, 128, 1, K>(m, n, k, a, b, c, nullptr, nullptr, stream, split);
    if (tile_m != 128) return cudaErrorInvalidValue;
    if (tile_n == 128) return launch_tile<E, 128, 128, 1, K>(m, n, k, a, b, c, nullptr, nullptr, stream, split);
    if (tile_n == 64) return launch_tile<E, 128, 64, 1, K>(m, n, k, a, b, c, nullptr, nullptr, stream, split);
    return cudaErrorInvalidValue;
  }
}

template <Elem E>
cudaError_t launch_split(int tile_m, int tile_n, int m, int n, int k, const void* a, const void* b, void* c,
                         cudaStream_t stream, const Split& split) {
  return split.stream_ctas > 0 ? launch_cut<E, Cut::stream>(tile_m, tile_n, m, n, k, a, b, c, stream, split)
                               : launch_cut<E, Cut::split>(tile_m, tile_n, m, n, k, a, b, c, stream, split);
}

// Clusters of four along M (16-bit, 128-row tiles 128, 192 or 256 wide): B multicast to four row
// tiles, for m 385-512 (docs/kernels/hopper-gemm.md, "Clusters of four").
template <Elem E>
cudaError_t launch_cluster(int cluster, int tile_m, int tile_n, int m, int n, int k, const void* a, const void* b, void* c,
                           const float* sa, const float* sb, cudaStream_t stream) {
  if (cluster == 4) {
    if constexpr (kPromote<E>) {
      return cudaErrorInvalidValue;
    } else {
      if (tile_m != 128) return cudaErrorInvalidValue;
      switch (tile_n) {
        case 256: return launch_tile<E, 128, 256, 4>(m, n, k, a, b, c, sa, sb, stream);
        case 192: return launch_tile<E, 128, 192, 4>(m, n, k, a, b, c, sa, sb, stream);
        case 128: return launch_tile<E, 128, 128, 4>(m, n, k, a, b, c, sa, sb, stream);
      }
      return cudaErrorInvalidValue;
    }
  }
  return cluster == 2 ? launch_elem<E, 2>(tile_m, tile_n, m, n, k, a, b, c, sa, sb, stream)
                      : launch_elem<E, 1>(tile_m, tile_n, m, n, k, a, b, c, sa, sb, stream);
}

bool aligned16(const void* p) { return reinterpret_cast<std::uintptr_t>(p) % 16 == 0; }

}  // namespace

int stages(int tile_m, int tile_n) { return stages_for(tile_m, tile_n); }


bool eligible(Elem e, int m, int n, int k, const void* a, const void* b, const void* c) {
  if (m < 1 || n < 1 || k < 1 || m > kMaxDim || n > kMaxDim || k > kMaxDim) return false;
  // Row pitches the copy engine accepts (multiples of 16 bytes); n % 8 also keeps the
  // epilogue's paired stores inside each row.
  const bool pitches = e == Elem::e4m3 ? (k % 16 == 0 && n % 8 == 0) : (k % 8 == 0 && n % 8 == 0);
  return pitches && aligned16(a) && aligned16(b) && aligned16(c);
}

bool builds_cluster4(Elem e, int tile_m, int tile_n) {
  return e != Elem::e4m3 && tile_m == 128 && (tile_n == 128 || tile_n == 192 || tile_n == 256);
}

int cluster4_ctas(int device) {
  // The f16 128 x 128 instance stands for the three widths: each holds one CTA per SM, so how many
  // clusters of four fit is the GPCs' SM counts (uneven on the H100/H200), not the tile's.
  static std::atomic<int> ctas[kMaxDevices];
  if (device < 0 || device >= kMaxDevices || !device_facts(device).hopper) return 0;
  int cached = ctas[device].load(std::memory_order_acquire);
  if (cached != 0) return cached;
  int found = 0;
  if (opt_in_and_count_clusters<Elem::f16, 128, 128, 4, Cut::none>(device_facts(device).sms, found) != cudaSuccess) {
    found = 0;
    cudaGetLastError();  // the refusal is answered here: no later launch reports it as its own
  }
  found = found > 0 ? 4 * found : -1;  // -1: asked, none (cached as such)
  ctas[device].store(found, std::memory_order_release);
  return found > 0 ? found : 0;
}

bool builds_split(Elem e, int tile_m, int tile_n) {
  return e != Elem::e4m3 && ((tile_m == 128 && (tile_n == 128 || tile_n == 64)) || (tile_m == 64 && tile_n == 128));
}

std::size_t split_workspace_bytes(int tile_m, int tile_n, int m, int n, int splits) {
  return split_counter_bytes(tile_m, tile_n, m, n) +
         static_cast<std::size_t>(tile_count(m, n, tile_m, tile_n)) * splits * tile_m * tile_n * sizeof(float);
}

std::size_t stream_workspace_bytes(int tile_m, int tile_n, int m, int n, int ctas) {
  return split_counter_bytes(tile_m, tile_n, m, n) + 2 * static_cast<std::size_t>(ctas) * tile_m * tile_n * sizeof(float);
}

std::size_t split_counter_bytes(int tile_m, int tile_n, int m, int n) {
  return (static_cast<std::size_t>(tile_count(m, n, tile_m, tile_n)) * sizeof(unsigned) + 255) / 256 * 256;
}

cudaError_t launch(Elem e, int tile_m, int tile_n, int cluster, int m, int n, int k, const void* a, const void* b, void* c,
                   const float* scale_a, const float* scale_b, cudaStream_t stream, const Split& split) {
  if (!eligible(e, m, n, k, a, b, c)) return cudaErrorInvalidValue;
  if (split.stream_ctas > 0 || split.splits > 1) {
    // The workspace holds the counters (zero between launches) and then the partial slots.
    if (cluster != 1 || !builds_split(e, tile_m, tile_n) || split.counters == nullptr || split.slots == nullptr)
      return cudaErrorInvalidValue;
    if (split.stream_ctas > 0) {
      // Whole groups of one CTA per tile row, each with at least one iteration, and c x iterations
      // in 64 bits (k_segments.hpp).
      const long long rows = tile_count(m, 1, tile_m, 1);
      const long long iterations = stream_k_iterations(n, k, tile_n);
      if (split.stream_ctas % rows != 0 || split.stream_ctas / rows > iterations ||
          iterations > (1LL << 62) / split.stream_ctas ||
          split.bytes < stream_workspace_bytes(tile_m, tile_n, m, n, split.stream_ctas))
        return cudaErrorInvalidValue;
    } else if (split.splits > (static_cast<long long>(k) + 63) / 64 ||
               tile_count(m, n, tile_m, tile_n) * split.splits > INT_MAX ||  // split-K walks in 32 bits
               split.bytes < split_workspace_bytes(tile_m, tile_n, m, n, split.splits)) {
      return cudaErrorInvalidValue;
    }
    return e == Elem::f16 ? launch_split<Elem::f16>(tile_m, tile_n, m, n, k, a, b, c, stream, split)
                          : launch_split<Elem::bf16>(tile_m, tile_n, m, n, k, a, b, c, stream, split);
  }
  if (e == Elem::e4m3 && (scale_a == nullptr || scale_b == nullptr)) return cudaErrorInvalidValue;
  if (cluster != 1 && cluster != 2 && !(cluster == 4 && builds_cluster4(e, tile_m, tile_n))) return cudaErrorInvalidValue;
  switch (e) {
    case Elem::f16: return launch_cluster<Elem::f16>(cluster, tile_m, tile_n, m, n, k, a, b, c, scale_a, scale_b, stream);
    case Elem::bf16: return launch_cluster<Elem::bf16>(cluster, tile_m, tile_n, m, n, k, a, b, c, scale_a, scale_b, stream);
    case Elem::e4m3: return launch_cluster<Elem::e4m3>(cluster, tile_m, tile_n, m, n, k, a, b, c, scale_a, scale_b, stream);
  }
  return cudaErrorInvalidValue;
}

}  // namespace assay::kernels::hopper
