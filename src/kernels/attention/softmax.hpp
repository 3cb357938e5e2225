#pragma once
#include <cuda_runtime.h>

#include "core/dtype.hpp"

namespace assay::kernels {

// P[r, j] = softmax_j(scale * S[r, j]) over the visible keys of row r, 0 for masked ones.
// S is fp32 [rows, s] (rows = b*h*s query rows, row r is query r % s); with `causal`, keys
// j > r % s are masked. P is written in `out` (f32, f16 or bf16).
cudaError_t launch_scaled_masked_softmax(const float* scores, void* probs, DType out, long long rows, int s,
                                         float scale, bool causal, cudaStream_t stream);

}  // namespace assay::kernels
