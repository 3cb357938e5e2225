// CSV (RFC 4180): one row per compared case with every statistic, for spreadsheets and scripts.
#include <fmt/format.h>

#include <cmath>

#include "report/compare_outputs.hpp"

namespace assay::report {
namespace {

std::string field(const std::string& s) {
  if (s.find_first_of(",\"\n\r") == std::string::npos) return s;
  std::string out = "\"";
  for (char ch : s) out += ch == '"' ? std::string("\"\"") : std::string(1, ch);
  return out + "\"";
}

// Empty where there is no finite value (an interval that cannot reach its confidence).
std::string number(double v) { return std::isfinite(v) ? fmt::format("{:.10g}", v) : std::string(); }

}  // namespace

std::string comparison_csv(const Comparison& c) {
  std::string csv =
      "case_id,key,metric,verdict,method,base_median,cand_median,ratio,ratio_ci_lo,ratio_ci_hi,p_value,test,"
      "mann_whitney_p,hl_ratio,hl_ci_lo,hl_ci_hi,cliffs_delta,base_n,cand_n,base_sessions,cand_sessions,noise,"
      "drift_covered,why\n";
  for (const auto& cc : c.cases) {
    std::string row = field(cc.case_id) + "," + field(cc.key) + "," + metric_name(c.metric) + "," +
                      stats::verdict_name(cc.verdict) + ",";
    if (const auto& s = cc.stats) {
      row += stats::method_name(s->method) + "," + number(s->base_median) +
             "," + number(s->cand_median) + "," + number(s->ratio) + "," + number(s->ratio_ci.lo) + "," +
             number(s->ratio_ci.hi) + "," + number(s->p_value) + "," + field(s->test) + "," +
             number(s->mann_whitney_p) + "," + number(s->hl_ratio) + "," + number(s->hl_ratio_ci.lo) + "," +
             number(s->hl_ratio_ci.hi) + "," + number(s->cliffs_delta) + "," + std::to_string(s->base_n) + "," +
             std::to_string(s->cand_n) + "," + std::to_string(s->base_sessions) + "," +
             std::to_string(s->cand_sessions) + ",";
    } else {
      row += "," + (cc.base ? number(cc.base->median) : "") + "," + (cc.cand ? number(cc.cand->median) : "") +
             ",,,,,,,,,,,,,,,";
    }
    csv += row + field(cc.noise) + "," + (cc.noise.empty() ? "" : cc.drift_covered ? "true" : "false") + "," +
           field(cc.why) + "\n";
  }
  return csv;
}

}  // namespace assay::report
