#pragma once
// Fusion grouping: maximal chains of elementwise/broadcast ops, optionally ending in one
// reduction, each to become one generated kernel (the codegen is later work). A group's
// signature is the kernel's text form, free of node ids and sites, and its hash is the kernel
// cache key: the same chain on the same shapes and dtypes, in any graph, hashes the same.
#include <cstdint>
#include <string>
#include <vector>

#include "graph/graph.hpp"

namespace assay::graph {

struct FusionGroup {
  std::vector<NodeId> nodes;   // in order; the last one is the group's only output
  std::vector<NodeId> inputs;  // values from outside the group, in first-use order
  std::string signature;       // "(in0: f32[4,8], in1: f32[8]) -> f32[4] { t0 = add(in0, in1); ... }"
  std::uint64_t hash = 0;      // FNV-1a of the signature
  NodeId output() const { return nodes.back(); }
  std::string kernel_name() const;  // "fused_<hash as 16 hex digits>"
};

struct FusionPlan {
  std::vector<FusionGroup> groups;
  std::vector<int> group_of;  // per node: its group's index, or -1
};

// True for the ops a generated kernel can hold: elementwise, expand, and the reductions.
bool fusible(OpKind k);
FusionPlan plan_fusion(const Program& p);

}  // namespace assay::graph
