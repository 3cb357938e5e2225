// Row softmax for the reference attention backend: one block per query row, three passes
// over the row (max, sum of exponentials, write), fp32 throughout, output rounded once.
// Rows are short (s <= a few thousand) and read from L2, so simplicity wins over fusion.
#include <cuda_bf16.h>
#include <cuda_fp16.h>

#include <cfloat>

#include "kernels/attention/softmax.hpp"

namespace assay::kernels {

namespace {

constexpr int kThreads = 256;

template <class T> __device__ T from_float(float x);
template <> __device__ float from_float<float>(float x) { return x; }
template <> __device__ __half from_float<__half>(float x) { return __float2half_rn(x); }
template <> __device__ __nv_bfloat16 from_float<__nv_bfloat16>(float x) { return __float2bfloat16_rn(x); }

template <bool kMax>
__device__ float block_reduce(float v) {
  __shared__ float partial[kThreads / 32];
  for (int o = 16; o > 0; o >>= 1) {
    const float other = __shfl_xor_sync(0xffffffffu, v, o);
    v = kMax ? fmaxf(v, other) : v + other;
  }
  const int warp = threadIdx.x / 32, lane = threadIdx.x % 32;
  if (lane == 0) partial[warp] = v;
  __syncthreads();
  v = partial[0];
  for (int w = 1; w < kThreads / 32; ++w) v = kMax ? fmaxf(v, partial[w]) : v + partial[w];
  __syncthreads();  // partial[] is reused by the next reduction
  return v;
}

template <class T>
__global__ void __launch_bounds__(kThreads) softmax_kernel(const float* __restrict__ scores, T* __restrict__ probs,
                                                           int s, float scale, bool causal) {
  const long long row = blockIdx.x;
  const int i = static_cast<int>(row % s);
  const int visible = causal ? i + 1 : s;
  const float* x = scores + row * s;
  T* y = probs + row * s;
  float mx = -FLT_MAX;
  for (int j = threadIdx.x; j < visible; j += kThreads) mx = fmaxf(mx, x[j] * scale);
  mx = block_reduce<true>(mx);
  float sum = 0;
  for (int j = threadIdx.x; j < visible; j += kThreads) sum += __expf(x[j] * scale - mx);
  sum = block_reduce<false>(sum);
  const float inv = 1.0f / sum;
  for (int j = threadIdx.x; j < s; j += kThreads)
    y[j] = from_float<T>(j < visible ? __expf(x[j] * scale - mx) * inv : 0.0f);
}

}  // namespace

cudaError_t launch_scaled_masked_softmax(const float* scores, void* probs, DType out, long long rows, int s,
                                         float scale, bool causal, cudaStream_t stream) {
  if (rows <= 0 || s <= 0) return cudaErrorInvalidValue;
  const dim3 grid(static_cast<unsigned>(rows));
  switch (out) {
    case DType::f32:
      softmax_kernel<float><<<grid, kThreads, 0, stream>>>(scores, static_cast<float*>(probs), s, scale, causal);
      break;
    case DType::f16:
      softmax_kernel<__half><<<grid, kThreads, 0, stream>>>(scores, static_cast<__half*>(probs), s, scale, causal);
      break;
    case DType::bf16:
      softmax_kernel<__nv_bfloat16>
          <<<grid, kThreads, 0, stream>>>(scores, static_cast<__nv_bfloat16*>(probs), s, scale, causal);
      break;
  }
  return cudaGetLastError();
}

}  // namespace assay::kernels
