#include "measure/stopping_rule.hpp"

namespace assay::measure {

std::optional<std::string> StoppingRule::stop_reason(double elapsed_s) const {
  const std::size_t n = ci_.size();
  if (n >= cfg_.max_samples) return "max-samples";
  if (n >= cfg_.min_samples && elapsed_s >= cfg_.min_time_s &&
      ci_.rel_halfwidth() <= cfg_.target_rel_ci)
    return "converged";
  if (elapsed_s >= cfg_.timeout_s) return "timeout";
  return std::nullopt;
}

}  // namespace assay::measure
