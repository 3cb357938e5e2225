// The data behind the HTML report (`assay report`, docs/report.md): what the page's script
// draws, as one JSON object. Everything that needs the samples (box statistics, outliers) is
// computed here, so that the page holds a few numbers per case instead of every sample.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "compare/comparison.hpp"
#include "compare/gate.hpp"
#include "report/history_report.hpp"
#include "store/run_set.hpp"

namespace assay::report {

struct ReportHistory {
  std::string path;                // the database read
  std::string since_utc;           // "" for all runs
  std::vector<CaseTrend> trends;   // of the cases in the results documents; may be empty
};

struct ReportInputs {
  std::string title;                      // "" for one made from the suites
  std::string generated_utc;              // "YYYY-MM-DDTHH:MM:SSZ"
  std::vector<store::RunSet> runs;        // the RESULTS arguments, in order
  std::optional<compare::Comparison> comparison;  // --compare BASE: BASE against all RESULTS
  compare::GateResult gate;
  std::optional<ReportHistory> history;   // --history
};

// At most this many outlying samples per case are kept for the distribution plot (the most
// extreme ones; their total count is kept beside them).
inline constexpr std::size_t kMaxOutliersShown = 40;

// The whole model (schema "assay.report", docs/report.md). Never fails on a case that has no
// samples or no summary: such a case is listed, not plotted.
nlohmann::json report_data(const ReportInputs& in);

}  // namespace assay::report
