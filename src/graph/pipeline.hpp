#pragma once
// The pass pipeline: DCE (from the requested outputs), CSE, constant folding, then the analyses: fusion groups and the memory plan. Each step records what it changed.
#include <string>
#include <vector>

#include "graph/fusion.hpp"
#include "graph/memory_plan.hpp"

namespace assay::graph {

struct PassRecord {
  std::string name;
  std::size_t nodes_before = 0, nodes_after = 0;
  std::string change;  // one line, e.g. "merged 2 nodes"
};

struct PipelineResult {
  Program program;
  std::vector<PassRecord> records;
  FusionPlan fusion;
  MemoryPlan memory;
};

// `distinct`: constants (by their data) that CSE must not merge (see eliminate_common_subexpressions).
PipelineResult run_pipeline(const Program& p, const std::vector<const void*>& distinct = {});

}  // namespace assay::graph
