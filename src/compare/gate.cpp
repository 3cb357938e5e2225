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

namespace {

// A FASTER/SLOWER that one session gave without knowing the drift between sessions.
bool unsure(const CaseComparison& c, const GateRules& rules) {
  return !rules.gate_single_session && !c.drift_covered &&
         (c.verdict == Verdict::faster || c.verdict == Verdict::slower);
}

bool fails_fail_on(const CaseComparison& c, const GateRules& rules) {
  return rules.fail_on.count(c.verdict) && !unsure(c, rules);
}

bool misses_require(const CaseComparison& c, const GateRules& rules) {
  return rules.require && (c.verdict != *rules.require || unsure(c, rules));
}

}  // namespace

bool fails_gate(const CaseComparison& c, const GateRules& rules) {
  return c.verdict == Verdict::failed || fails_fail_on(c, rules) || misses_require(c, rules);
}

GateResult apply_gate(const Comparison& c, const GateRules& rules) {
  GateResult r;
  if (const auto n = c.count(Verdict::failed); n > 0)
    r.reasons.push_back(std::to_string(n) + " candidate case(s) FAILED their check or errored (always fails)");
  for (Verdict v : rules.fail_on) {
    if (v == Verdict::failed) continue;
    const auto n = std::count_if(c.cases.begin(), c.cases.end(),
                                 [&](const CaseComparison& cc) { return cc.verdict == v && fails_fail_on(cc, rules); });
    if (n > 0) r.reasons.push_back(std::to_string(n) + " case(s) " + stats::verdict_name(v) + " (--fail-on)");
    const auto let_pass = std::count_if(c.cases.begin(), c.cases.end(),
                                        [&](const CaseComparison& cc) { return cc.verdict == v && unsure(cc, rules); });
    if (let_pass > 0)
      r.notes.push_back(std::to_string(let_pass) + " case(s) " + stats::verdict_name(v) +
                        "? not gated: one session a side without history cannot tell drift from change "
                        "(--gate-single-session gates them)");
  }
  if (rules.require) {
    const auto n = std::count_if(c.cases.begin(), c.cases.end(),
                                 [&](const CaseComparison& cc) { return misses_require(cc, rules); });
    // Said only where it applies: a NEW or GONE case misses --require for what it is.
    const auto unsure_n = std::count_if(c.cases.begin(), c.cases.end(), [&](const CaseComparison& cc) {
      return misses_require(cc, rules) && cc.verdict == *rules.require && unsure(cc, rules);
    });
    if (n > 0)
      r.reasons.push_back(std::to_string(n) + " case(s) not " + stats::verdict_name(*rules.require) + " (--require" +
                          (unsure_n > 0 ? "; " + std::to_string(unsure_n) +
                                              " of them single-session verdicts without history, which do not count"
                                        : "") +
                          ")");
  }
  r.passed = r.reasons.empty();
  return r;
}

}  // namespace assay::compare
