#include "compare/gate.hpp"

#include <algorithm>
#include <cctype>

namespace assay::compare {

using stats::Verdict;

std::optional<Verdict> parse_verdict(const std::string& name) {
  std::string upper = name;
  std::transform(upper.begin(), upper.end(), upper.begin(), [](unsigned char ch) { return std::toupper(ch); });
  for (Verdict v : {Verdict::faster, Verdict::slower, Verdict::same, Verdict::ambiguous, Verdict::new_case,
                    Verdict::gone, Verdict::failed})
    if (stats::verdict_name(v) == upper) return v;
  return std::nullopt;
}

bool fails_gate(const CaseComparison& c, const GateRules& rules) {
  return c.verdict == Verdict::failed || rules.fail_on.count(c.verdict) ||
         (rules.require && c.verdict != *rules.require);
}

GateResult apply_gate(const Comparison& c, const GateRules& rules) {
  GateResult r;
  if (const auto n = c.count(Verdict::failed); n > 0)
    r.reasons.push_back(std::to_string(n) + " candidate case(s) FAILED their check or errored (always fails)");
  for (Verdict v : rules.fail_on)
    if (v != Verdict::failed)
      if (const auto n = c.count(v); n > 0)
        r.reasons.push_back(std::to_string(n) + " case(s) " + stats::verdict_name(v) + " (--fail-on)");
  if (rules.require) {
    const auto n = std::count_if(c.cases.begin(), c.cases.end(),
                                 [&](const CaseComparison& cc) { return cc.verdict != *rules.require; });
    if (n > 0)
      r.reasons.push_back(std::to_string(n) + " case(s) not " + stats::verdict_name(*rules.require) + " (--require)");
  }
  r.passed = r.reasons.empty();
  return r;
}

}  // namespace assay::compare
