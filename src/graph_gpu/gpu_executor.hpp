#pragma once
// The GPU executor (docs/lazy.md): runs a program's planned graph on one stream. Fusion groups
// become NVRTC-generated kernels (cached by structure), matmul runs on assay's GEMM (cuBLAS where
// assay has no kernel: f32, transposed or batched operands; cuBLASLt for linear's bias and
// activation epilogue), attention on assay's flash attention (a cuBLAS + softmax composite for
// the shapes it does not take); buffers follow the memory plan in one arena. A program seen again
// (same structure, shapes, dtypes) is replayed from a captured CUDA graph.
//
// Built only with CUDA (the assay_graph_gpu layer); the CPU reference executor is the one every
// build has.
#include <cuda_runtime.h>

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "graph/executor.hpp"

namespace assay::graph {

// What the executor did, counted over its lifetime: a test asserts from these that a program
// ran on the GPU, and which kernels ran it.
struct GpuStats {
  std::int64_t plans = 0, plan_hits = 0;          // programs prepared; found prepared again
  std::int64_t runs = 0;                           // enqueues
  std::int64_t captures = 0, graph_replays = 0;    // CUDA graphs captured; runs that replayed one
  std::int64_t kernels_compiled = 0, kernel_cache_hits = 0;
  std::int64_t generated_launches = 0, fixed_launches = 0;  // generated kernels; fills, copies, softmax
  std::int64_t assay_gemm = 0, assay_attention = 0, cublas = 0, cublaslt = 0;
  std::int64_t l2_prefetch_bytes = 0;  // issued by generated kernels for the step after them
  std::int64_t constant_uploads = 0;   // constants copied to the device (new or changed values)
  // (The launch and prefetch counts grow when the steps are run or captured; a CUDA-graph replay
  // repeats them uncounted.)
};

class GpuPlan;

class GpuExecutor final : public Executor {
 public:
  explicit GpuExecutor(bool use_cuda_graphs = true);
  ~GpuExecutor() override;
  std::string_view name() const override { return "gpu"; }
  // Prepares (or finds) the program, runs it once and downloads the outputs.
  std::vector<HostValue> run(const Graph& g, const std::vector<NodeId>& outputs) override;

  // The program after the passes, its steps, buffers and kernels. The executor keeps the 32 most
  // recently used plans: a reference stays valid until 32 other structures have been prepared. `external` lists constants,
  // by their data, whose values the caller holds on the device and passes to each enqueue (a
  // benchmark's rotated inputs); the others are uploaded here, and again when a later program of
  // the same structure brings other values.
  GpuPlan& prepare(const Program& p, const std::vector<const std::vector<float>*>& external = {});
  // One run on `stream`. inputs: device pointers for `external`, in order; outputs: where the
  // program's outputs are written (contiguous, row-major), or empty for the plan's own buffers.
  void enqueue(GpuPlan& plan, cudaStream_t stream, const std::vector<const void*>& inputs = {},
               const std::vector<void*>& outputs = {});
  // Output i of the last run into the plan's own buffers, on the host (synchronises `stream`).
  HostValue download(GpuPlan& plan, std::size_t output, cudaStream_t stream);
  // One line per step: the kernel or library call that makes each value.
  std::string describe(const GpuPlan& plan) const;
  GpuStats stats() const;

 private:
  struct Impl;
  std::unique_ptr<Impl> impl_;
};

}  // namespace assay::graph
