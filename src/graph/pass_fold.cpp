// Constant folding of small factories: their values are computed once here (with the CPU
// reference's own factory kernel, so every executor sees the same bytes) and kept in the graph.
// Large factories stay symbolic: a GPU executor generates them in place, cheaper than a copy.
#include "graph/cpu_kernels.hpp"
#include "graph/passes.hpp"

namespace assay::graph {

Program fold_constants(const Program& p, std::int64_t max_elements) {
  Program out{p.graph, p.outputs};
  for (std::size_t i = 0; i < out.graph.size(); ++i) {
    Node& n = out.graph.node(static_cast<NodeId>(i));
    if (op_class(n.op) != OpClass::factory || n.op == OpKind::constant || n.shape.numel() > max_elements) continue;
    std::vector<float> v = cpu::factory(n);
    for (float& x : v) x = round_to(n.dtype, x);
    n.data = std::make_shared<const std::vector<float>>(std::move(v));
    n.op = OpKind::constant;
    n.attrs = Attrs{};
  }
  return out;
}

}  // namespace assay::graph
