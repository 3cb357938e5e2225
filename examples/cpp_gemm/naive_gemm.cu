// A naive CUDA GEMM (one thread per output element, fp32 accumulation) as a backend of assay's
// gemm workload: C[m,n] = A[m,k]·B[k,n], row-major, f16 or bf16 in and out. `./cpp_gemm` checks
// it against the fp64 oracle and times it against cuBLAS on the same inputs.
#include <assay/bench.hpp>

#include <cuda_bf16.h>
#include <cuda_fp16.h>
#include <cuda_runtime.h>

#include <stdexcept>

namespace {

using namespace assay::bench;

__device__ float to_float(__half x) { return __half2float(x); }
__device__ float to_float(__nv_bfloat16 x) { return __bfloat162float(x); }
template <class T>
__device__ T from_float(float x);
template <>
__device__ __half from_float<__half>(float x) { return __float2half_rn(x); }
template <>
__device__ __nv_bfloat16 from_float<__nv_bfloat16>(float x) { return __float2bfloat16_rn(x); }

template <class T>
__global__ void naive_gemm(int m, int n, int k, const T* a, const T* b, T* c) {
  const int row = blockIdx.y * blockDim.y + threadIdx.y;
  const int col = blockIdx.x * blockDim.x + threadIdx.x;
  if (row >= m || col >= n) return;
  float acc = 0.f;
  for (int p = 0; p < k; ++p) acc += to_float(a[row * static_cast<long>(k) + p]) * to_float(b[p * static_cast<long>(n) + col]);
  c[row * static_cast<long>(n) + col] = from_float<T>(acc);
}

template <class T>
void launch(const Call& c) {
  const int m = static_cast<int>(c["m"]), n = static_cast<int>(c["n"]), k = static_cast<int>(c["k"]);
  const dim3 block(16, 16), grid((n + 15) / 16, (m + 15) / 16);
  naive_gemm<T><<<grid, block, 0, static_cast<cudaStream_t>(c.stream)>>>(m, n, k, c.inputs[0].as<T>(),
                                                                          c.inputs[1].as<T>(), c.output.as<T>());
  if (const cudaError_t e = cudaGetLastError(); e != cudaSuccess) throw std::runtime_error(cudaGetErrorString(e));
}

void naive(const Call& c) { c.dtype == DType::f16 ? launch<__half>(c) : launch<__nv_bfloat16>(c); }

ASSAY_BENCH_KERNEL({.name = "naive-gemm", .workload = "gemm", .dtypes = {DType::f16, DType::bf16}, .launch = naive,
                    .device = Device::cuda, .description = "one thread per output element"});

// Square sizes and a ragged one; the check runs at a small shape against the fp64 oracle.
ASSAY_BENCH_BENCHMARK({.name = "naive-vs-cublas",
                       .workload = "gemm",
                       .backends = {"cublas", "naive-gemm"},
                       .baseline = "cublas",
                       .dtypes = {DType::f16, DType::bf16},
                       .axes = {{"m", {512, 1000, 2048}}, {"n", {"m"}}, {"k", {"m"}}},
                       .check_shape = {{"m", 200}, {"n", 136}, {"k", 72}}});

}  // namespace
