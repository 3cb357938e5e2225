#pragma once
// The memory plan: one buffer per value that owns data (not views, which alias their base, and
// not values internal to a fusion group, which live in registers), reused greedily once its
// last reader has run. Peak bytes are reported with and without reuse.
#include <cstdint>
#include <vector>

#include "graph/fusion.hpp"
#include "graph/graph.hpp"

namespace assay::graph {

inline constexpr std::int64_t kBufferAlignment = 256;  // what cudaMalloc guarantees

struct Slot {
  int buffer = -1;          // -1: no arena storage (a fused-away value; a constant and its views)
  std::int64_t offset = 0;  // of its buffer in one arena
  std::int64_t bytes = 0;   // the value's size (a view: 0, it aliases)
  NodeId base = kNoNode;    // the node whose buffer holds the data (itself unless a view)
  NodeId first = 0, last = 0;  // the steps where its buffer is written and last read
};

struct MemoryPlan {
  std::vector<Slot> slots;                 // per node
  std::vector<std::int64_t> buffer_bytes;  // per buffer (aligned), laid out back to back
  std::int64_t naive_bytes = 0;            // every owning value in its own buffer
  std::int64_t planned_bytes = 0;          // the arena with reuse
  std::int64_t peak_live_bytes = 0;        // the most bytes alive at one step (a lower bound)
};

// fusion may be null (no grouping: every value owns its buffer).
MemoryPlan plan_memory(const Program& p, const FusionPlan* fusion = nullptr);

}  // namespace assay::graph
