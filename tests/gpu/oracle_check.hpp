#pragma once
// One call of a backend's instance into a poisoned output, checked against the fp64 oracle: the
// helper of the GPU tests of attention and the MLP.
#include <gtest/gtest.h>

#include <cmath>
#include <string>

#include "backends/backend.hpp"
#include "verify/tolerance.hpp"

namespace assay::gpu_test {

// The attention gate's tolerance: bf16 keeps 8 mantissa bits, P is rounded to it before P·V.
inline verify::Tolerance attention_tolerance(DType t) {
  return t == DType::bf16 ? verify::Tolerance{4e-3, 2e-2} : verify::Tolerance{1e-3, 1e-2};
}

// Checks `sampled_rows` rows (0: all) against the oracle and that every output element was
// written (finite). Returns the instance's variant, for callers that check which kernel ran.
inline std::string expect_matches_oracle(const Backend& backend, const Problem& p, const verify::Tolerance& tol,
                                         std::int64_t sampled_rows = 0, std::uint64_t seed = 5) {
  const auto inputs = p.make_inputs(seed);
  auto inst = backend.instantiate(p, inputs);
  inst->poison_output();
  inst->call(nullptr);
  const auto out = inst->read_output();
  const auto c = verify::check_output(out, p.reference(inputs, sampled_rows), tol);
  const std::string what =
      backend.name() + " " + inst->variant() + " " + std::string(dtype_name(p.dtype())) + " " + p.shape_string();
  EXPECT_TRUE(c.passed) << what << ": fails=" << c.fails << "/" << c.checked << " max_abs=" << c.max_abs << " "
                        << c.first_failure;
  std::size_t unwritten = 0;
  for (std::size_t i = 0; i < out.numel(); ++i) unwritten += !std::isfinite(load_as_double(out.dtype, out.data.data(), i));
  EXPECT_EQ(unwritten, 0u) << what << ": elements left unwritten (NaN poison) or not finite";
  return inst->variant();
}

}  // namespace assay::gpu_test
