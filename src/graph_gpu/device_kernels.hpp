#pragma once
// The GPU executor's fixed kernels (the generated ones come from graph/codegen_cuda): factories,
// the strided copy that materialises a view, and the masked softmax of the composite attention.
#include <cuda_runtime.h>

#include <cstdint>

namespace assay::graph::gpu {

// graph::ElemType's values (this header is compiled by nvcc, which does not take graph/types.hpp's
// C++20): 0 f32, 1 f16, 2 bf16, 3 i64, 4 bool.
enum class Elem : std::uint8_t { f32, f16, bf16, i64, boolean };
inline constexpr int kMaxCopyRank = 8;

// zeros/ones/full (`value`) and randn (`seed`: the counter-based values of graph/random.hpp).
cudaError_t launch_fill(void* out, Elem t, std::int64_t n, double value, cudaStream_t s);
cudaError_t launch_randn(void* out, Elem t, std::int64_t n, std::uint64_t seed, cudaStream_t s);

// out[i] (contiguous, row-major over `shape`) = in[sum idx_d * strides_d], elements of
// `elem_bytes` (1, 2, 4 or 8).
cudaError_t launch_strided_copy(const void* in, void* out, int elem_bytes, int rank, const std::int64_t* sizes,
                                const std::int64_t* strides, cudaStream_t s);

// P[r, j] = softmax_j(scale * S[r, j]) over keys j of row r (query r % L), keys j > query masked
// when causal (0 where masked); S fp32 [rows, S], P in `t` (f32, f16, bf16).
cudaError_t launch_attention_softmax(const float* scores, void* probs, Elem t, std::int64_t rows, std::int64_t L,
                                     std::int64_t S, float scale, bool causal, cudaStream_t s);

}  // namespace assay::graph::gpu
