#include "report/history_report.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <map>
#include <regex>
#include <unordered_map>

#include "core/error.hpp"
#include "report/compare_outputs.hpp"

namespace assay::report {
namespace {

std::string utc_text(std::time_t t) {
  std::tm tm{};
  gmtime_r(&t, &tm);
  char buf[32];
  std::strftime(buf, sizeof buf, "%Y-%m-%dT%H:%M:%SZ", &tm);
  return buf;
}

std::string short_commit(const std::string& c) { return c.empty() ? "-" : c.substr(0, 10); }

}  // namespace

std::string since_to_utc(const std::string& since, std::time_t now) {
  std::smatch m;
  if (std::regex_match(since, m, std::regex("([0-9]{1,6})([mhdw])"))) {
    const long n = std::stol(m[1]);
    const long unit = m[2] == "m" ? 60 : m[2] == "h" ? 3600 : m[2] == "d" ? 86400 : 7 * 86400;
    return utc_text(now - static_cast<std::time_t>(n * unit));
  }
  // A calendar date (and time): month 1-12, a day the month has, hh 0-23, mm and ss 0-59.
  if (std::regex_match(since, m, std::regex("([0-9]{4})-([0-9]{2})-([0-9]{2})(T([0-9]{2}):([0-9]{2}):([0-9]{2})Z)?"))) {
    const int y = std::stoi(m[1]), mo = std::stoi(m[2]), d = std::stoi(m[3]);
    const bool leap = (y % 4 == 0 && y % 100 != 0) || y % 400 == 0;
    const int days[] = {31, leap ? 29 : 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31};
    const bool date_ok = mo >= 1 && mo <= 12 && d >= 1 && d <= days[mo - 1];
    const bool time_ok = !m[4].matched || (std::stoi(m[5]) <= 23 && std::stoi(m[6]) <= 59 && std::stoi(m[7]) <= 59);
    if (!date_ok || !time_ok) throw InputError("--since '" + since + "': not a calendar date and time (UTC)");
    return m[4].matched ? since : since + "T00:00:00Z";
  }
  throw InputError("--since '" + since + "': use a duration (30d, 12h, 2w, 45m) or a UTC date (2026-11-01)");
}

std::vector<CaseTrend> case_trends(const std::vector<store::CasePoint>& points, const std::string& case_regex,
                                   const stats::ChangePointOptions& options) {
  std::optional<std::regex> re;
  try {
    if (!case_regex.empty()) re.emplace(case_regex, std::regex::ECMAScript);
  } catch (const std::regex_error& e) {
    throw InputError("--case '" + case_regex + "': not a valid regular expression: " + e.what());
  }
  // key -> its trend; per trend, group -> the session medians. Points arrive oldest first.
  std::vector<CaseTrend> trends;
  std::map<std::string, std::size_t> by_key;
  std::vector<std::map<std::string, std::vector<double>>> medians;
  std::unordered_map<std::string, bool> matches;  // the regex once per case id, not once per row
  for (const auto& p : points) {
    if (re) {
      auto [m, fresh] = matches.try_emplace(p.case_id, false);
      if (fresh) m->second = std::regex_search(p.case_id, *re);
      if (!m->second) continue;
    }
    auto [it, inserted] = by_key.try_emplace(p.case_key, trends.size());
    if (inserted) {
      trends.push_back({p.case_id, p.case_key, {}, {}});
      medians.emplace_back();
    }
    CaseTrend& t = trends[it->second];
    auto& group = medians[it->second][p.run_group];
    if (group.empty()) t.points.push_back({p.run_id, p.run_group, p.started_utc, p.git_commit, p.tag, 0, 0});
    group.push_back(p.median_ns);
  }
  for (std::size_t i = 0; i < trends.size(); ++i) {
    std::vector<double> series;
    for (auto& tp : trends[i].points) {
      const auto& m = medians[i][tp.run_group];
      tp.median_ns = stats::median_of(m);
      tp.sessions = m.size();
      series.push_back(tp.median_ns);
    }
    trends[i].change_points = stats::detect_change_points(series, options);
  }
  return trends;
}

std::string runs_table(const std::vector<store::RunRow>& runs) {
  std::string out = fmt::format("{:>6}  {:<20}  {:<12}  {:<16}  {:<10}  {:<8}  {:>7}  {}\n", "run", "started (UTC)",
                                "suite", "tag", "commit", "session", "ok/bad", "gpu");
  for (const auto& r : runs)
    out += fmt::format("{:>6}  {:<20}  {:<12}  {:<16}  {:<10}  {:<8}  {:>7}  {}\n", r.id, r.started_utc, r.suite_name,
                       r.tag.empty() ? "-" : r.tag, short_commit(r.git_commit) + (r.git_dirty ? "+" : ""),
                       fmt::format("{}/{}", r.session_index, r.session_count),
                       fmt::format("{}/{}", r.cases_ok, r.cases_not_ok), r.gpu);
  return out;
}

std::string trends_text(const std::vector<CaseTrend>& trends) {
  std::string out;
  for (const auto& t : trends) {
    const auto& first = t.points.front();
    const auto& last = t.points.back();
    out += fmt::format("{}\n  {} point{}, {} ({}) -> {} ({}), {:+.1f}%\n", t.key, t.points.size(),
                       t.points.size() == 1 ? "" : "s", metric_value_text(first.median_ns, Metric::time),
                       first.started_utc, metric_value_text(last.median_ns, Metric::time), last.started_utc,
                       100 * (last.median_ns / first.median_ns - 1));
    for (const auto& cp : t.change_points) {
      const TrendPoint& at = t.points[cp.index];
      out += fmt::format("  change point at run {} ({}, commit {}, tag {}): {} -> {} ({:+.1f}%, p = {:.2g})\n",
                         at.run_id, at.started_utc, short_commit(at.git_commit), at.tag.empty() ? "-" : at.tag,
                         metric_value_text(cp.mean_before, Metric::time), metric_value_text(cp.mean_after, Metric::time),
                         100 * cp.magnitude, cp.p_value);
    }
  }
  return out;
}

}  // namespace assay::report
