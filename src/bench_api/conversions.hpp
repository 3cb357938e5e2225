#pragma once
// The public API's types (include/assay/bench.hpp) in assay's own terms.
#include <assay/bench.hpp>

#include "core/dtype.hpp"
#include "workloads/workload.hpp"

namespace assay::bench_api {

inline DType to_dtype(bench::DType t) {
  switch (t) {
    case bench::DType::f32: return DType::f32;
    case bench::DType::f16: return DType::f16;
    case bench::DType::bf16: return DType::bf16;
  }
  return DType::f32;
}

inline bench::DType to_public(DType t) {
  return t == DType::f16 ? bench::DType::f16 : t == DType::bf16 ? bench::DType::bf16 : bench::DType::f32;
}

// Every element as a double (exact for f32, f16 and bf16).
inline std::vector<double> to_doubles(const HostTensor& t) {
  std::vector<double> v(t.numel());
  for (std::size_t i = 0; i < v.size(); ++i) v[i] = load_as_double(t.dtype, t.data.data(), i);
  return v;
}

}  // namespace assay::bench_api
