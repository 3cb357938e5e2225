#pragma once
// Text forms of a program, its fusion groups and its memory plan (`assay graph dump`).
#include <string>
#include <string_view>

#include "graph/fusion.hpp"
#include "graph/graph.hpp"
#include "graph/memory_plan.hpp"

namespace assay::graph {

// An op's attributes as "{seed=1}", "{dims=[1],keepdim}" ..., or "" when it has none.
std::string attr_string(const Node& n);
// One line per node: "%3 = matmul(%1, %2) -> f32[4,4] cpu  @ file.cpp:12", then the outputs.
std::string dump_program(const Program& p);
std::string dump_fusion(const FusionPlan& f);
std::string dump_memory(const MemoryPlan& m);
// The program, the passes' records, the program after them, its fusion groups and memory plan.
std::string dump_with_passes(const Program& before, std::string_view title);
// "1.5 MiB", "512 B"
std::string format_bytes(std::int64_t b);

}  // namespace assay::graph
