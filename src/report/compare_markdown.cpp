// Markdown for a pull-request comment or a GitHub Actions job summary.
#include <fmt/format.h>

#include "report/compare_outputs.hpp"
#include "report/escape.hpp"

namespace assay::report {
namespace {

std::string verdict_markdown_text(const CaseComparison& c) {
  const std::string name = compare::verdict_label(c);
  const bool bad = (c.verdict == stats::Verdict::slower && c.drift_covered) || c.verdict == stats::Verdict::failed;
  return bad ? "**" + name + "**" : name;
}

}  // namespace

std::string comparison_markdown(const Comparison& c, const GateResult& gate) {
  std::string md = fmt::format("## assay compare: {} → {}\n\n", markdown_code(c.base_label), markdown_code(c.cand_label));
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
    md += fmt::format("| {} | {} | {} | {} | {} | {} |\n", markdown_code(cc.case_id),
                      base ? metric_value_text(*base, c.metric) : "–", cand ? metric_value_text(*cand, c.metric) : "–",
                      ratio, verdict_markdown_text(cc), cc.noise.empty() ? "–" : markdown_text(cc.noise));
  }
  md += "\n<details><summary>Why each verdict</summary>\n\n";
  for (const auto& cc : c.cases)
    md += fmt::format("- {} **{}**: {}\n", markdown_code(cc.case_id), compare::verdict_label(cc), markdown_text(cc.why));
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
