// Fusion grouping. A fusible node joins an input's group when that input is the group's tail,
// the tail has no other reader and the group has not taken its reduction; else it starts one. Groups are chains: a group reads only values
// made before its output, and the graph of groups stays acyclic.
#include <cstdio>

#include "graph/dump.hpp"
#include "graph/fusion.hpp"
#include "core/ids.hpp"

namespace assay::graph {

bool fusible(OpKind k) {
  const OpClass c = op_class(k);
  return c == OpClass::elementwise || c == OpClass::reduction || k == OpKind::expand;
}

std::string FusionGroup::kernel_name() const {
  char buf[32];
  std::snprintf(buf, sizeof buf, "fused_%016llx", static_cast<unsigned long long>(hash));
  return buf;
}

namespace {

std::string typed(const Node& n) { return std::string(elem_name(n.dtype)) + to_string(n.shape); }

// The kernel's text: operands named by position (node ids and sites stay out of the key).
void sign(FusionGroup& grp, const Graph& g) {
  std::string body;
  const auto local = [&](NodeId id) -> std::string {
    for (std::size_t i = 0; i < grp.nodes.size(); ++i)
      if (grp.nodes[i] == id) return std::string("t").append(std::to_string(i));
    for (std::size_t i = 0; i < grp.inputs.size(); ++i)
      if (grp.inputs[i] == id) return std::string("in").append(std::to_string(i));
    return "?";
  };
  for (std::size_t i = 0; i < grp.nodes.size(); ++i) {
    const Node& n = g.node(grp.nodes[i]);
    (((body += " t") += std::to_string(i)) += " = ") += std::string(op_name(n.op)) + attr_string(n) + "(";
    for (int j = 0; j < n.n_inputs; ++j) (body += (j ? ", " : "")) += local(n.inputs[static_cast<std::size_t>(j)]);
    body += "): " + typed(n) + ";";
  }
  std::string params;
  for (std::size_t i = 0; i < grp.inputs.size(); ++i)
    ((params += (i ? ", in" : "in")) += std::to_string(i)) += ": " + typed(g.node(grp.inputs[i]));
  grp.signature = "(" + params + ") -> " + typed(g.node(grp.output())) + " {" + body + " }";
  grp.hash = fnv1a64(grp.signature);
}

}  // namespace

FusionPlan plan_fusion(const Program& p) {
  const Graph& g = p.graph;
  FusionPlan plan;
  plan.group_of.assign(g.size(), -1);
  std::vector<int> readers(g.size(), 0);  // consumers (outputs count)
  for (const Node& n : g.nodes())
    for (int j = 0; j < n.n_inputs; ++j) ++readers[n.inputs[static_cast<std::size_t>(j)]];
  for (NodeId o : p.outputs) ++readers[o];
  std::vector<char> closed;  // per group: took its reduction
  for (NodeId i = 0; i < g.size(); ++i) {
    const Node& n = g.node(i);
    if (!fusible(n.op)) continue;
    int joined = -1;
    // A reduction joins only through its operand 0 (the values it reduces): a group's chain
    // always feeds its reduction's input 0, as the code generator needs.
    const int joinable = op_class(n.op) == OpClass::reduction ? 1 : n.n_inputs;
    for (int j = 0; j < joinable && joined < 0; ++j) {
      const NodeId in = n.inputs[static_cast<std::size_t>(j)];
      const int gi = plan.group_of[in];
      if (gi >= 0 && !closed[static_cast<std::size_t>(gi)] && plan.groups[static_cast<std::size_t>(gi)].output() == in &&
          readers[in] == 1)
        joined = gi;
    }
    if (joined < 0) {
      joined = static_cast<int>(plan.groups.size());
      plan.groups.emplace_back();
      closed.push_back(0);
    }
    plan.groups[static_cast<std::size_t>(joined)].nodes.push_back(i);
    plan.group_of[i] = joined;
    if (op_class(n.op) == OpClass::reduction) closed[static_cast<std::size_t>(joined)] = 1;
  }
  for (FusionGroup& grp : plan.groups) {
    for (NodeId m : grp.nodes) {
      const Node& n = g.node(m);
      for (int j = 0; j < n.n_inputs; ++j) {
        const NodeId in = n.inputs[static_cast<std::size_t>(j)];
        const bool inside = plan.group_of[in] >= 0 && &plan.groups[static_cast<std::size_t>(plan.group_of[in])] == &grp;
        bool listed = false;
        for (NodeId x : grp.inputs) listed = listed || x == in;
        if (!inside && !listed) grp.inputs.push_back(in);
      }
    }
    sign(grp, g);
  }
  return plan;
}

}  // namespace assay::graph
