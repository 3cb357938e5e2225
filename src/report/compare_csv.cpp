// CSV (RFC 4180): one row per compared case with every statistic, for spreadsheets and scripts.
#include <fmt/format.h>

#include "report/compare_outputs.hpp"

namespace assay::report {
namespace {

std::string field(const std::string& s) {
  if (s.find_first_of(",\"\n") == std::string::npos) return s;
  std::string out = "\"";
  for (char ch : s) out += ch == '"' ? std::string("\"\"") : std::string(1, ch);
  return out + "\"";
}

std::string number(double v) { return fmt::format("{:.10g}", v); }

}  // namespace

std::string comparison_csv(const Comparison& c) {
  std::string csv =
      "case_id,key,metric,verdict,base_median,cand_median,ratio,ratio_ci_lo,ratio_ci_hi,hl_ratio,hl_ci_lo,hl_ci_hi,"
      "p_value,p_method,cliffs_delta,base_n,cand_n,base_sessions,cand_sessions,why\n";
  for (const auto& cc : c.cases) {
    std::string row = field(cc.case_id) + "," + field(cc.key) + "," + metric_name(c.metric) + "," +
                      stats::verdict_name(cc.verdict) + ",";
    row += (cc.base ? number(cc.base->median) : "") + "," + (cc.cand ? number(cc.cand->median) : "") + ",";
    if (const auto& s = cc.stats) {
      row += number(s->ratio) + "," + number(s->ratio_ci.lo) + "," + number(s->ratio_ci.hi) + "," + number(s->hl_ratio) +
             "," + number(s->hl_ratio_ci.lo) + "," + number(s->hl_ratio_ci.hi) + "," + number(s->p_value) + "," +
             (s->p_exact ? "exact" : "normal") + "," + number(s->cliffs_delta) + "," + std::to_string(s->base_n) + "," +
             std::to_string(s->cand_n) + "," + std::to_string(s->base_sessions) + "," +
             std::to_string(s->cand_sessions) + ",";
    } else {
      row += ",,,,,,,,,,,,,";
    }
    csv += row + field(cc.why) + "\n";
  }
  return csv;
}

}  // namespace assay::report
