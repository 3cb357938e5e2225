#include "graph/graph.hpp"

#include "graph/error.hpp"

namespace assay::graph {

void fail(std::string_view op, const std::string& detail, const Site& site) {
  throw GraphError(std::string(op) + ": " + detail + " (recorded at " + to_string(site) + ")");
}

Graph::Graph()
    : strings_(std::make_shared<std::deque<std::string>>()),
      sites_(std::make_shared<std::unordered_map<std::string_view, const char*>>()) {
  device_index("cpu");
}

NodeId Graph::add(const Node& n) {
  nodes_.push_back(n);
  return static_cast<NodeId>(nodes_.size() - 1);
}

std::uint16_t Graph::device_index(std::string_view name) {
  // A handful of devices per graph: a linear scan is cheaper than a map.
  for (std::size_t i = 0; i < devices_.size(); ++i)
    if ((*strings_)[devices_[i]] == name) return static_cast<std::uint16_t>(i);
  // The index is 16 bits in a node: the 65537th name would wrap to device 0 ("cpu").
  if (devices_.size() > 0xffff) throw GraphError("more than 65536 device names in one graph");
  strings_->emplace_back(name);
  devices_.push_back(strings_->size() - 1);
  return static_cast<std::uint16_t>(devices_.size() - 1);
}

Site Graph::site(std::string_view text) {
  Site s;
  if (const auto it = sites_->find(text); it != sites_->end()) {
    s.file = it->second;
    return s;
  }
  strings_->emplace_back(text);
  s.file = strings_->back().c_str();
  sites_->emplace(strings_->back(), s.file);
  return s;
}

Graph Graph::empty_like() const {
  Graph g;
  g.strings_ = strings_;
  g.sites_ = sites_;
  g.devices_ = devices_;
  return g;
}

std::size_t count_op(const Graph& g, OpKind k) {
  std::size_t c = 0;
  for (const Node& n : g.nodes()) c += n.op == k;
  return c;
}

}  // namespace assay::graph
