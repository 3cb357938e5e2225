#include "graph/host_value.hpp"

#include <cmath>

#include "core/dtype.hpp"

namespace assay::graph {

float round_to(ElemType t, float x) {
  switch (t) {
    case ElemType::f32: return x;
    case ElemType::f16: return f16_bits_to_float(float_to_f16_bits(x));
    case ElemType::bf16: return bf16_bits_to_float(float_to_bf16_bits(x));
    case ElemType::i64: return std::trunc(x);
    case ElemType::boolean: return x != 0.0f ? 1.0f : 0.0f;
  }
  return x;
}

}  // namespace assay::graph
