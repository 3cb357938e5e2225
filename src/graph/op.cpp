#include "graph/op.hpp"

namespace assay::graph {

std::string_view op_name(OpKind k) {
  switch (k) {
    case OpKind::randn: return "randn";
    case OpKind::zeros: return "zeros";
    case OpKind::ones: return "ones";
    case OpKind::full: return "full";
    case OpKind::constant: return "constant";
    case OpKind::add: return "add";
    case OpKind::sub: return "sub";
    case OpKind::mul: return "mul";
    case OpKind::div: return "div";
    case OpKind::neg: return "neg";
    case OpKind::exp: return "exp";
    case OpKind::log: return "log";
    case OpKind::sqrt: return "sqrt";
    case OpKind::relu: return "relu";
    case OpKind::sigmoid: return "sigmoid";
    case OpKind::tanh: return "tanh";
    case OpKind::gelu: return "gelu";
    case OpKind::where: return "where";
    case OpKind::cast: return "cast";
    case OpKind::matmul: return "matmul";
    case OpKind::linear: return "linear";
    case OpKind::attention: return "scaled_dot_product_attention";
    case OpKind::sum: return "sum";
    case OpKind::mean: return "mean";
    case OpKind::max: return "max";
    case OpKind::softmax: return "softmax";
    case OpKind::log_softmax: return "log_softmax";
    case OpKind::layer_norm: return "layer_norm";
    case OpKind::reshape: return "reshape";
    case OpKind::permute: return "permute";
    case OpKind::slice: return "slice";
    case OpKind::expand: return "expand";
  }
  return "?";
}

OpClass op_class(OpKind k) {
  if (k <= OpKind::constant) return OpClass::factory;
  if (k <= OpKind::cast) return OpClass::elementwise;
  if (k <= OpKind::attention) return OpClass::linalg;
  if (k <= OpKind::layer_norm) return OpClass::reduction;
  return OpClass::view;
}

}  // namespace assay::graph
