// Bencher Metric Format: {"<benchmark>": {"<measure>": {"value", "lower_value", "upper_value"}}}.
// The candidate's median of each case with its 95% distribution-free CI; Bencher's built-in
// "latency" measure is in nanoseconds, the rates use measures named after the metric.
#include <nlohmann/json.hpp>

#include <map>

#include "report/compare_outputs.hpp"

namespace assay::report {

std::string comparison_bmf(const Comparison& c) {
  const std::string measure = c.metric == Metric::time ? "latency" : metric_name(c.metric);
  std::map<std::string, int> uses;
  for (const auto& cc : c.cases) ++uses[cc.case_id];
  nlohmann::json bmf = nlohmann::json::object();
  for (const auto& cc : c.cases) {
    if (!cc.cand) continue;
    // The case id, or the full identity where one id stands for several (modes, GPU models).
    const std::string name = uses[cc.case_id] == 1 ? cc.case_id : cc.key;
    bmf[name][measure] = {{"value", cc.cand->median},
                          {"lower_value", cc.cand->median_ci.lo},
                          {"upper_value", cc.cand->median_ci.hi}};
  }
  return bmf.dump(2, ' ', false, nlohmann::json::error_handler_t::replace) + "\n";
}

}  // namespace assay::report
