// Noise learned from the history: for each case of the compared suite, the between-session
// spread of its median over the earlier sessions the history holds (same suite hash; the GPU
// model and the mode are part of the case key), without the sessions being compared.
// compare_runs uses it to widen single-session verdicts (stats/session_noise.hpp).
#pragma once

#include <map>
#include <string>
#include <vector>

#include "stats/session_noise.hpp"
#include "store/history_db.hpp"
#include "store/run_set.hpp"

namespace assay::compare {

std::map<std::string, stats::SessionSpread> history_spreads(store::HistoryDb& db, const store::RunSet& base,
                                                            const store::RunSet& cand);

// The same from session medians already grouped by case key (oldest first): each case's spread
// (stats::session_spread), then floored at the median spread of the cases (see the .cpp).
std::map<std::string, stats::SessionSpread> spreads_from_medians(
    const std::map<std::string, std::vector<double>>& medians_in_time_order);

}  // namespace assay::compare
