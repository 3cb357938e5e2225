// JUnit XML: one testcase per compared case, so CI test reports list regressions by name.
#include <fmt/format.h>

#include "report/compare_outputs.hpp"
#include "report/escape.hpp"  // the same five entities are XML's

namespace assay::report {
namespace {

bool is_failure(const CaseComparison& c, const GateRules& rules) {
  // A SLOWER? (one session, no history: drift unknown) is reported, not failed, as in the gate.
  return (c.verdict == stats::Verdict::slower && (c.drift_covered || rules.gate_single_session)) ||
         fails_gate(c, rules);
}

}  // namespace

std::string comparison_junit(const Comparison& c, const GateRules& rules) {
  std::size_t failures = 0;
  for (const auto& cc : c.cases) failures += is_failure(cc, rules);
  const std::string suite = html_escape("assay compare " + c.base_label + " -> " + c.cand_label);
  std::string xml = "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n";
  xml += fmt::format("<testsuites name=\"assay compare\" tests=\"{}\" failures=\"{}\">\n", c.cases.size(), failures);
  xml += fmt::format("  <testsuite name=\"{}\" tests=\"{}\" failures=\"{}\">\n", suite, c.cases.size(), failures);
  for (const auto& cc : c.cases) {
    const std::string verdict = compare::verdict_label(cc);
    xml += fmt::format("    <testcase classname=\"assay.{}\" name=\"{}\"", html_escape(cc.bench), html_escape(cc.case_id));
    if (is_failure(cc, rules)) {
      xml += fmt::format(">\n      <failure type=\"{}\" message=\"{}: {}\"/>\n    </testcase>\n", verdict, verdict,
                         html_escape(cc.why));
    } else {
      xml += fmt::format(">\n      <system-out>{}: {}</system-out>\n    </testcase>\n", verdict, html_escape(cc.why));
    }
  }
  xml += "  </testsuite>\n</testsuites>\n";
  return xml;
}

}  // namespace assay::report
