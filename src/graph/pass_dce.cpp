// Dead-code elimination: a backward sweep marks what the outputs read, a forward copy keeps it.
#include "graph/passes.hpp"

namespace assay::graph {

NodeId append_remapped(Graph& g, Node n, const std::vector<NodeId>& map) {
  for (int j = 0; j < n.n_inputs; ++j) n.inputs[static_cast<std::size_t>(j)] = map[n.inputs[static_cast<std::size_t>(j)]];
  return g.add(n);
}

Program eliminate_dead_code(const Program& p) {
  const std::size_t n = p.graph.size();
  std::vector<char> live(n, 0);
  for (NodeId o : p.outputs) live[o] = 1;
  for (std::size_t i = n; i-- > 0;) {
    if (!live[i]) continue;
    const Node& node = p.graph.node(static_cast<NodeId>(i));
    for (int j = 0; j < node.n_inputs; ++j) live[node.inputs[static_cast<std::size_t>(j)]] = 1;
  }
  Program out{p.graph.empty_like(), {}};
  std::vector<NodeId> map(n, kNoNode);
  for (std::size_t i = 0; i < n; ++i)
    if (live[i]) map[i] = append_remapped(out.graph, p.graph.node(static_cast<NodeId>(i)), map);
  for (NodeId o : p.outputs) out.outputs.push_back(map[o]);
  return out;
}

}  // namespace assay::graph
