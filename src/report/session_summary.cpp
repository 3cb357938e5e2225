#include "report/session_summary.hpp"

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include <algorithm>
#include <map>

#include "report/compare_outputs.hpp"
#include "report/sm_clock.hpp"
#include "stats/summary.hpp"
#include "store/case_key.hpp"
#include "store/run_set.hpp"

namespace assay::report {

SessionsSummary summarize_sessions(const std::string& group_id, const std::vector<ResultsDocument>& sessions,
                                   const std::vector<std::string>& paths) {
  SessionsSummary out{group_id, paths, {}};
  std::map<std::string, std::size_t> index;  // key -> position in out.cases
  for (const auto& doc : sessions)
    for (const auto& c : doc.cases) {
      if (c.status != CaseStatus::ok || !c.summary) continue;
      const std::string key = store::case_key(doc.run, c).text();
      auto [it, inserted] = index.try_emplace(key, out.cases.size());
      if (inserted) {
        out.cases.emplace_back();
        out.cases.back().case_id = c.id;
        out.cases.back().key = key;
      }
      SessionCase& sc = out.cases[it->second];
      sc.session_medians_ns.push_back(c.summary->median);
      sc.session_sm_clock_mhz.push_back(c.measurement ? median_sm_clock_mhz(c.measurement->sm_clock_mhz) : 0.0);
      if (c.backend != c.baseline && c.speedup_vs_baseline) sc.session_speedups.push_back(*c.speedup_vs_baseline);
      if (c.backend != c.baseline && c.cycles_speedup_vs_baseline)
        sc.session_clock_speedups.push_back(*c.cycles_speedup_vs_baseline);
    }
  for (auto& sc : out.cases) {
    const auto [lo, hi] = std::minmax_element(sc.session_medians_ns.begin(), sc.session_medians_ns.end());
    sc.median_of_medians_ns = stats::median_of(sc.session_medians_ns);
    sc.spread_rel = (*hi - *lo) / sc.median_of_medians_ns;
    sc.median_sm_clock_mhz = median_sm_clock_mhz(sc.session_sm_clock_mhz);
    if (!sc.session_speedups.empty()) sc.median_speedup = stats::median_of(sc.session_speedups);
    if (!sc.session_clock_speedups.empty()) sc.median_clock_speedup = stats::median_of(sc.session_clock_speedups);
  }
  return out;
}

std::string sessions_json(const SessionsSummary& s) {
  nlohmann::json cases = nlohmann::json::array();
  for (const auto& c : s.cases)
    cases.push_back({{"id", c.case_id},
                     {"key", c.key},
                     {"session_medians_ns", c.session_medians_ns},
                     {"median_of_medians_ns", c.median_of_medians_ns},
                     {"spread_rel", c.spread_rel},
                     {"session_sm_clock_mhz", c.session_sm_clock_mhz},
                     {"median_sm_clock_mhz", c.median_sm_clock_mhz},
                     {"session_speedups", c.session_speedups},
                     {"median_speedup", c.median_speedup},
                     {"session_clock_speedups", c.session_clock_speedups},
                     {"median_clock_speedup", c.median_clock_speedup}});
  const nlohmann::json j = {{"schema", store::kSessionsSchemaName},
                            {"schema_version", 1},
                            {"run_group", s.group_id},
                            {"sessions", s.session_paths},
                            {"cases", cases}};
  return j.dump(1, ' ', false, nlohmann::json::error_handler_t::replace) + "\n";
}

std::string sessions_markdown(const SessionsSummary& s) {
  std::string md = fmt::format("## assay run: {} sessions of `{}`\n\n", s.session_paths.size(), s.group_id);
  md += "| case | sessions | median of session medians | session spread | session medians | SM MHz | speedup | at one clock |\n"
        "|---|---:|---:|---:|---|---:|---:|---:|\n";
  auto ratio = [](double r) { return r > 0 ? fmt::format("{:.3f}x", r) : std::string("-"); };
  for (const auto& c : s.cases) {
    std::string each;
    for (double m : c.session_medians_ns) each += (each.empty() ? "" : ", ") + metric_value_text(m, Metric::time);
    md += fmt::format("| `{}` | {} | {} | {:.2f}% | {} | {} | {} | {} |\n", c.case_id, c.session_medians_ns.size(),
                      metric_value_text(c.median_of_medians_ns, Metric::time), 100 * c.spread_rel, each,
                      sm_clock_text(c.median_sm_clock_mhz), ratio(c.median_speedup), ratio(c.median_clock_speedup));
  }
  md += "\nSession spread: (largest - smallest session median) / median of the session medians. SM MHz: "
        "the median over the sessions of each session's median SM clock (clock probe). Speedup: the median over the "
        "sessions of each session's speedup against the bench's baseline (baseline median / this median); at one "
        "clock: the same of the median cycles (each sample's time x its SM clock), where the power cap moved the "
        "clock between the two (not for memory-bound kernels).\n";
  return md;
}

}  // namespace assay::report
