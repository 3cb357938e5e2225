#include "report/report_data.hpp"

#include <algorithm>
#include <cmath>
#include <map>
#include <set>

#include "report/compare_outputs.hpp"
#include "report/markdown.hpp"
#include "stats/summary.hpp"
#include "store/case_key.hpp"

namespace assay::report {

using nlohmann::json;

namespace {

std::string params_text(const std::map<std::string, std::int64_t>& params) {
  std::string s;
  for (const auto& [k, v] : params) s += (s.empty() ? "" : ",") + k + "=" + std::to_string(v);
  return s;
}

// Tukey's box of the samples, relative to their median (so that cases whose times differ by
// orders of magnitude share one axis): quartiles (type 7), whiskers at the most extreme samples
// within 1.5 IQR of the box, and the samples beyond them, the most extreme first, at most
// kMaxOutliersShown.
json sample_box(const std::vector<double>& samples) {
  std::vector<double> s = samples;
  std::sort(s.begin(), s.end());
  const double med = stats::percentile_sorted(s, 50);
  if (!(med > 0)) return nullptr;
  const double q1 = stats::percentile_sorted(s, 25), q3 = stats::percentile_sorted(s, 75);
  const double lo_fence = q1 - 1.5 * (q3 - q1), hi_fence = q3 + 1.5 * (q3 - q1);
  const auto lo = std::lower_bound(s.begin(), s.end(), lo_fence);
  const auto hi = std::upper_bound(s.begin(), s.end(), hi_fence);
  std::vector<double> out;  // below the low fence, then above the high one, each most extreme first
  for (auto it = s.begin(); it != lo; ++it) out.push_back(*it);
  for (auto it = s.end(); it != hi; --it) out.push_back(*(it - 1));
  std::sort(out.begin(), out.end(), [med](double a, double b) { return std::abs(a - med) > std::abs(b - med); });
  const std::size_t total = out.size();
  if (out.size() > kMaxOutliersShown) out.resize(kMaxOutliersShown);
  json rel = json::array();
  for (double v : out) rel.push_back(v / med);
  return {{"whisker_lo", *lo / med}, {"q1", q1 / med}, {"median", 1.0}, {"q3", q3 / med},
          {"whisker_hi", *(hi - 1) / med}, {"outliers", rel}, {"outliers_total", total}};
}

json case_json(const CaseRecord& c, std::size_t run, std::size_t session) {
  const std::string params = params_text(c.params);
  json j = {{"run", run},         {"session", session},   {"id", c.id},           {"bench", c.bench},
            {"workload", c.workload}, {"backend", c.backend}, {"variant", c.variant}, {"dtype", c.dtype},
            {"params", c.params},  {"shape", params},    {"point", c.dtype + (params.empty() ? "" : " " + params)},
            {"status", case_status_name(c.status)}, {"reason", c.reason}, {"baseline", c.baseline}};
  const bool timed = c.status == CaseStatus::ok && c.summary && c.measurement && !c.measurement->samples_ns.empty();
  j["plotted"] = timed;
  if (c.measurement) {
    j["mode"] = c.measurement->mode;
    j["stop_reason"] = c.measurement->stop_reason;
  }
  if (timed) {
    const stats::Summary& s = *c.summary;
    j["n"] = s.n;
    j["median_ns"] = s.median;
    j["ci_lo_ns"] = s.median_ci.lo;
    j["ci_hi_ns"] = s.median_ci.hi;
    j["box"] = sample_box(c.measurement->samples_ns);
  }
  if (c.derived) {
    const DerivedRecord& d = *c.derived;
    j["flops"] = d.flops;
    j["min_bytes"] = d.min_bytes;
    if (timed) {
      j["tflops"] = d.tflops;
      j["gbs"] = d.gbs;
      j["pct_of_peak"] = d.pct_of_peak;
    }
    j["peak_tflops"] = d.peak_tflops;
  }
  if (c.speedup_vs_baseline) j["speedup"] = *c.speedup_vs_baseline;
  return j;
}

json device_json(const DeviceRecord& d) {
  return {{"kind", d.kind}, {"name", d.name}, {"compute_capability", d.compute_capability},
          {"sm_count", d.sm_count}, {"max_sm_clock_mhz", d.max_sm_clock_mhz}, {"peak_gbs", peak_memory_gbs(d)}};
}

// Per bench (in order of first appearance): its baseline and the parameters that vary over its
// cases, the axes the speedup plot is drawn over.
json benches_json(const std::vector<store::RunSet>& runs) {
  std::vector<std::string> order;
  std::map<std::string, std::map<std::string, std::set<std::int64_t>>> values;
  std::map<std::string, std::string> baseline, workload;
  for (const auto& rs : runs)
    for (const auto& doc : rs.sessions)
      for (const auto& c : doc.cases) {
        if (!values.count(c.bench)) order.push_back(c.bench);
        auto& v = values[c.bench];
        for (const auto& [k, x] : c.params) v[k].insert(x);
        if (!c.baseline.empty()) baseline[c.bench] = c.baseline;
        workload[c.bench] = c.workload;
      }
  json out = json::array();
  for (const auto& b : order) {
    json axes = json::array();
    for (const auto& [k, xs] : values[b])
      if (xs.size() > 1) axes.push_back(k);
    out.push_back({{"name", b}, {"workload", workload[b]}, {"baseline", baseline[b]}, {"axes", axes}});
  }
  return out;
}

json comparison_json(const compare::Comparison& c, const compare::GateResult& gate) {
  json cases = json::array();
  for (const auto& cc : c.cases) {
    json j = {{"case_id", cc.case_id}, {"key", cc.key}, {"bench", cc.bench}, {"backend", cc.backend},
              {"verdict", stats::verdict_name(cc.verdict)}, {"why", cc.why}, {"noise", cc.noise},
              {"drift_covered", cc.drift_covered}};
    const auto [base, cand] = shown_medians(cc);
    if (base) j["base"] = *base;
    if (cand) j["cand"] = *cand;
    if (cc.stats) {
      const stats::SampleComparison& s = *cc.stats;
      j["ratio"] = s.ratio;
      j["ratio_lo"] = s.ratio_ci.lo;
      j["ratio_hi"] = s.ratio_ci.hi;
      j["p_value"] = s.p_value;
      j["test"] = s.test;
      j["method"] = stats::method_name(s.method);
      j["sessions"] = {s.base_sessions, s.cand_sessions};
    }
    cases.push_back(std::move(j));
  }
  json j = {{"base_label", c.base_label}, {"cand_label", c.cand_label}, {"base_origin", c.base_origin},
            {"cand_origin", c.cand_origin}, {"metric", compare::metric_name(c.metric)},
            {"lower_is_better", compare::metric_direction(c.metric) == stats::Better::lower},
            {"floor", c.thresholds.floor}, {"alpha", c.thresholds.alpha}, {"confidence", c.thresholds.confidence},
            {"summary", compare::comparison_summary_line(c)}, {"notes", c.notes}, {"cases", cases},
            {"gate", {{"passed", gate.passed}, {"reasons", gate.reasons}}}};
  return j;
}

// The trends of the cases in the documents only: the history holds every bench ever run.
json history_json(const ReportHistory& h, const std::vector<store::RunSet>& runs) {
  std::set<std::string> keys;
  for (const auto& rs : runs)
    for (const auto& doc : rs.sessions)
      for (const auto& c : doc.cases) keys.insert(store::case_key(doc.run, c).text());
  json trends = json::array();
  for (const auto& t : h.trends) {
    if (!keys.count(t.key)) continue;
    json points = json::array(), cps = json::array();
    for (const auto& p : t.points)
      points.push_back({{"run_group", p.run_group}, {"started_utc", p.started_utc}, {"git_commit", p.git_commit},
                        {"tag", p.tag}, {"median_ns", p.median_ns}, {"sessions", p.sessions}});
    for (const auto& cp : t.change_points)
      cps.push_back({{"index", cp.index}, {"magnitude", cp.magnitude}, {"p_value", cp.p_value},
                     {"mean_before", cp.mean_before}, {"mean_after", cp.mean_after}});
    trends.push_back({{"case_id", t.case_id}, {"key", t.key}, {"points", points}, {"change_points", cps}});
  }
  return {{"path", h.path}, {"since_utc", h.since_utc}, {"trends", trends}};
}

}  // namespace

json report_data(const ReportInputs& in) {
  json runs = json::array(), cases = json::array();
  std::set<std::string> suites;
  for (std::size_t r = 0; r < in.runs.size(); ++r) {
    const store::RunSet& rs = in.runs[r];
    json sessions = json::array();
    for (std::size_t s = 0; s < rs.sessions.size(); ++s) {
      const ResultsDocument& doc = rs.sessions[s];
      suites.insert(doc.run.suite_name);
      sessions.push_back({{"suite", doc.run.suite_name}, {"tag", doc.run.tag}, {"started_utc", doc.run.started_utc},
                          {"git_commit", doc.run.git_commit}, {"git_dirty", doc.run.git_dirty},
                          {"host", doc.run.host}, {"mode", mode_text(doc)}, {"assay_version", doc.run.assay_version},
                          {"device", device_json(doc.run.device)}, {"cases", doc.cases.size()}});
      for (const auto& c : doc.cases) cases.push_back(case_json(c, r, s));
    }
    runs.push_back({{"label", rs.label}, {"origin", rs.origin}, {"sessions", sessions}});
  }
  std::string title = in.title;
  if (title.empty()) {
    for (const auto& s : suites) title += (title.empty() ? "" : ", ") + s;
    title = "assay report: " + (title.empty() ? std::string("no suite") : title);
  }
  json j = {{"schema", "assay.report"}, {"schema_version", 1}, {"title", title}, {"generated_utc", in.generated_utc},
            {"runs", runs}, {"benches", benches_json(in.runs)}, {"cases", cases}};
  j["comparison"] = in.comparison ? comparison_json(*in.comparison, in.gate) : json(nullptr);
  j["history"] = in.history ? history_json(*in.history, in.runs) : json(nullptr);
  return j;
}

}  // namespace assay::report
