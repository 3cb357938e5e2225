#include "graph/pipeline.hpp"

#include "graph/dump.hpp"
#include "graph/passes.hpp"

namespace assay::graph {

namespace {

std::size_t count_activated(const Graph& g) {
  std::size_t c = 0;
  for (const Node& n : g.nodes()) c += n.op == OpKind::linear && (n.attrs.flags & (kRelu | kGelu));
  return c;
}

}  // namespace

PipelineResult run_pipeline(const Program& p, const std::vector<const void*>& distinct) {
  PipelineResult r;
  Program cur = p;
  const auto record = [&](std::string name, const Program& next, std::string change) {
    r.records.push_back({std::move(name), cur.graph.size(), next.graph.size(), std::move(change)});
    cur = next;
  };
  Program next = eliminate_dead_code(cur);
  record("dce", next, "removed " + std::to_string(cur.graph.size() - next.graph.size()) + " nodes");
  next = eliminate_common_subexpressions(cur, distinct);
  record("cse", next, "merged " + std::to_string(cur.graph.size() - next.graph.size()) + " nodes");
  const std::size_t constants = count_op(cur.graph, OpKind::constant);
  next = fold_constants(cur);
  record("fold", next, "folded " + std::to_string(count_op(next.graph, OpKind::constant) - constants) + " factories");
  next = fuse_epilogues(cur);
  record("epilogue", next,
         "made " + std::to_string(count_op(next.graph, OpKind::linear) - count_op(cur.graph, OpKind::linear)) +
             " matmul+bias into linear, " + std::to_string(count_activated(next.graph) - count_activated(cur.graph)) +
             " activations absorbed");
  r.program = cur;
  r.fusion = plan_fusion(cur);
  std::size_t fused = 0;
  for (const auto& g : r.fusion.groups) fused += g.nodes.size();
  r.records.push_back({"fusion", cur.graph.size(), cur.graph.size(),
                       std::to_string(r.fusion.groups.size()) + " groups over " + std::to_string(fused) + " nodes"});
  r.memory = plan_memory(cur, &r.fusion);
  r.records.push_back({"memory", cur.graph.size(), cur.graph.size(), dump_memory(r.memory).substr(8)});
  if (!r.records.back().change.empty() && r.records.back().change.back() == '\n') r.records.back().change.pop_back();
  return r;
}

}  // namespace assay::graph
