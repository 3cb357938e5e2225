// fp32 GEMM on the CUDA cores: FFMA only (no TF32), so results track an fp64 reference to
// about sqrt(k) * 2^-24 relative. The reference point for "what the tensor cores buy".
//
// C[m,n] = A[m,k] * B[k,n], row-major.
//
//   block tile   128 x 128 x 8 (BM x BN x BK); 256 threads as 16 x 16
//   thread tile  8 x 8 = two 4-row groups 64 apart x two 4-column groups 64 apart, so a warp's
//                shared-memory reads are float4 broadcasts without bank conflicts
//   shared       2 buffers x (A^T 8x(128+4) + B 8x128) fp32 = 16.5 KiB
//   pipeline     the next k-tile is loaded from global memory into registers before the
//                current one's FFMAs and stored to the other buffer after them: one barrier
//                per k-tile, global latency hidden behind 8 x 64 FFMA per thread
//   occupancy    __launch_bounds__(256, 2): at most 128 registers, 2 blocks per SM
//
// Why these numbers:
// - 8x8 outputs per thread need 16 shared loads (4 float4) per 64 FFMA per k step: the
//   smallest thread tile whose shared-memory traffic stays under the FFMA rate.
// - A is stored transposed (k-major) so a thread's 8 rows are two float4 loads; the +4 pad
//   makes the transposing stores (two k rows per warp) hit 32 different banks.
// - Vector (float4) global loads and C stores when k % 4 == 0, n % 4 == 0 and A, B, C are
//   16-byte aligned, decided per launch but inside the one kernel; otherwise element loads with
//   bounds checks. Outside the matrix everything is zero, so edge tiles need no other care.
#include "kernels/gemm/gemm_detail.hpp"

#include <cstddef>
#include <cstdint>

namespace assay::kernels::detail {

namespace {

constexpr int kBM = 128;
constexpr int kBN = 128;
constexpr int kBK = 8;
constexpr int kThreads = 256;
constexpr int kThreadsN = 16;  // threads along n; 16 along m
constexpr int kGroup = 4;      // a thread's rows (and columns) come in two groups of 4, 64 apart
constexpr int kGroupStride = 64;
constexpr int kThreadTile = 2 * kGroup;  // 8 rows x 8 columns per thread
constexpr int kAPad = 4;
constexpr const char* kVectorName = "simt_ffma_128x128x8_t8x8_vec4";
constexpr const char* kScalarName = "simt_ffma_128x128x8_t8x8_scalar";

static_assert(kBM * kBK == kThreads * 4 && kBK * kBN == kThreads * 4, "one float4 per thread");
static_assert(kThreads / kThreadsN * kGroup * 2 == kBM && kThreadsN * kGroup * 2 == kBN,
              "thread tiles cover the block tile");

// Four consecutive elements of row r from column c, zero outside rows x cols.
__device__ __forceinline__ float4 load4_checked(const float* base, int rows, int cols, int r,
                                                int c, bool vec4) {
  if (r >= rows) return make_float4(0.f, 0.f, 0.f, 0.f);
  const float* row = base + static_cast<size_t>(r) * cols;
  // vec4 implies cols % 4 == 0 and c % 4 == 0: the four are all inside or all outside.
  if (vec4) {
    return c < cols ? *reinterpret_cast<const float4*>(row + c) : make_float4(0.f, 0.f, 0.f, 0.f);
  }
  return make_float4(c < cols ? row[c] : 0.f, c + 1 < cols ? row[c + 1] : 0.f,
                     c + 2 < cols ? row[c + 2] : 0.f, c + 3 < cols ? row[c + 3] : 0.f);
}

__global__ void __launch_bounds__(kThreads, 2)
    simt_gemm_f32_kernel(int m, int n, int k, const float* __restrict__ a,
                         const float* __restrict__ b, float* __restrict__ c, bool vec4) {
  __shared__ __align__(16) float as[2][kBK][kBM + kAPad];
  __shared__ __align__(16) float bs[2][kBK][kBN];

  const int tid = threadIdx.x;
  // blockIdx.x (fastest) walks n so that co-resident blocks share A rows. A 1-D grid would
  // lift the grid.y limit on m but costs the registers for m0/n0 (spills), so it stays 2-D.
  const int m0 = blockIdx.y * kBM;
  const int n0 = blockIdx.x * kBN;
  const int k_tiles = (k - 1) / kBK + 1;

  // Global-to-shared copy: A row tid/2, k columns 4*(tid%2)..+3; B k row tid/32, columns
  // 4*(tid%32)..+3.
  const int a_row = tid / 2;
  const int a_col = (tid % 2) * 4;
  const int b_row = tid / 32;
  const int b_col = (tid % 32) * 4;

  const int tm = (tid / kThreadsN) * kGroup;
  const int tn = (tid % kThreadsN) * kGroup;

  auto store = [&](int buf, float4 ra, float4 rb) {
    as[buf][a_col + 0][a_row] = ra.x;
    as[buf][a_col + 1][a_row] = ra.y;
    as[buf][a_col + 2][a_row] = ra.z;
    as[buf][a_col + 3][a_row] = ra.w;
    *reinterpret_cast<float4*>(&bs[buf][b_row][b_col]) = rb;
  };

  store(0, load4_checked(a, m, k, m0 + a_row, a_col, vec4),
        load4_checked(b, k, n, b_row, n0 + b_col, vec4));
  __syncthreads();

  float acc[kThreadTile][kThreadTile] = {};
  for (int kt = 0; kt < k_tiles; ++kt) {
    const int buf = kt % 2;
    const bool has_next = kt + 1 < k_tiles;
    float4 next_a;
    float4 next_b;
    if (has_next) {
      const int k0 = (kt + 1) * kBK;
      next_a = load4_checked(a, m, k, m0 + a_row, k0 + a_col, vec4);
      next_b = load4_checked(b, k, n, k0 + b_row, n0 + b_col, vec4);
    }

#pragma unroll
    for (int kk = 0; kk < kBK; ++kk) {
      const float4 a_lo = *reinterpret_cast<const float4*>(&as[buf][kk][tm]);
      const float4 a_hi = *reinterpret_cast<const float4*>(&as[buf][kk][tm + kGroupStride]);
      const float4 b_lo = *reinterpret_cast<const float4*>(&bs[buf][kk][tn]);
      const float4 b_hi = *reinterpret_cast<const float4*>(&bs[buf][kk][tn + kGroupStride]);
      const float av[kThreadTile] = {a_lo.x, a_lo.y, a_lo.z, a_lo.w, a_hi.x, a_hi.y, a_hi.z, a_hi.w};
      const float bv[kThreadTile] = {b_lo.x, b_lo.y, b_lo.z, b_lo.w, b_hi.x, b_hi.y, b_hi.z, b_hi.w};
#pragma unroll
      for (int i = 0; i < kThreadTile; ++i)
#pragma unroll
        for (int j = 0; j < kThreadTile; ++j) acc[i][j] = fmaf(av[i], bv[j], acc[i][j]);
    }

    // The other buffer was last read in iteration kt-1, which every thread finished before
    // the barrier that ended it.
    if (has_next) store(buf ^ 1, next_a, next_b);
    __syncthreads();
  }

#pragma unroll
  for (int i = 0; i < kThreadTile; ++i) {
    const int row = m0 + tm + (i / kGroup) * kGroupStride + i % kGroup;
    if (row >= m) continue;
    float* out = c + static_cast<size_t>(row) * n;
#pragma unroll
    for (int h = 0; h < 2; ++h) {
      const int col = n0 + tn + h * kGroupStride;
      const float* v = &acc[i][h * kGroup];
      if (vec4) {
        if (col < n) *reinterpret_cast<float4*>(out + col) = make_float4(v[0], v[1], v[2], v[3]);
      } else {
#pragma unroll
        for (int j = 0; j < kGroup; ++j)
          if (col + j < n) out[col + j] = v[j];
      }
    }
  }
}

bool vector_path(int n, int k, const void* a, const void* b, const void* c) {
  auto aligned16 = [](const void* p) { return reinterpret_cast<uintptr_t>(p) % 16 == 0; };
  return k % 4 == 0 && n % 4 == 0 && aligned16(a) && aligned16(b) && aligned16(c);
}

}  // namespace

cudaError_t launch_simt_gemm_f32(int m, int n, int k, const float* a, const float* b, float* c,
                                 cudaStream_t stream) {
  // grid.y <= 65535 bounds m to 8,388,480 rows; past that the launch error is returned.
  const dim3 grid((n - 1) / kBN + 1, (m - 1) / kBM + 1);
  simt_gemm_f32_kernel<<<grid, kThreads, 0, stream>>>(m, n, k, a, b, c,
                                                       vector_path(n, k, a, b, c));
  return cudaGetLastError();
}

const char* simt_gemm_f32_config_name(int n, int k, const void* a, const void* b, const void* c) {
  return vector_path(n, k, a, b, c) ? kVectorName : kScalarName;
}

}  // namespace assay::kernels::detail
