#pragma once
// assay-lazy: the workload recorded as a graph of assay's lazy-tensor engine (src/graph,
// docs/lazy.md), its inputs as constants. `assay-lazy` runs it on the engine's GPU executor
// (lazy_graph_gpu.hpp, CUDA builds); `assay-lazy-cpu` on its CPU reference executor, which
// checks the engine's ops and their composition against every workload's fp64 oracle.
#include "backends/backend.hpp"
#include "graph/graph.hpp"

namespace assay {

// The workload's computation as the engine's ops, on the inputs as constants (node i is input i,
// in the problem's input_names() order). The one output is the program's output.
graph::Program record_lazy_workload(const Problem& p, const std::vector<HostTensor>& inputs);
bool lazy_supports(const std::string& workload, DType dtype);

class LazyCpuBackend final : public Backend {
 public:
  std::string name() const override { return "assay-lazy-cpu"; }
  std::string description() const override {
    return "assay's lazy-tensor engine: the workload as a graph, run on its CPU reference executor";
  }
  Target target() const override { return Target::cpu; }
  bool supports(const std::string& workload, DType dtype) const override { return lazy_supports(workload, dtype); }
  std::unique_ptr<Instance> instantiate(const Problem& problem, const std::vector<HostTensor>& inputs) const override;
};

}  // namespace assay
