#pragma once
// assay-lazy: the workload recorded as a graph of assay's lazy-tensor engine (src/graph,
// docs/lazy.md), its inputs as constants, run by the engine's executor. Only the CPU reference
// executor exists (issue 31 item 3 is the GPU one), so this is a cpu backend: it checks the
// engine's ops and their composition against every workload's fp64 oracle.
#include "backends/backend.hpp"

namespace assay {

class LazyGraphBackend final : public Backend {
 public:
  std::string name() const override { return "assay-lazy"; }
  std::string description() const override {
    return "assay's lazy-tensor engine: the workload as a graph, run on its CPU reference executor";
  }
  Target target() const override { return Target::cpu; }
  bool supports(const std::string& workload, DType dtype) const override;
  std::unique_ptr<Instance> instantiate(const Problem& problem, const std::vector<HostTensor>& inputs) const override;
};

}  // namespace assay
