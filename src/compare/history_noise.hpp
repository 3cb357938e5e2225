// Noise learned from the history: for each case of the compared suite, the between-session
// spread of its median over the earlier sessions the history holds (same suite hash; the GPU
// model and the mode are part of the case key), without the sessions being compared.
// compare_runs uses it to widen single-session verdicts (stats/session_noise.hpp).
#pragma once

#include <map>
#include <string>
#include <vector>

#include "compare/comparison.hpp"
#include "stats/session_noise.hpp"
#include "store/history_db.hpp"
#include "store/run_set.hpp"

namespace assay::compare {

std::map<std::string, stats::SessionSpread> history_spreads(store::HistoryDb& db, const store::RunSet& base,
                                                            const store::RunSet& cand);

// What `compare` and `report --compare` do with the history at `path`: fill options'
// session_spreads and history_origin from it when that file exists (none is no error: the
// verdicts then say that one session cannot tell drift from change). "" then, or why a file
// there could not be read (empty, another program's), for a note: that costs the verdicts the
// history's noise, not the comparison. Nothing with --normalize peak (cases of other GPUs).
std::string use_history_noise(CompareOptions& options, const std::string& path, const store::RunSet& base,
                              const store::RunSet& cand);

// The same from session medians already grouped by case key (oldest first): each case's spread
// (stats::session_spread), then floored at the median spread of the cases (see the .cpp).
std::map<std::string, stats::SessionSpread> spreads_from_medians(
    const std::map<std::string, std::vector<double>>& medians_in_time_order);

}  // namespace assay::compare
