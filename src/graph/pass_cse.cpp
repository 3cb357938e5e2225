// Common-subexpression elimination by hash-consing: a node's key is its op, attributes,
// (already merged) inputs, shape, dtype, device and, for constants, its values. Two randn of
// the same seed and shape are one tensor (their values are a function of both); different
// seeds are different tensors.
#include <cstring>
#include <unordered_map>

#include <algorithm>

#include "graph/passes.hpp"

namespace assay::graph {

namespace {

struct Hasher {
  std::uint64_t h = 1469598103934665603ull;
  template <class T>
  void add(const T& v) {  // FNV-1a over the value's bytes; callers pass padding-free scalars
    unsigned char b[sizeof(T)];
    std::memcpy(b, &v, sizeof(T));
    for (unsigned char c : b) h = (h ^ c) * 1099511628211ull;
  }
};

std::uint64_t node_hash(const Node& n) {
  Hasher h;
  h.add(static_cast<int>(n.op));
  h.add(static_cast<int>(n.dtype));
  h.add(n.device);
  for (int j = 0; j < n.n_inputs; ++j) h.add(n.inputs[static_cast<std::size_t>(j)]);
  for (int d = 0; d < n.shape.rank; ++d) h.add(n.shape[d]);
  for (auto x : n.attrs.ints) h.add(x);
  h.add(n.attrs.dims);
  h.add(n.attrs.value);
  h.add(n.attrs.seed);
  h.add(n.attrs.flags);
  h.add(static_cast<int>(n.attrs.to));
  if (n.data)
    for (float x : *n.data) h.add(x);
  return h.h;
}

bool same_computation(const Node& a, const Node& b) {
  if (a.op != b.op || a.dtype != b.dtype || a.device != b.device || a.n_inputs != b.n_inputs || !(a.shape == b.shape) ||
      !(a.attrs == b.attrs) || a.inputs != b.inputs)
    return false;
  if (a.data != b.data && (!a.data || !b.data || *a.data != *b.data)) return false;
  return true;
}

}  // namespace

Program eliminate_common_subexpressions(const Program& p, const std::vector<const void*>& distinct) {
  Program out{p.graph.empty_like(), {}};
  std::vector<NodeId> map(p.graph.size(), kNoNode);
  std::unordered_map<std::uint64_t, std::vector<NodeId>> seen;
  for (std::size_t i = 0; i < p.graph.size(); ++i) {
    Node n = p.graph.node(static_cast<NodeId>(i));
    for (int j = 0; j < n.n_inputs; ++j) n.inputs[static_cast<std::size_t>(j)] = map[n.inputs[static_cast<std::size_t>(j)]];
    auto& bucket = seen[node_hash(n)];
    NodeId found = kNoNode;
    // A distinct (caller-bound) constant neither merges nor is merged into: its values are bound
    // at run time, so an equal literal recorded after it must keep its own node too.
    const bool keep = n.data && std::find(distinct.begin(), distinct.end(), n.data.get()) != distinct.end();
    for (NodeId c : bucket)
      if (!keep && same_computation(out.graph.node(c), n)) found = c;
    if (found == kNoNode) {
      found = out.graph.add(n);
      if (!keep) bucket.push_back(found);
    }
    map[i] = found;
  }
  for (NodeId o : p.outputs) out.outputs.push_back(map[o]);
  return out;
}

}  // namespace assay::graph
