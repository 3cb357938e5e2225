// The memory plan. Steps are node ids (a fused group runs at its output's step). At each step
// the node's buffer is taken first and the buffers whose last reader is this step freed after,
// so a kernel never writes over its own inputs. A free buffer is reused when it is large enough
// and at most kMaxReuseWaste times the value (the smallest such): a small value holding a large
// buffer to its end would make the next large value take a new one. Otherwise a new one is added.
// Outputs live to the end. Constants are not in the arena: the executor uploads them to memory of
// their own or reads the caller's (external inputs), so they take no buffer here; an empty value
// takes a buffer of 0 bytes (a valid address, nothing held).
#include <algorithm>

#include "graph/memory_plan.hpp"

namespace assay::graph {

namespace {

std::int64_t aligned(std::int64_t b) { return (b + kBufferAlignment - 1) / kBufferAlignment * kBufferAlignment; }

constexpr std::int64_t kMaxReuseWaste = 2;

}  // namespace

MemoryPlan plan_memory(const Program& p, const FusionPlan* fusion) {
  const Graph& g = p.graph;
  const std::size_t n = g.size();
  MemoryPlan plan;
  plan.slots.resize(n);
  const auto step = [&](NodeId i) -> NodeId {
    if (!fusion || fusion->group_of[i] < 0) return i;
    return fusion->groups[static_cast<std::size_t>(fusion->group_of[i])].output();
  };
  const auto internal = [&](NodeId i) { return step(i) != i; };
  // Bases, sizes and lifetimes.
  for (NodeId i = 0; i < n; ++i) {
    const Node& node = g.node(i);
    Slot& s = plan.slots[i];
    s.first = s.last = i;
    // reshape, permute and slice alias their input; expand is written out by its fusion group
    // (a broadcast has more elements than its input), so it owns a buffer like any computed value.
    if (op_class(node.op) == OpClass::view && node.op != OpKind::expand) {
      s.base = plan.slots[node.inputs[0]].base;
    } else {
      s.base = i;
      s.bytes = internal(i) ? 0 : node.shape.numel() * static_cast<std::int64_t>(elem_size(node.dtype));
    }
    for (int j = 0; j < node.n_inputs; ++j) {
      Slot& src = plan.slots[plan.slots[node.inputs[static_cast<std::size_t>(j)]].base];
      src.last = std::max(src.last, step(i));
    }
  }
  for (NodeId o : p.outputs) plan.slots[plan.slots[o].base].last = static_cast<NodeId>(n);
  // Greedy assignment in step order.
  std::vector<int> free_buffers;
  std::vector<std::vector<NodeId>> ending(n + 1);
  std::int64_t live = 0;
  for (NodeId i = 0; i < n; ++i) {
    Slot& s = plan.slots[i];
    if (s.base == i && !internal(i) && g.node(i).op != OpKind::constant) {
      plan.naive_bytes += aligned(s.bytes);
      const std::int64_t need = aligned(s.bytes);
      auto best = free_buffers.end();
      for (auto it = free_buffers.begin(); it != free_buffers.end(); ++it) {
        const std::int64_t have = plan.buffer_bytes[static_cast<std::size_t>(*it)];
        if (need > 0 && have >= need && have <= kMaxReuseWaste * need &&
            (best == free_buffers.end() || have < plan.buffer_bytes[static_cast<std::size_t>(*best)]))
          best = it;
      }
      if (best != free_buffers.end()) {
        s.buffer = *best;
        free_buffers.erase(best);
      } else {
        s.buffer = static_cast<int>(plan.buffer_bytes.size());
        plan.buffer_bytes.push_back(need);
      }
      live += need;
      plan.peak_live_bytes = std::max(plan.peak_live_bytes, live);
      ending[s.last].push_back(i);
    }
    for (NodeId e : ending[i]) {
      free_buffers.push_back(plan.slots[e].buffer);
      live -= aligned(plan.slots[e].bytes);
    }
  }
  std::vector<std::int64_t> offsets(plan.buffer_bytes.size());
  for (std::size_t b = 0; b < plan.buffer_bytes.size(); ++b) {
    offsets[b] = plan.planned_bytes;
    plan.planned_bytes += plan.buffer_bytes[b];
  }
  for (NodeId i = 0; i < n; ++i) {  // views (and owners) take their base's buffer and offset
    Slot& s = plan.slots[i];
    const Slot& b = plan.slots[s.base];
    s.buffer = b.buffer;
    if (s.buffer >= 0) s.offset = offsets[static_cast<std::size_t>(s.buffer)];
  }
  return plan;
}

}  // namespace assay::graph
