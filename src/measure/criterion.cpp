#include "measure/criterion.hpp"

namespace assay::measure {

std::optional<std::string> StoppingRule::stop_reason(double elapsed_s) const {
  const std::size_t n = ci_.size();
  if (n >= criterion_.max_samples) return "max-samples";
  if (n >= criterion_.min_samples && elapsed_s >= criterion_.min_time_s &&
      ci_.rel_halfwidth() <= criterion_.target_rel_ci)
    return "converged";
  if (elapsed_s >= criterion_.timeout_s) return "timeout";
  return std::nullopt;
}

}  // namespace assay::measure
