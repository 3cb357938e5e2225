#pragma once
// The epilogue of the Hopper GEMM: a consumer warp group's 64 rows of a finished tile, scaled,
// packed to 16 bits and stored, straight from the registers or through a shared-memory staging
// box and TMA stores. The structs refer to the kernel's locals, as lambdas capturing them by
// reference would: the accumulators stay the kernel's own array.
#include <cuda_bf16.h>
#include <cuda_fp16.h>

#include <cstddef>
#include <cstdint>
#include <type_traits>

#include "kernels/gemm/hopper/hopper_ptx.cuh"
#include "kernels/gemm/hopper/schedule.cuh"

namespace assay::kernels::hopper {

namespace {

template <typename Out>
__device__ __forceinline__ std::uint32_t pack2(float lo, float hi) {
  if constexpr (std::is_same_v<Out, __half>) {
    const __half2 h = __floats2half2_rn(lo, hi);
    return *reinterpret_cast<const std::uint32_t*>(&h);
  } else {
    const __nv_bfloat162 h = __floats2bfloat162_rn(lo, hi);
    return *reinterpret_cast<const std::uint32_t*>(&h);
  }
}

// One step of a 4 x 4 transpose across the 4 lanes of a quad: with the lane `mask` apart,
// trade the words whose index differs from ours in that bit (w[a] <-> w[b], b = a | mask).
__device__ __forceinline__ void quad_swap(std::uint32_t& lo, std::uint32_t& hi, bool upper, int mask) {
  const std::uint32_t got = __shfl_xor_sync(0xffffffffu, upper ? lo : hi, mask);
  if (upper) lo = got;
  else hi = got;
}

// Word i of lane q (q = lane % 4) holds columns 8i + 2q, +1 of a row; afterwards word i of
// lane q holds columns 8q + 2i, +1: each lane owns 8 consecutive columns, one 16-byte store.
__device__ __forceinline__ void quad_transpose(std::uint32_t (&w)[4], int lane) {
  const bool odd = lane & 1, high = lane & 2;
  quad_swap(w[0], w[1], odd, 1);
  quad_swap(w[2], w[3], odd, 1);
  quad_swap(w[0], w[2], high, 2);
  quad_swap(w[1], w[3], high, 2);
}

// Accumulator 4j + {0,1} is row r, columns 8j + 2(lane%4) + {0,1}; 4j + {2,3} is row r+8.
// Packs row r + 8 * half of the 32 columns from 32 * g, and trades words within the quad so
// that the lane holds columns 32g + 8(lane%4) .. +7: 16 contiguous bytes. Every loop around
// a call is unrolled, so the accumulator indices are compile-time constants.
template <typename Out, int R>
__device__ __forceinline__ void row_chunk(const float (&acc)[R], int g, int half, float scale, int lane,
                                          std::uint32_t (&w)[4]) {
#pragma unroll
  for (int i = 0; i < 4; ++i) {
    const int a = 4 * (4 * g + i) + 2 * half;
    w[i] = pack2<Out>(acc[a] * scale, acc[a + 1] * scale);
  }
  quad_transpose(w, lane);
}

// Each lane packs 16 contiguous bytes of a row (row_chunk); a warp's store then covers 8 rows x
// 64 bytes in whole sectors (paired 4-byte stores used half of each sector and 4x the store
// instructions: docs/kernels/hopper-gemm.md, v2). A `chunk(g, half, w)` callable gives the 16
// bytes of the lane's row chunk (row_chunk's contract): FromAcc takes them from `acc`; the
// 16-bit consumers also from the tile packed to 16 bits ahead (consumer_f16.cuh).
template <Elem E, int BN>
struct FromAcc {
  float (&acc)[BN / 2];
  const float& scale;
  const int& lane;
  __device__ void operator()(int g, int half, std::uint32_t (&w)[4]) const {
    row_chunk<typename Traits<E>::Out>(acc, g, half, scale, lane, w);
  }
};

// Plain 16-byte stores from the registers of the 32-column groups [G0, G1) of a tile.
template <Elem E, int BM, int BN>
struct StoreGroups {
  const int& m;
  const int& n;
  typename Traits<E>::Out* __restrict__ const& c;
  const int& consumer;
  const int& warp;
  const int& lane;
  template <typename G0, typename G1, typename Chunk>
  __device__ void operator()(int tm, int tn, G0 g0, G1 g1, Chunk&& chunk) const {
    const int row0 = tm * BM + consumer * 64 + warp * 16 + lane / 4;
#pragma unroll
    for (int g = decltype(g0)::value; g < decltype(g1)::value; ++g) {
      const int col = tn * BN + 32 * g + 8 * (lane % 4);
#pragma unroll
      for (int half = 0; half < 2; ++half) {
        std::uint32_t w[4];
        chunk(g, half, w);
        const int row = row0 + 8 * half;
        // n is a multiple of 8: a lane's 8 columns are all inside the row or all past it.
        if (row < m && col < n)
          *reinterpret_cast<uint4*>(c + static_cast<std::size_t>(row) * n + col) = make_uint4(w[0], w[1], w[2], w[3]);
      }
    }
  }
};

// The epilogue of one tile, its 16 bytes per lane and row chunk given by `chunk`.
template <Elem E, int BM, int BN>
struct StoreTile {
  using T = Tile<E, BM, BN>;
  const StoreGroups<E, BM, BN>& store_groups;
  const int& m;
  const int& n;
  typename Traits<E>::Out* __restrict__ const& c;
  const int& consumer;
  const int& warp;
  const int& lane;
  float (&acc)[BN / 2];
  const float& scale;
  unsigned char* const& out_stage;
  int& out_buffer;  // which of this consumer's staging boxes the next store uses
  const int& tid;
  const CUtensorMap& map_c;
  template <typename Chunk>
  __device__ void operator()(int tm, int tn, bool last, Chunk&& chunk) const {
    if (last || BN % kOutCols != 0) {
      // This CTA's last tile: no next tile follows for the stores to overlap with, and plain
      // 16-byte stores from the registers finish sooner than a trip through shared memory
      // and the copy engine (1024^3 and 2048^3, one tile per CTA: docs/kernels/hopper-gemm.md, v3;
      // the 256-wide f16/bf16 tile overlaps half of them with its last K blocks instead, see
      // consumer_f16.cuh). Also every tile of a width that is no multiple of the 64-column
      // store box (176, 208).
      store_groups(tm, tn, std::integral_constant<int, 0>{}, std::integral_constant<int, BN / 32>{}, chunk);
      if constexpr (BN % 32 == 16) {
        // The last 16 columns (176, 208 wide): each lane's two columns of each 8-column group,
        // 4-byte stores (n is a multiple of 8, so a pair is inside the row or past it).
        const int row0 = tm * BM + consumer * 64 + warp * 16 + lane / 4;
#pragma unroll
        for (int j = BN / 8 - 2; j < BN / 8; ++j) {
          const int col = tn * BN + 8 * j + 2 * (lane % 4);
#pragma unroll
          for (int half = 0; half < 2; ++half) {
            const int row = row0 + 8 * half;
            const int a = 4 * j + 2 * half;
            if (row < m && col < n)
              *reinterpret_cast<std::uint32_t*>(c + static_cast<std::size_t>(row) * n + col) =
                  pack2<typename Traits<E>::Out>(acc[a] * scale, acc[a + 1] * scale);
          }
        }
      }
      return;
    }
    if constexpr (BN % kOutCols == 0) {
      // Other tiles go through shared memory to TMA stores of 64-column boxes, so the
      // consumers only write shared memory and go on to the next tile while the copy engine
      // writes global memory (rows and columns past m, n are clipped). Chunk c of row r goes
      // to position c ^ (r % 8) of the staging box: the 128-byte swizzle of the tensor map.
#pragma unroll
      for (int p = 0; p < BN / kOutCols; ++p) {
        const int x = tn * BN + p * kOutCols;
        if (x >= n) break;  // the same for the whole warp group
        unsigned char* box = out_stage + (consumer * T::kOutBuffers + out_buffer) * kOutBoxBytes;
        if (tid == 0) bulk_wait_read<T::kOutBuffers - 1>();  // the store that used `box` has read it
        named_barrier(1 + consumer, 128);
#pragma unroll
        for (int gg = 0; gg < kOutCols / 32; ++gg) {
#pragma unroll
          for (int half = 0; half < 2; ++half) {
            std::uint32_t w[4];
            chunk(2 * p + gg, half, w);
            const int row = warp * 16 + lane / 4 + 8 * half;
            const int chunk = gg * 4 + lane % 4;
            st_shared_v4(box + row * 128 + ((chunk ^ (row & 7)) * 16), w[0], w[1], w[2], w[3]);
          }
        }
        fence_proxy_async_smem();
        named_barrier(1 + consumer, 128);
        if (tid == 0) {
          tma_store_2d(&map_c, box, x, tm * BM + consumer * 64);
          bulk_commit();
        }
        out_buffer = (out_buffer + 1) % T::kOutBuffers;
      }
    }
  }
};

}  // namespace

}  // namespace assay::kernels::hopper
