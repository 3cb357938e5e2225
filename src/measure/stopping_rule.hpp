#pragma once
// When to stop sampling: enough samples, enough time, and a median known to within the
// target (relative half-width of its 95% CI); or the sample cap; or the per-case budget.
#include <optional>
#include <string>

#include "stats/summary.hpp"
#include "suite/suite.hpp"

namespace assay::measure {

class StoppingRule {
 public:
  explicit StoppingRule(const suite::MeasureConfig& cfg) : cfg_(cfg) {}
  void add(double sample_ns) { ci_.add(sample_ns); }
  std::size_t samples() const { return ci_.size(); }
  double rel_halfwidth() const { return ci_.rel_halfwidth(); }
  // "converged", "max-samples" or "timeout" when sampling should stop; nullopt to go on.
  std::optional<std::string> stop_reason(double elapsed_s) const;

 private:
  suite::MeasureConfig cfg_;
  stats::RunningMedianCi ci_;
};

}  // namespace assay::measure
