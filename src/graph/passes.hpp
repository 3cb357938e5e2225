#pragma once
// The rewriting passes. Each takes a program (graph + requested outputs) and returns a new one
// with the outputs renumbered; ids stay in topological order. Analyses (fusion groups, the
// memory plan) are in fusion.hpp and memory_plan.hpp; the pipeline in pipeline.hpp.
#include <cstdint>

#include "graph/graph.hpp"

namespace assay::graph {

// Keeps only the nodes the outputs need.
Program eliminate_dead_code(const Program& p);
// Merges nodes that compute the same thing: same op, attributes, inputs (after merging), shape,
// dtype and device; constants by value, except those in `distinct` (by their data: inputs a
// caller binds to buffers of its own, whose values may differ later). Sites are ignored. randn
// with different seeds differ.
Program eliminate_common_subexpressions(const Program& p, const std::vector<const void*>& distinct = {});
// Replaces factories (randn, zeros, ones, full) of at most max_elements by constant nodes that
// hold their values, so executors read them instead of generating them.
Program fold_constants(const Program& p, std::int64_t max_elements = 4096);

// GEMM epilogue fusion: matmul(x, w2d) + bias[n], optionally followed by relu or the tanh form of
// gelu (the activations a GEMM epilogue applies, cuBLASLt's RELU_BIAS and GELU_BIAS), becomes one
// linear node (x @ permute(w)ᵀ, bias, activation flags); a linear with bias absorbs such an
// activation too. Only values with no other reader are absorbed. The erf form of gelu is left
// to its fusion group: no epilogue computes it. Dead nodes are removed.
Program fuse_epilogues(const Program& p);

// Appends n to g with its inputs renamed through map (old id -> new id).
NodeId append_remapped(Graph& g, Node n, const std::vector<NodeId>& map);

}  // namespace assay::graph
