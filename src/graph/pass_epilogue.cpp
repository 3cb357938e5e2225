// GEMM epilogue fusion (passes.hpp): matmul + bias [+ relu | gelu_tanh] -> one linear node.
#include "graph/passes.hpp"

namespace assay::graph {

namespace {

struct Pattern {
  NodeId gemm = kNoNode;  // the matmul or linear
  NodeId bias = kNoNode;  // the added bias (matmul only; a linear keeps its own)
  std::uint8_t act = 0;   // kRelu, or kGelu | kTanh
};

// A bias that broadcasts along the last dim of `out`: every dim but the last is 1.
bool is_row_bias(const Node& b, const Node& out) {
  if (b.shape.rank < 1 || b.shape.rank > out.shape.rank || b.shape[b.shape.rank - 1] != out.shape[out.shape.rank - 1])
    return false;
  for (int d = 0; d + 1 < b.shape.rank; ++d)
    if (b.shape[d] != 1) return false;
  return b.dtype == out.dtype && b.device == out.device;
}

std::uint8_t epilogue_activation(const Node& n) {
  if (n.op == OpKind::relu) return kRelu;
  if (n.op == OpKind::gelu && (n.attrs.flags & kTanh)) return kGelu | kTanh;
  return 0;
}

}  // namespace

Program fuse_epilogues(const Program& p) {
  const Graph& g = p.graph;
  const std::size_t n = g.size();
  std::vector<int> readers(n, 0);
  std::vector<NodeId> reader(n, kNoNode);  // the last reader seen (the only one when readers == 1)
  for (NodeId i = 0; i < n; ++i) {
    const Node& x = g.node(i);
    for (int j = 0; j < x.n_inputs; ++j) {
      const NodeId in = x.inputs[static_cast<std::size_t>(j)];
      ++readers[in];
      reader[in] = i;
    }
  }
  for (NodeId o : p.outputs) readers[o] += 2;  // an output is never absorbed
  const auto sole = [&](NodeId v) { return readers[v] == 1 ? reader[v] : kNoNode; };

  std::vector<Pattern> ends(n);  // at the pattern's last node
  for (NodeId i = 0; i < n; ++i) {
    const Node& x = g.node(i);
    Pattern pat;
    NodeId last = kNoNode;
    if (x.op == OpKind::add) {
      for (int j = 0; j < 2 && pat.gemm == kNoNode; ++j) {
        const NodeId m = x.inputs[static_cast<std::size_t>(j)], b = x.inputs[static_cast<std::size_t>(1 - j)];
        const Node& mm = g.node(m);
        if (mm.op == OpKind::matmul && sole(m) == i && g.node(mm.inputs[1]).shape.rank == 2 && mm.shape == x.shape &&
            is_row_bias(g.node(b), x)) {
          pat.gemm = m;
          pat.bias = b;
          last = i;
        }
      }
    } else if (x.op == OpKind::linear && (x.attrs.flags & kHasBias) && !(x.attrs.flags & (kRelu | kGelu))) {
      pat.gemm = i;
      last = i;
    }
    if (pat.gemm == kNoNode) continue;
    if (const NodeId y = sole(last); y != kNoNode && (pat.act = epilogue_activation(g.node(y))) != 0) last = y;
    if (last == i && x.op == OpKind::linear) continue;  // a linear with bias and no activation: nothing to do
    ends[last] = pat;
  }

  Program out{g.empty_like(), {}};
  std::vector<NodeId> map(n, kNoNode);
  for (NodeId i = 0; i < n; ++i) {
    const Pattern& pat = ends[i];
    if (pat.gemm == kNoNode) {
      map[i] = append_remapped(out.graph, g.node(i), map);
      continue;
    }
    const Node& gemm = g.node(pat.gemm);
    Node lin = gemm;
    if (gemm.op == OpKind::matmul) {
      const Node& w = g.node(gemm.inputs[1]);
      Node perm = w;  // wᵀ as a view: linear takes [out, in]
      perm.op = OpKind::permute;
      perm.n_inputs = 1;
      perm.inputs = {map[gemm.inputs[1]], kNoNode, kNoNode, kNoNode};
      perm.shape = Shape{w.shape[1], w.shape[0]};
      perm.attrs = Attrs{};
      perm.attrs.ints[0] = 1;
      perm.site = gemm.site;
      perm.data = nullptr;
      NodeId bias = map[pat.bias];
      const Node& b = g.node(pat.bias);
      if (b.shape.rank != 1) {
        Node r = b;
        r.op = OpKind::reshape;
        r.n_inputs = 1;
        r.inputs = {bias, kNoNode, kNoNode, kNoNode};
        r.shape = Shape{b.shape[b.shape.rank - 1]};
        r.attrs = Attrs{};
        r.data = nullptr;
        bias = out.graph.add(r);
      }
      lin.op = OpKind::linear;
      lin.n_inputs = 3;
      lin.inputs = {map[gemm.inputs[0]], out.graph.add(perm), bias, kNoNode};
      lin.attrs = Attrs{};
      lin.attrs.flags = kHasBias;
    } else {
      for (int j = 0; j < lin.n_inputs; ++j) lin.inputs[static_cast<std::size_t>(j)] = map[gemm.inputs[static_cast<std::size_t>(j)]];
    }
    lin.attrs.flags |= pat.act;
    map[i] = out.graph.add(lin);
  }
  for (NodeId o : p.outputs) out.outputs.push_back(map[o]);
  return eliminate_dead_code(out);
}

}  // namespace assay::graph
