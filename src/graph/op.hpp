#pragma once
// The op kinds a graph node can hold, and the classes the passes reason about.
#include <cstdint>
#include <string_view>

namespace assay::graph {

enum class OpKind : std::uint8_t {
  // factories (no inputs)
  randn, zeros, ones, full, constant,
  // elementwise (inputs broadcast to the output shape)
  add, sub, mul, div, neg, exp, log, sqrt, relu, sigmoid, tanh, gelu, where, cast,
  // linear algebra
  matmul, linear, attention,
  // reductions over dims (and the normalisations, which reduce and broadcast back)
  sum, mean, max, softmax, log_softmax, layer_norm,
  // views (no data of their own: they alias their input's buffer)
  reshape, permute, slice, expand,
};

enum class OpClass : std::uint8_t { factory, elementwise, linalg, reduction, view };

std::string_view op_name(OpKind k);
OpClass op_class(OpKind k);

}  // namespace assay::graph
