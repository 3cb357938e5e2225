// The CI gate of `assay compare`: which verdicts fail the comparison (exit 1).
#pragma once

#include <optional>
#include <set>
#include <string>
#include <vector>

#include "compare/comparison.hpp"

namespace assay::compare {

struct GateRules {
  std::set<stats::Verdict> fail_on;       // --fail-on slower,ambiguous,...: any such case fails
  std::optional<stats::Verdict> require;  // --require faster: every compared case must be this
  // A FASTER/SLOWER verdict whose noise did not cover drift between sessions (one session a side,
  // no history: CaseComparison::drift_covered) neither fails --fail-on nor meets --require,
  // unless this is set (--gate-single-session).
  bool gate_single_session = false;
};

// "faster", "SLOWER", "new", ... -> the verdict; nullopt for anything else.
std::optional<stats::Verdict> parse_verdict(const std::string& name);

// A candidate whose check failed (FAILED) always fails, whatever the rules say.
bool fails_gate(const CaseComparison& c, const GateRules& rules);

struct GateResult {
  bool passed = true;
  std::vector<std::string> reasons;  // one line per failing rule, with its count
  std::vector<std::string> notes;    // what the gate let pass and why (e.g. single-session verdicts)
};
GateResult apply_gate(const Comparison& c, const GateRules& rules);

}  // namespace assay::compare
