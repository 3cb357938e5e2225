#pragma once
// When to stop sampling (DESIGN.md "Measuring"), as nvbench's stopping criteria: an object that
// owns its parameters. Sampling stops at max_samples; or once min_samples and min_time_s are
// reached and the 95% CI of the median is within target_rel_ci of it; or at timeout_s.
// adapters/assay_adapter/stopping.py is the same rule in Python, held to this one by
// tests/stopping_rule (the same decisions on the same samples).
#include <cstdint>
#include <optional>
#include <string>

#include "stats/summary.hpp"

namespace assay::measure {

struct Criterion {
  std::uint64_t min_samples = 20;
  std::uint64_t max_samples = 5000;
  double min_time_s = 0.3;
  double target_rel_ci = 0.01;  // relative half-width of the 95% CI of the median
  double timeout_s = 15.0;      // of sampling, per case (or per round)
};

class StoppingRule {
 public:
  explicit StoppingRule(const Criterion& criterion) : criterion_(criterion) {}
  void add(double sample_ns) { ci_.add(sample_ns); }
  std::size_t samples() const { return ci_.size(); }
  double rel_halfwidth() const { return ci_.rel_halfwidth(); }
  // "converged", "max-samples" or "timeout" when sampling should stop; nullopt to go on.
  std::optional<std::string> stop_reason(double elapsed_s) const;
  const Criterion& criterion() const { return criterion_; }

 private:
  Criterion criterion_;
  stats::RunningMedianCi ci_;
};

}  // namespace assay::measure
