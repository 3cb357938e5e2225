// The CPU reference executor's driver: evaluates only what the outputs need, in id order (a
// topological order, the graph being SSA), and frees each value after its last use.
#include <string>

#include "graph/cpu_kernels.hpp"
#include "graph/error.hpp"
#include "graph/executor.hpp"

namespace assay::graph {

std::vector<HostValue> CpuExecutor::run(const Graph& g, const std::vector<NodeId>& outputs) {
  const std::size_t n = g.size();
  std::vector<char> needed(n, 0);
  std::vector<NodeId> last_use(n, 0);
  for (NodeId o : outputs) {
    if (o >= n) throw InternalError("cpu executor: output id " + std::to_string(o) + " is not in the graph");
    needed[o] = 1;
  }
  for (std::size_t i = n; i-- > 0;) {
    if (!needed[i]) continue;
    const Node& node = g.node(static_cast<NodeId>(i));
    for (int j = 0; j < node.n_inputs; ++j) {
      needed[node.inputs[static_cast<std::size_t>(j)]] = 1;
      last_use[node.inputs[static_cast<std::size_t>(j)]] = std::max<NodeId>(last_use[node.inputs[static_cast<std::size_t>(j)]], static_cast<NodeId>(i));
    }
  }
  std::vector<char> is_output(n, 0);
  for (NodeId o : outputs) is_output[o] = 1;

  std::vector<HostValue> values(n);
  cpu::Inputs in;
  for (std::size_t i = 0; i < n; ++i) {
    if (!needed[i]) continue;
    const Node& node = g.node(static_cast<NodeId>(i));
    in.clear();
    for (int j = 0; j < node.n_inputs; ++j) in.push_back(&values[node.inputs[static_cast<std::size_t>(j)]]);
    HostValue& v = values[i];
    v.shape = node.shape;
    v.dtype = node.dtype;
    switch (op_class(node.op)) {
      case OpClass::factory: v.values = cpu::factory(node); break;
      case OpClass::elementwise: v.values = cpu::elementwise(node, in); break;
      case OpClass::linalg: v.values = cpu::linalg(node, in); break;
      case OpClass::reduction: v.values = cpu::reduction(node, in); break;
      case OpClass::view: v.values = cpu::view(node, in); break;
    }
    if (node.dtype != ElemType::f32)
      for (float& x : v.values) x = round_to(node.dtype, x);
    for (int j = 0; j < node.n_inputs; ++j) {  // free what nothing later reads
      const NodeId p = node.inputs[static_cast<std::size_t>(j)];
      if (last_use[p] == i && !is_output[p]) values[p] = HostValue{};
    }
  }
  std::vector<HostValue> out;
  out.reserve(outputs.size());
  for (NodeId o : outputs) out.push_back(values[o]);
  return out;
}

HostValue materialize(LazyTensor t) {
  CpuExecutor ex;
  return ex.run(*t.graph, {t.id}).front();
}

}  // namespace assay::graph
