#pragma once
// Helpers shared by the record_*.cpp files: node construction and the checks whose failure
// messages all read "<op>: <what> (recorded at <site>)". Nothing here allocates unless it throws.
#include <string_view>

#include "graph/error.hpp"
#include "graph/tensor.hpp"

namespace assay::graph::detail {

// A node of kind k on a's graph and device, with the given inputs (all checked to share a's
// graph and device).
Node node_from(std::string_view op, OpKind k, const Site& site, std::initializer_list<LazyTensor> inputs);
LazyTensor emit(Graph& g, const Node& n);

void require_floating(std::string_view op, LazyTensor a, const Site& site);
void require_same_dtype(std::string_view op, LazyTensor a, LazyTensor b, const Site& site);
// NumPy broadcasting of two shapes.
Shape broadcast_shapes(std::string_view op, const Shape& a, const Shape& b, const Site& site);
// A dim in [-rank, rank) made non-negative.
int normalize_dim(std::string_view op, int dim, int rank, const Site& site);

}  // namespace assay::graph::detail
