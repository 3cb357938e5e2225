#pragma once
// The recording API: a LazyTensor is a handle (graph, node id); every function below appends
// one node (linear also reads its bias, layer_norm its weight and bias) after inferring its shape
// and dtype, and throws GraphError naming the op, the shapes and the call site on a mismatch.
// The last argument of each is the recording site: the caller's line by default, or
// Graph::site("model.py:12") from a front end.
#include <cstdint>
#include <optional>
#include <source_location>
#include <string_view>
#include <vector>

#include "graph/graph.hpp"

namespace assay::graph {

struct LazyTensor {
  Graph* graph = nullptr;
  NodeId id = kNoNode;

  const Node& node() const { return graph->node(id); }
  const Shape& shape() const { return node().shape; }
  ElemType dtype() const { return node().dtype; }
  int dim() const { return node().shape.rank; }
};

struct Options {
  ElemType dtype = ElemType::f32;
  std::string_view device = "cpu";
};

using Here = std::source_location;

// factories
LazyTensor randn(Graph& g, const Shape& shape, std::uint64_t seed, Options o = {}, Site site = Here::current());
LazyTensor zeros(Graph& g, const Shape& shape, Options o = {}, Site site = Here::current());
LazyTensor ones(Graph& g, const Shape& shape, Options o = {}, Site site = Here::current());
LazyTensor full(Graph& g, const Shape& shape, double value, Options o = {}, Site site = Here::current());
// Host values (row-major), rounded to o.dtype; their count must match the shape.
LazyTensor from_host(Graph& g, const Shape& shape, std::vector<float> values, Options o = {},
                     Site site = Here::current());

// elementwise, inputs broadcast (NumPy rules); binary inputs must share dtype and device
LazyTensor add(LazyTensor a, LazyTensor b, Site site = Here::current());
LazyTensor sub(LazyTensor a, LazyTensor b, Site site = Here::current());
LazyTensor mul(LazyTensor a, LazyTensor b, Site site = Here::current());
LazyTensor div(LazyTensor a, LazyTensor b, Site site = Here::current());
LazyTensor neg(LazyTensor a, Site site = Here::current());
LazyTensor exp(LazyTensor a, Site site = Here::current());
LazyTensor log(LazyTensor a, Site site = Here::current());
LazyTensor sqrt(LazyTensor a, Site site = Here::current());
LazyTensor relu(LazyTensor a, Site site = Here::current());
LazyTensor sigmoid(LazyTensor a, Site site = Here::current());
LazyTensor tanh(LazyTensor a, Site site = Here::current());
// approximate: false = the erf form, true = the tanh form (PyTorch's approximate="tanh")
LazyTensor gelu(LazyTensor a, bool approximate_tanh = false, Site site = Here::current());
// cond must be bool; a and b share a dtype
LazyTensor where(LazyTensor cond, LazyTensor a, LazyTensor b, Site site = Here::current());
LazyTensor cast(LazyTensor a, ElemType to, Site site = Here::current());

// linear algebra (floating dtypes)
// matmul: both operands of rank >= 2, leading (batch) dims broadcast: [..., m, k] @ [..., k, n]
LazyTensor matmul(LazyTensor a, LazyTensor b, Site site = Here::current());
LazyTensor mm(LazyTensor a, LazyTensor b, Site site = Here::current());   // [m,k] @ [k,n]
LazyTensor bmm(LazyTensor a, LazyTensor b, Site site = Here::current());  // [b,m,k] @ [b,k,n]
// x [..., in], weight [out, in], bias [out] -> [..., out]
LazyTensor linear(LazyTensor x, LazyTensor weight, std::optional<LazyTensor> bias = std::nullopt,
                  Site site = Here::current());
// q [..., L, E], k [..., S, E], v [..., S, Ev] -> [..., L, Ev]; scale defaults to 1/sqrt(E);
// causal masks key j > query i (PyTorch's is_causal).
LazyTensor scaled_dot_product_attention(LazyTensor q, LazyTensor k, LazyTensor v, bool causal = false,
                                        std::optional<double> scale = std::nullopt, Site site = Here::current());

// reductions; dims may be negative; empty dims = all dims
LazyTensor sum(LazyTensor a, Dims dims = {}, bool keepdim = false, Site site = Here::current());
LazyTensor mean(LazyTensor a, Dims dims = {}, bool keepdim = false, Site site = Here::current());
LazyTensor max(LazyTensor a, Dims dims = {}, bool keepdim = false, Site site = Here::current());
LazyTensor softmax(LazyTensor a, int dim, Site site = Here::current());
LazyTensor log_softmax(LazyTensor a, int dim, Site site = Here::current());
// normalized_shape must equal a's trailing dims; weight and bias have that shape
LazyTensor layer_norm(LazyTensor a, const Shape& normalized_shape, std::optional<LazyTensor> weight = std::nullopt,
                      std::optional<LazyTensor> bias = std::nullopt, double eps = 1e-5, Site site = Here::current());

// views; one -1 in reshape's shape is inferred. view is reshape here: every tensor of the graph
// is logically contiguous, the executors copy or alias as they see fit.
LazyTensor reshape(LazyTensor a, const Shape& shape, Site site = Here::current());
LazyTensor view(LazyTensor a, const Shape& shape, Site site = Here::current());
LazyTensor transpose(LazyTensor a, int d0, int d1, Site site = Here::current());
LazyTensor permute(LazyTensor a, const Dims& perm, Site site = Here::current());
// Python slice semantics on one dim: negative start/end count from the end, clamped; step >= 1
LazyTensor slice(LazyTensor a, int dim, std::int64_t start, std::int64_t end, std::int64_t step = 1,
                 Site site = Here::current());
// -1 keeps a dim; new leading dims may be added; only size-1 dims grow
LazyTensor expand(LazyTensor a, const Shape& shape, Site site = Here::current());

}  // namespace assay::graph
