// Noise learned from the history: for each case of the compared suite, the between-session
// spread of its median over the earlier sessions the history holds (same suite hash; the GPU
// model and the mode are part of the case key), without the sessions being compared.
// compare_runs uses it to widen single-session verdicts (stats/session_noise.hpp).
#pragma once

#include <map>
#include <string>

#include "stats/session_noise.hpp"
#include "store/history_db.hpp"
#include "store/run_set.hpp"

namespace assay::compare {

std::map<std::string, stats::SessionSpread> history_spreads(store::HistoryDb& db, const store::RunSet& base,
                                                            const store::RunSet& cand);

}  // namespace assay::compare
