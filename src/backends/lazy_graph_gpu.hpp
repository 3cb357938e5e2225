#pragma once
// assay-lazy: the workload as a graph of the lazy-tensor engine, run by its GPU executor
// (graph_gpu/gpu_executor.hpp): generated fused kernels, assay's GEMM and attention, cuBLAS(Lt)
// where assay has no kernel, replayed from a captured CUDA graph. The inputs are the case's
// device buffers (bound to the graph's input constants), the output is written in place.
#include "backends/backend.hpp"

namespace assay {

class LazyGpuBackend final : public Backend {
 public:
  std::string name() const override { return "assay-lazy"; }
  std::string description() const override {
    return "assay's lazy-tensor engine: the workload as a graph, run on its GPU executor (CUDA graph replay)";
  }
  Target target() const override { return Target::cuda; }
  bool supports(const std::string& workload, DType dtype) const override;
  std::string unavailable_reason() const override;
  std::unique_ptr<Instance> instantiate(const Problem& problem, const std::vector<HostTensor>& inputs) const override;
};

}  // namespace assay
