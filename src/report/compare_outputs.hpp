// Renderings of a Comparison: the terminal table, Markdown for a PR comment or a GitHub job
// summary, JUnit XML for CI test reports, CSV, and Bencher Metric Format JSON. Each returns the
// text; the CLI writes it atomically.
#pragma once

#include <optional>
#include <string>
#include <utility>

#include "compare/comparison.hpp"
#include "compare/gate.hpp"

namespace assay::report {

// The renderers below draw the comparison's types (compare/comparison.hpp, compare/gate.hpp).
using compare::CaseComparison;
using compare::Comparison;
using compare::GateResult;
using compare::GateRules;
using compare::Metric;

// A value of the compared metric with its unit: "29.79 us", "576.8 TFLOP/s", "53.9% of peak".
std::string metric_value_text(double value, Metric m);

// The base and candidate values a rendering shows for a case: those the ratio was formed from
// (medians, or geometric means of session medians), else the pooled medians of the side.
std::pair<std::optional<double>, std::optional<double>> shown_medians(const CaseComparison& c);

std::string comparison_table(const Comparison& c, const GateResult& gate);
std::string comparison_markdown(const Comparison& c, const GateResult& gate);
// One testcase per case; a failure for FAILED, SLOWER and whatever else fails the gate.
std::string comparison_junit(const Comparison& c, const GateRules& rules);
std::string comparison_csv(const Comparison& c);
// The candidate's medians with their 95% CIs, one benchmark per case (https://bencher.dev/docs/reference/bencher-metric-format/).
std::string comparison_bmf(const Comparison& c);

}  // namespace assay::report
