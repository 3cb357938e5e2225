#pragma once
// Named example programs (`assay graph dump --example`), also used by the tests.
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "graph/graph.hpp"

namespace assay::graph {

struct ExampleSize {
  std::int64_t batch = 64, hidden = 2048;  // mlp, block (the playbook's sizes)
  std::int64_t seq = 16, heads = 16;       // block: tokens per sequence, attention heads
  std::int64_t n = 1000;                   // chain: x is n x n
  ElemType dtype = ElemType::f32;
};

const std::vector<std::string>& example_names();  // mlp, chain, block
// mlp:   Linear(hidden -> 4 hidden, bias) -> GELU (tanh form) -> Linear(4 hidden -> hidden, bias) on [batch, hidden]
// chain: relu(x @ x).sum() on x = randn(n, n)
// block: x [batch, seq, hidden]: layer_norm -> causal attention (heads) -> + x -> layer_norm -> MLP -> + residual
// Throws InputError naming the known examples for any other name.
Program make_example(std::string_view name, const ExampleSize& size);

}  // namespace assay::graph
