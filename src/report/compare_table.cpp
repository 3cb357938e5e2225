// The terminal rendering of a comparison and the value formatting the other renderings share.
#include <fmt/format.h>

#include <algorithm>
#include <array>

#include "report/compare_outputs.hpp"

namespace assay::report {

std::string metric_value_text(double v, Metric m) {
  switch (m) {
    case Metric::time:
      if (v < 1e3) return fmt::format("{:.1f} ns", v);
      if (v < 1e6) return fmt::format("{:.2f} us", v / 1e3);
      if (v < 1e9) return fmt::format("{:.3f} ms", v / 1e6);
      return fmt::format("{:.3f} s", v / 1e9);
    case Metric::tflops: return fmt::format("{:.2f} TFLOP/s", v);
    case Metric::gbs: return fmt::format("{:.1f} GB/s", v);
    case Metric::pct_of_peak: return fmt::format("{:.1f}% of peak", v);
    case Metric::cycles:
      if (v < 1e6) return fmt::format("{:.1f} k cycles", v / 1e3);
      return fmt::format("{:.3f} M cycles", v / 1e6);
  }
  return fmt::format("{:g}", v);
}

std::pair<std::optional<double>, std::optional<double>> shown_medians(const CaseComparison& c) {
  if (c.stats) return {c.stats->base_median, c.stats->cand_median};
  return {c.base ? std::optional(c.base->median) : std::nullopt, c.cand ? std::optional(c.cand->median) : std::nullopt};
}

std::string comparison_table(const Comparison& c, const GateResult& gate) {
  using Row = std::array<std::string, 7>;
  std::vector<Row> rows{{"verdict", "ratio [95% CI]", "p", "noise", "base", "candidate", "case"}};
  for (const auto& cc : c.cases) {
    const auto [base, cand] = shown_medians(cc);
    Row r{compare::verdict_label(cc), "-", "-", cc.noise.empty() ? "-" : cc.noise,
          base ? metric_value_text(*base, c.metric) : "-", cand ? metric_value_text(*cand, c.metric) : "-", cc.case_id};
    if (cc.stats) {
      r[1] = fmt::format("{:.4f} [{:.4f}, {:.4f}]", cc.stats->ratio, cc.stats->ratio_ci.lo, cc.stats->ratio_ci.hi);
      r[2] = stats::p_value_text(cc.stats->p_value);
    }
    rows.push_back(std::move(r));
  }
  std::array<std::size_t, 7> width{};
  for (const auto& r : rows)
    for (std::size_t i = 0; i < r.size(); ++i) width[i] = std::max(width[i], r[i].size());
  std::string out = fmt::format("compare {}: base {} vs candidate {}\n", metric_name(c.metric), c.base_origin,
                                c.cand_origin);
  for (const auto& r : rows) {
    std::string line;
    for (std::size_t i = 0; i < r.size(); ++i)
      line += i + 1 < r.size() ? fmt::format("{:<{}}  ", r[i], width[i]) : r[i];
    out += line + "\n";
  }
  for (const auto& cc : c.cases)
    if (cc.verdict != stats::Verdict::same) out += fmt::format("{} {}: {}\n", compare::verdict_label(cc), cc.case_id, cc.why);
  for (const auto& n : c.notes) out += "note: " + n + "\n";
  out += comparison_summary_line(c) + "\n";
  out += gate.passed ? "gate: pass\n" : "gate: FAIL\n";
  for (const auto& r : gate.reasons) out += "  " + r + "\n";
  for (const auto& n : gate.notes) out += "  (" + n + ")\n";
  return out;
}

}  // namespace assay::report
