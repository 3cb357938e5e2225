// Feeds sample sequences to assay's StoppingRule and prints what it decides, for the parity
// test of the Python copy of the rule (test_stopping_rule_parity.py beside this file,
// adapters/assay_adapter/stopping.py): measure::StoppingRule (src/measure/criterion.hpp).
//
// stdin: one case or a JSON list of cases. A case is
//   {"criterion": {"min_samples": N, "max_samples": N, "min_time_s": S, "target_rel_ci": R,
//                  "timeout_s": S},
//    "samples": [x, ...], "elapsed_s": [t, ...]}      (elapsed_s: the clock after each sample)
// or {"median_ci_ranks_up_to": N}.
// stdout: one result, or a list of results in the same order. For a sequence:
//   {"decisions": [null | "converged" | "max-samples" | "timeout", ...],   per sample
//    "rel_halfwidth": [x | "inf", ...],        per sample, from a second rule asked every step
//    "rel_halfwidth_lazy": [x | "inf" | null, ...]}
// "decisions" come from a rule asked only stop_reason(elapsed), as measure_loop asks it; the
// rule reads its CI only where stop_reason needs it, and the CI's batch part is refreshed only
// when read (stats::RunningMedianCi), so "rel_halfwidth_lazy" reports that rule's CI where
// stop_reason read it (null elsewhere) and "rel_halfwidth" comes from a twin rule read after
// every sample. Every step is decided, also after the first stop.
// For the ranks: {"lower_ranks": [j(1), ..., j(N)]}, j(n) the 1-based lower rank of the 95%
// order-statistics CI of the median of n samples (0: not reached), via stats::median_ci_sorted.
#include <cmath>
#include <cstdint>
#include <exception>
#include <iostream>
#include <numeric>
#include <optional>
#include <sstream>
#include <span>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "measure/criterion.hpp"
#include "stats/summary.hpp"

namespace {

using nlohmann::json;

json number(double x) {
  if (std::isinf(x)) return x > 0 ? "inf" : "-inf";
  if (std::isnan(x)) return "nan";
  return x;
}

json run_sequence(const json& c) {
  const json& k = c.at("criterion");
  // CRITERION: the one line that names the rule's parameter type (suite::MeasureConfig before
  // measure::Criterion; the field names are the same).
  assay::measure::Criterion criterion;
  criterion.min_samples = k.at("min_samples").get<std::uint64_t>();
  criterion.max_samples = k.at("max_samples").get<std::uint64_t>();
  criterion.min_time_s = k.at("min_time_s").get<double>();
  criterion.target_rel_ci = k.at("target_rel_ci").get<double>();
  criterion.timeout_s = k.at("timeout_s").get<double>();

  const auto samples = c.at("samples").get<std::vector<double>>();
  const auto elapsed = c.at("elapsed_s").get<std::vector<double>>();
  if (samples.size() != elapsed.size()) throw std::runtime_error("samples and elapsed_s differ in length");

  assay::measure::StoppingRule rule(criterion);   // asked as measure_loop asks it
  assay::measure::StoppingRule eager(criterion);  // its CI read after every sample
  json decisions = json::array(), rel = json::array(), lazy = json::array();
  for (std::size_t i = 0; i < samples.size(); ++i) {
    rule.add(samples[i]);
    eager.add(samples[i]);
    const auto reason = rule.stop_reason(elapsed[i]);
    decisions.push_back(reason ? json(*reason) : json(nullptr));
    // stop_reason read the CI exactly when these hold; a second read at the same count does
    // not refresh the batch part, so reading it here changes nothing.
    const std::size_t n = rule.samples();
    const bool read = n < criterion.max_samples && n >= criterion.min_samples && elapsed[i] >= criterion.min_time_s;
    lazy.push_back(read ? number(rule.rel_halfwidth()) : json(nullptr));
    rel.push_back(number(eager.rel_halfwidth()));
  }
  return {{"decisions", decisions}, {"rel_halfwidth", rel}, {"rel_halfwidth_lazy", lazy}};
}

json run_ranks(const json& c) {
  const auto up_to = c.at("median_ci_ranks_up_to").get<std::size_t>();
  std::vector<double> values(up_to);
  std::iota(values.begin(), values.end(), 0.0);  // value k at 0-based rank k
  json ranks = json::array();
  for (std::size_t n = 1; n <= up_to; ++n) {
    const auto m = assay::stats::median_ci_sorted(std::span<const double>(values.data(), n), 0.95);
    ranks.push_back(m.reached_confidence ? static_cast<std::size_t>(m.ci.lo) + 1 : 0);
  }
  return {{"lower_ranks", ranks}};
}

json run_one(const json& c) { return c.contains("median_ci_ranks_up_to") ? run_ranks(c) : run_sequence(c); }

}  // namespace

int main() {
  try {
    std::ostringstream text;
    text << std::cin.rdbuf();
    const json in = json::parse(text.str());
    json out;
    if (in.is_array()) {
      out = json::array();
      for (const auto& c : in) out.push_back(run_one(c));
    } else {
      out = run_one(in);
    }
    std::cout << out.dump() << "\n";
    return 0;
  } catch (const std::exception& e) {
    std::cerr << "stopping_rule_probe: " << e.what() << "\n";
    return 1;
  }
}
