#pragma once
// The executor interface: run the nodes a set of outputs needs and return their values on the
// host. The CPU reference executor implements it here; the GPU executor (issue 31 item 3) and a
// remote one (the graph serialised to another process, values sent back) implement the same
// call, so tests can run one graph on two executors and compare.
#include <memory>
#include <string_view>
#include <vector>

#include "graph/graph.hpp"
#include "graph/host_value.hpp"
#include "graph/tensor.hpp"

namespace assay::graph {

class Executor {
 public:
  virtual ~Executor() = default;
  virtual std::string_view name() const = 0;
  // One value per requested output, in order. Nodes no output needs are not evaluated.
  virtual std::vector<HostValue> run(const Graph& g, const std::vector<NodeId>& outputs) = 0;
};

// The reference: fp32 values (f16/bf16 rounded after every node with core's exact conversions),
// double accumulators in reductions and dot products, single-threaded and so deterministic.
class CpuExecutor final : public Executor {
 public:
  std::string_view name() const override { return "cpu-reference"; }
  std::vector<HostValue> run(const Graph& g, const std::vector<NodeId>& outputs) override;
};

// Runs t's graph up to t on the CPU reference executor.
HostValue materialize(LazyTensor t);

}  // namespace assay::graph
