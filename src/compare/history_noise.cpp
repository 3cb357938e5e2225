#include "compare/history_noise.hpp"

#include <algorithm>
#include <filesystem>
#include <set>
#include <vector>

#include "core/error.hpp"

namespace assay::compare {

std::map<std::string, stats::SessionSpread> history_spreads(store::HistoryDb& db, const store::RunSet& base,
                                                            const store::RunSet& cand) {
  std::set<std::string> hashes, compared;  // the suites compared, and their sessions' start times
  for (const store::RunSet* side : {&base, &cand})
    for (const ResultsDocument& d : side->sessions) {
      hashes.insert(d.run.suite_hash);
      compared.insert(d.run.started_utc);
    }
  std::map<std::string, std::vector<std::pair<std::string, double>>> medians;  // per case key: (start, median)
  for (const std::string& hash : hashes)
    for (const store::CasePoint& p : db.case_points_of_suite(hash))
      if (!compared.count(p.started_utc)) medians[p.case_key].emplace_back(p.started_utc, p.median_ns);
  std::map<std::string, std::vector<double>> in_order;
  for (auto& [key, points] : medians) {
    std::stable_sort(points.begin(), points.end(), [](const auto& a, const auto& b) { return a.first < b.first; });
    for (const auto& p : points) in_order[key].push_back(p.second);
  }
  return spreads_from_medians(in_order);
}

std::map<std::string, stats::SessionSpread> spreads_from_medians(
    const std::map<std::string, std::vector<double>>& medians_in_time_order) {
  std::map<std::string, stats::SessionSpread> spreads;
  for (const auto& [key, m] : medians_in_time_order)
    if (const auto s = stats::session_spread(m)) spreads.emplace(key, *s);
  // A case whose own history is quieter than the suite's typical case is more likely to have had
  // a lucky few sessions than to be immune to what moves a whole session (clock and power state):
  // no case is given less than the median spread of the suite's cases. On the H100 A/A sessions
  // (bench/README.md, gate.toml) this took the false FASTER/SLOWER from 3 of 160 to 1.
  std::vector<double> sigmas;
  for (const auto& [key, s] : spreads) sigmas.push_back(s.sigma_log);
  if (!sigmas.empty()) {
    std::nth_element(sigmas.begin(), sigmas.begin() + static_cast<std::ptrdiff_t>(sigmas.size() / 2), sigmas.end());
    const double typical = sigmas[sigmas.size() / 2];
    for (auto& [key, s] : spreads) s.sigma_log = std::max(s.sigma_log, typical);
  }
  return spreads;
}

std::string use_history_noise(CompareOptions& options, const std::string& path, const store::RunSet& base,
                              const store::RunSet& cand) {
  if (options.normalize_peak || !std::filesystem::is_regular_file(path)) return {};
  try {
    store::HistoryDb db = store::HistoryDb::open_for_reading(path);
    options.session_spreads = history_spreads(db, base, cand);
    options.history_origin = path;
    return {};
  } catch (const InputError& e) {
    return e.what();
  }
}

}  // namespace assay::compare
