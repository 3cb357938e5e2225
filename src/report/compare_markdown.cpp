// Markdown for a pull-request comment or a GitHub Actions job summary.
#include <fmt/format.h>

#include <algorithm>
#include <string_view>

#include "report/compare_outputs.hpp"

namespace assay::report {
namespace {

// Text in a table cell or a list line: it must not break the table (pipes escaped, no line ends)
// nor bring raw HTML into a pull-request comment (a reason holding </details> or <img>).
std::string cell(std::string_view s) {
  std::string out;
  for (char ch : s) {
    if (ch == '|') out += "\\|";
    else if (ch == '\n' || ch == '\r') out += ' ';
    else if (ch == '<') out += "&lt;";
    else if (ch == '>') out += "&gt;";
    else if (ch == '&') out += "&amp;";
    else out += ch;
  }
  return out;
}

// An inline code span that shows `s` as it is: its fence is longer than any run of backticks in
// it (CommonMark), padded with a space where `s` starts or ends with one.
std::string code(std::string_view s) {
  std::string body;
  std::size_t run = 0, longest = 0;
  for (char ch : s) {
    run = ch == '`' ? run + 1 : 0;
    longest = std::max(longest, run);
    if (ch == '|') body += "\\|";  // GFM: a pipe inside a cell, code span or not
    else if (ch == '\n' || ch == '\r') body += ' ';
    else body += ch;
  }
  const std::string fence(longest + 1, '`');
  const bool pad = !body.empty() && (body.front() == '`' || body.back() == '`');
  return fence + (pad ? " " : "") + body + (pad ? " " : "") + fence;
}

std::string verdict_cell(const CaseComparison& c) {
  const std::string name = compare::verdict_label(c);
  const bool bad = (c.verdict == stats::Verdict::slower && c.drift_covered) || c.verdict == stats::Verdict::failed;
  return bad ? "**" + name + "**" : name;
}

}  // namespace

std::string comparison_markdown(const Comparison& c, const GateResult& gate) {
  std::string md = fmt::format("## assay compare: {} → {}\n\n", code(c.base_label), code(c.cand_label));
  md += gate.passed ? "**Gate: pass.**" : "**Gate: FAIL.**";
  for (const auto& r : gate.reasons) md += " " + r + ".";
  for (const auto& n : gate.notes) md += " (" + n + ".)";
  md += "\n\n" + comparison_summary_line(c) + "\n\n";
  for (const auto& n : c.notes) md += "> Note: " + n + "\n\n";
  md += fmt::format("| case | base | candidate | ratio cand/base (95% CI) | verdict | noise |\n|---|---:|---:|---|---|---|\n");
  for (const auto& cc : c.cases) {
    const std::string ratio = cc.stats ? fmt::format("{:.4f} ({:.4f}–{:.4f})", cc.stats->ratio, cc.stats->ratio_ci.lo,
                                                     cc.stats->ratio_ci.hi)
                                       : "–";
    const auto [base, cand] = shown_medians(cc);
    md += fmt::format("| {} | {} | {} | {} | {} | {} |\n", code(cc.case_id),
                      base ? metric_value_text(*base, c.metric) : "–", cand ? metric_value_text(*cand, c.metric) : "–",
                      ratio, verdict_cell(cc), cc.noise.empty() ? "–" : cell(cc.noise));
  }
  md += "\n<details><summary>Why each verdict</summary>\n\n";
  for (const auto& cc : c.cases)
    md += fmt::format("- {} **{}**: {}\n", code(cc.case_id), compare::verdict_label(cc), cell(cc.why));
  md += "\n</details>\n\n";
  md += fmt::format(
      "Base: {}. Candidate: {}. Metric: {}, from the raw samples. One session a side: ratio of medians, {:g}% CI "
      "from {} seeded bootstrap resamples, Mann-Whitney test, widened by the between-session spread of the case's "
      "history where known (else marked ? and not gated); three or more sessions together: ratio of the "
      "geometric means of the session medians, t interval and t-test over sessions; `assay ab`: paired t-test of "
      "the rounds' log ratios. Practical floor {:g}%, "
      "false-alarm rate alpha {:g}. Cases are matched by workload, backend, dtype, parameters, mode and GPU model.\n",
      c.base_origin, c.cand_origin, metric_name(c.metric), 100 * c.thresholds.confidence, c.thresholds.resamples,
      100 * c.thresholds.floor, c.thresholds.alpha);
  return md;
}

}  // namespace assay::report
