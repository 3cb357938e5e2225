// The GPU executor's fixed kernels (device_kernels.hpp).
#include <cuda_bf16.h>
#include <cuda_fp16.h>

#include "graph/random.hpp"
#include "graph_gpu/device_kernels.hpp"

namespace assay::graph::gpu {

namespace {

__device__ __forceinline__ void store_as(void* out, Elem t, std::int64_t i, float v) {
  switch (t) {
    case Elem::f32: static_cast<float*>(out)[i] = v; break;
    case Elem::f16: static_cast<__half*>(out)[i] = __float2half_rn(v); break;
    case Elem::bf16: static_cast<__nv_bfloat16*>(out)[i] = __float2bfloat16_rn(v); break;
    case Elem::i64: static_cast<long long*>(out)[i] = static_cast<long long>(truncf(v)); break;
    case Elem::boolean: static_cast<unsigned char*>(out)[i] = v != 0.0f; break;
  }
}

unsigned grid_for(std::int64_t n) {
  const std::int64_t b = (n + 255) / 256;
  return static_cast<unsigned>(b < 65535 * 8 ? b : 65535 * 8);
}

__global__ void fill_kernel(void* out, Elem t, std::int64_t n, float value) {
  for (std::int64_t i = blockIdx.x * static_cast<std::int64_t>(blockDim.x) + threadIdx.x; i < n;
       i += static_cast<std::int64_t>(gridDim.x) * blockDim.x)
    store_as(out, t, i, value);
}

__global__ void randn_kernel(void* out, Elem t, std::int64_t n, std::uint64_t seed) {
  for (std::int64_t i = blockIdx.x * static_cast<std::int64_t>(blockDim.x) + threadIdx.x; i < n;
       i += static_cast<std::int64_t>(gridDim.x) * blockDim.x)
    store_as(out, t, i, static_cast<float>(randn_value(seed, static_cast<std::uint64_t>(i))));
}

struct CopyShape {
  std::int64_t size[kMaxCopyRank];
  std::int64_t stride[kMaxCopyRank];
  int rank;
};

// One element (or one 16-byte vector of them) per iteration; Index is 32-bit when the element
// count allows, which makes the per-element div/mod several times cheaper.
template <class T, class Index>
__global__ void strided_copy_kernel(const T* __restrict__ in, T* __restrict__ out, Index n, CopyShape s) {
  for (Index i = blockIdx.x * static_cast<Index>(blockDim.x) + threadIdx.x; i < n; i += static_cast<Index>(gridDim.x) * blockDim.x) {
    Index rest = i;
    std::int64_t off = 0;
    for (int d = s.rank - 1; d > 0; --d) {
      const Index size = static_cast<Index>(s.size[d]);
      off += static_cast<std::int64_t>(rest % size) * s.stride[d];
      rest /= size;
    }
    off += static_cast<std::int64_t>(rest) * s.stride[0];
    out[i] = in[off];
  }
}

template <class T>
cudaError_t copy_as(const void* in, void* out, std::int64_t n, const CopyShape& c, cudaStream_t s) {
  if (n < (std::int64_t{1} << 31))
    strided_copy_kernel<T, unsigned><<<grid_for(n), 256, 0, s>>>(static_cast<const T*>(in), static_cast<T*>(out),
                                                                 static_cast<unsigned>(n), c);
  else
    strided_copy_kernel<T, std::int64_t><<<grid_for(n), 256, 0, s>>>(static_cast<const T*>(in), static_cast<T*>(out), n, c);
  return cudaGetLastError();
}

__device__ float block_reduce(float v, bool is_max) {
  __shared__ float part[32];
  for (int o = 16; o > 0; o >>= 1) {
    const float w = __shfl_xor_sync(0xffffffffu, v, o);
    v = is_max ? fmaxf(v, w) : v + w;
  }
  __syncthreads();
  if ((threadIdx.x & 31) == 0) part[threadIdx.x >> 5] = v;
  __syncthreads();
  const float ident = is_max ? -INFINITY : 0.0f;
  v = static_cast<int>(threadIdx.x & 31) < static_cast<int>((blockDim.x + 31) >> 5) ? part[threadIdx.x & 31] : ident;
  for (int o = 16; o > 0; o >>= 1) {
    const float w = __shfl_xor_sync(0xffffffffu, v, o);
    v = is_max ? fmaxf(v, w) : v + w;
  }
  return v;
}

__global__ void attention_softmax_kernel(const float* scores, void* probs, Elem t, std::int64_t L, std::int64_t S,
                                         float scale, bool causal) {
  const std::int64_t r = blockIdx.x;
  const std::int64_t q = r % L;
  const std::int64_t visible = causal ? (q + 1 < S ? q + 1 : S) : S;
  const float* row = scores + r * S;
  float m = -INFINITY;
  for (std::int64_t j = threadIdx.x; j < visible; j += blockDim.x) m = fmaxf(m, row[j] * scale);
  m = block_reduce(m, true);
  float z = 0.0f;
  for (std::int64_t j = threadIdx.x; j < visible; j += blockDim.x) z += expf(row[j] * scale - m);
  z = block_reduce(z, false);
  for (std::int64_t j = threadIdx.x; j < S; j += blockDim.x)
    store_as(probs, t, r * S + j, j < visible ? expf(row[j] * scale - m) / z : 0.0f);
}

}  // namespace

cudaError_t launch_fill(void* out, Elem t, std::int64_t n, double value, cudaStream_t s) {
  if (n == 0) return cudaSuccess;
  fill_kernel<<<grid_for(n), 256, 0, s>>>(out, t, n, static_cast<float>(value));
  return cudaGetLastError();
}

cudaError_t launch_randn(void* out, Elem t, std::int64_t n, std::uint64_t seed, cudaStream_t s) {
  if (n == 0) return cudaSuccess;
  randn_kernel<<<grid_for(n), 256, 0, s>>>(out, t, n, seed);
  return cudaGetLastError();
}

cudaError_t launch_strided_copy(const void* in, void* out, int elem_bytes, int rank, const std::int64_t* sizes,
                                const std::int64_t* strides, cudaStream_t s) {
  if (rank > kMaxCopyRank) return cudaErrorInvalidValue;
  // Drop size-1 dims and merge a dim into the next inner one where they are contiguous in the
  // source, so that a permuted copy loops over as few dims as it has.
  CopyShape c{};
  std::int64_t n = 1;
  for (int d = 0; d < rank; ++d) {
    n *= sizes[d];
    if (sizes[d] == 1) continue;
    if (c.rank > 0 && c.stride[c.rank - 1] == strides[d] * sizes[d]) {
      c.size[c.rank - 1] *= sizes[d];
      c.stride[c.rank - 1] = strides[d];
      continue;
    }
    c.size[c.rank] = sizes[d];
    c.stride[c.rank] = strides[d];
    ++c.rank;
  }
  if (n == 0) return cudaSuccess;
  if (c.rank == 0) {
    c.rank = 1;
    c.size[0] = 1;
    c.stride[0] = 1;
  }
  // 16-byte vectors when the innermost dim is contiguous and everything stays aligned.
  const int vec = 16 / elem_bytes;
  bool vectorise = c.stride[c.rank - 1] == 1 && c.size[c.rank - 1] % vec == 0 &&
                   reinterpret_cast<std::uintptr_t>(in) % 16 == 0 && reinterpret_cast<std::uintptr_t>(out) % 16 == 0;
  for (int d = 0; d + 1 < c.rank && vectorise; ++d) vectorise = c.stride[d] % vec == 0;
  if (vectorise) {
    c.size[c.rank - 1] /= vec;
    for (int d = 0; d + 1 < c.rank; ++d) c.stride[d] /= vec;
    return copy_as<uint4>(in, out, n / vec, c, s);
  }
  switch (elem_bytes) {
    case 1: return copy_as<std::uint8_t>(in, out, n, c, s);
    case 2: return copy_as<std::uint16_t>(in, out, n, c, s);
    case 4: return copy_as<std::uint32_t>(in, out, n, c, s);
    case 8: return copy_as<std::uint64_t>(in, out, n, c, s);
    default: return cudaErrorInvalidValue;
  }
}

cudaError_t launch_attention_softmax(const float* scores, void* probs, Elem t, std::int64_t rows, std::int64_t L,
                                     std::int64_t S, float scale, bool causal, cudaStream_t s) {
  if (rows == 0 || S == 0) return cudaSuccess;
  int block = 32;
  while (block < 256 && block < S) block *= 2;
  attention_softmax_kernel<<<static_cast<unsigned>(rows), block, 0, s>>>(scores, probs, t, L, S, scale, causal);
  return cudaGetLastError();
}

}  // namespace assay::graph::gpu
