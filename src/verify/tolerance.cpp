#include "verify/tolerance.hpp"

#include <cmath>
#include <sstream>

namespace assay::verify {

CheckRecord check_output(const HostTensor& out, const Reference& ref, const Tolerance& tol) {
  CheckRecord c;
  c.oracle = ref.oracle;
  c.atol = tol.atol;
  c.rtol = tol.rtol;
  double err2 = 0, ref2 = 0;
  std::uint64_t finite_count = 0;
  const std::size_t numel = out.numel();
  for (std::size_t r = 0; r < ref.index.size(); ++r) {
    const std::size_t i = ref.index[r];
    const double want = ref.value[r];
    const double got = i < numel ? load_as_double(out.dtype, out.data.data(), i) : std::nan("");
    const double diff = std::fabs(got - want);
    const bool finite = std::isfinite(got);
    if (!finite) ++c.nan_count;
    const bool ok = finite && diff <= tol.atol + tol.rtol * std::fabs(want);
    if (!ok) {
      if (c.fails == 0) {
        std::ostringstream ss;
        ss << "element " << i << ": got " << got << ", want " << want;
        c.first_failure = ss.str();
      }
      ++c.fails;
    }
    if (finite) {
      c.max_abs = std::max(c.max_abs, diff);
      if (std::fabs(want) > tol.atol) c.max_rel = std::max(c.max_rel, diff / std::fabs(want));
      err2 += diff * diff;
      ++finite_count;
    }
    ref2 += want * want;
  }
  c.checked = ref.index.size();
  c.rel_l2 = c.nan_count > 0 ? std::numeric_limits<double>::infinity()
             : ref2 > 0     ? std::sqrt(err2 / ref2)
                            : std::sqrt(err2);
  c.rmse = c.nan_count > 0 || finite_count == 0 ? std::numeric_limits<double>::infinity()
                                                : std::sqrt(err2 / static_cast<double>(finite_count));
  c.passed = c.checked > 0 && c.fails == 0;
  return c;
}

}  // namespace assay::verify
