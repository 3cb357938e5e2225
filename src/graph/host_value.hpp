#pragma once
// What an executor returns for a node: shape, dtype and the values as fp32, each already
// rounded to the dtype (exact for f16, bf16 and bool; i64 exact up to 2^24 in this reference).
// A remote executor sends the same triple over its wire.
#include <vector>

#include "graph/types.hpp"

namespace assay::graph {

struct HostValue {
  Shape shape;
  ElemType dtype = ElemType::f32;
  std::vector<float> values;
};

// x rounded to t with core's exact conversions (round to nearest even); bool is x != 0; i64
// truncates toward zero as a C++ cast does.
float round_to(ElemType t, float x);

}  // namespace assay::graph
