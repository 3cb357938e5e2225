#pragma once
// The tolerance check: an element passes when |out - ref| <= atol + rtol * |ref| (numpy's
// isclose rule) and out is finite. NaN or Inf never passes, so a poisoned (NaN) element
// that the implementation did not write is always a failure.
#include "core/results.hpp"
#include "workloads/workload.hpp"

namespace assay::verify {

struct Tolerance {
  double atol = 0.02;
  double rtol = 0.01;
};

// Compares the elements of `out` named by `ref.index` with `ref.value`.
// max_rel is taken over elements with |ref| > atol (relative error near zero means nothing).
CheckRecord check_output(const HostTensor& out, const Reference& ref, const Tolerance& tol);

}  // namespace assay::verify
