#pragma once
// The graph: nodes in SSA form, appended in recording order, so a node's inputs always have
// smaller ids and the id order is a topological order. A node is fixed-size (inputs, shape
// and attributes inline); only constants hold heap data, shared between graph copies.
#include <array>
#include <cstdint>
#include <deque>
#include <memory>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

#include "graph/op.hpp"
#include "graph/types.hpp"

namespace assay::graph {

inline constexpr int kMaxInputs = 4;

// Every op's attributes in one fixed layout; which fields an op uses is listed in docs/lazy.md.
struct Attrs {
  std::array<std::int64_t, kMaxRank> ints{};  // permutation; slice: dim, start, end, step
  std::uint32_t dims = 0;                     // reductions: bit d set = dim d reduced
  double value = 0;                           // full's value, layer_norm's eps, attention's scale
  std::uint64_t seed = 0;                     // randn
  std::uint8_t flags = 0;                     // kKeepDim, kCausal, kTanh, kHasBias...
  ElemType to = ElemType::f32;                // cast's target
  bool operator==(const Attrs&) const = default;
};
inline constexpr std::uint8_t kKeepDim = 1, kCausal = 2, kTanh = 4, kHasWeight = 8, kHasBias = 16;
// linear's epilogue activation (set by the epilogue pass): relu, or gelu (kTanh: its tanh form)
inline constexpr std::uint8_t kRelu = 32, kGelu = 64;

struct Node {
  OpKind op{};
  std::uint8_t n_inputs = 0;
  ElemType dtype = ElemType::f32;
  std::uint16_t device = 0;  // index into Graph::devices()
  std::array<NodeId, kMaxInputs> inputs{kNoNode, kNoNode, kNoNode, kNoNode};
  Shape shape;
  Attrs attrs;
  Site site;
  std::shared_ptr<const std::vector<float>> data;  // constant: the values, already rounded to dtype
};

class Graph {
 public:
  Graph();
  NodeId add(const Node& n);
  const Node& node(NodeId id) const { return nodes_[id]; }
  Node& node(NodeId id) { return nodes_[id]; }
  std::size_t size() const { return nodes_.size(); }
  const std::vector<Node>& nodes() const { return nodes_; }
  void reserve(std::size_t n) { nodes_.reserve(n); }

  // The index of a device name ("cpu", "remote_accelerator:0"), added when new.
  std::uint16_t device_index(std::string_view name);
  const std::string& device_name(std::uint16_t index) const { return (*strings_)[devices_[index]]; }
  // A recording site given as text by a front end; the text lives as long as any copy of the graph.
  Site site(std::string_view text);
  // An empty graph that shares this one's interned texts and device table (what passes build).
  Graph empty_like() const;

 private:
  std::vector<Node> nodes_;
  std::shared_ptr<std::deque<std::string>> strings_;  // deque: stable addresses for Site::file
  // The recording sites interned so far, by text: a front end records one line many times.
  std::shared_ptr<std::unordered_map<std::string_view, const char*>> sites_;
  std::vector<std::size_t> devices_;                  // indices into strings_
};

// How many nodes of kind k the graph holds (pass records, tests).
std::size_t count_op(const Graph& g, OpKind k);

// A graph with the nodes a caller wants: what passes take and return.
struct Program {
  Graph graph;
  std::vector<NodeId> outputs;
};

}  // namespace assay::graph
