// Compares two sets of runs case by case: matches cases by identity (store/case_key.hpp),
// reads the chosen metric from the raw samples of every session, and gives each case its
// verdict with the statistics behind it. The renderers (compare_outputs.hpp) and the gate
// (gate.hpp) work on the Comparison this builds.
#pragma once

#include <map>
#include <optional>
#include <string>
#include <vector>

#include "stats/sample_comparison.hpp"
#include "stats/session_noise.hpp"
#include "store/run_set.hpp"

namespace assay::compare {

// What is compared per sample; time and cycles lower-is-better, the rates higher-is-better.
// cycles: time x the sample's probed SM clock, blind to the clock a power cap chose; it gates
// only beside time (also_cycles): a change that costs clock is a real regression.
enum class Metric { time, tflops, gbs, pct_of_peak, cycles };
std::optional<Metric> parse_metric(const std::string& name);  // "time", "tflops", "gbs", "cycles"
std::string metric_name(Metric m);                            // ... and "pct_of_peak"
stats::Better metric_direction(Metric m);

struct CompareOptions {
  stats::Thresholds thresholds;
  Metric metric = Metric::time;
  // Compare % of peak and match cases across GPU models (--normalize peak).
  bool normalize_peak = false;
  std::string filter;  // ECMAScript regex over case ids; "" for all
  // The between-session spread of each case key, learned from the history
  // (compare/history_noise.hpp); single-session comparisons use it. Empty: none known.
  std::map<std::string, stats::SessionSpread> session_spreads;
  std::string history_origin;  // the history they came from, for the notes; "" when none was read
  // --also-cycles (time only): time and cycles each at alpha / 2, joined by
  // stats::combine_time_and_cycles; time's stats shown, cycles' in `why`.
  bool also_cycles = false;
};

struct CaseComparison {
  std::string case_id;  // the candidate's id (the base's for GONE)
  std::string key;      // the matching identity
  std::string bench, backend;
  stats::Verdict verdict = stats::Verdict::ambiguous;
  std::optional<stats::Summary> base, cand;      // of the metric, all sessions pooled
  std::optional<stats::SampleComparison> stats;  // matched cases with timings on both sides
  std::string why;                               // one line
  // Which noise the verdict allowed for (docs/compare.md, Noise models): "within-session",
  // "history (N sessions)", "sessions (N+M)", "paired rounds (N pairs)"; "" without statistics.
  std::string noise;
  // False when only the spread within one session was known: drift between sessions (clock and
  // power state) could look like a change, so such a verdict is marked and does not fail the gate.
  bool drift_covered = true;
};

struct Comparison {
  std::string base_label, cand_label, base_origin, cand_origin;
  Metric metric = Metric::time;
  stats::Thresholds thresholds;
  std::vector<CaseComparison> cases;  // candidate order, then the GONE cases in base order
  std::optional<double> geomean_ratio;  // of cand / base over the cases with statistics
  std::size_t geomean_cases = 0;
  std::vector<std::string> notes;       // e.g. the two sides ran on different GPU models

  std::size_t count(stats::Verdict v) const;
};

// "SLOWER", or "SLOWER?" for a FASTER/SLOWER verdict whose noise did not cover drift between
// sessions (drift_covered false): what the renderings show.
std::string verdict_label(const CaseComparison& c);

// InputError for --also-cycles with another metric or --normalize.
void check_also_cycles(const CompareOptions& options);

// InputError for a bad filter regex, a metric the documents cannot give (--normalize peak
// without the peak), or check_also_cycles.
Comparison compare_runs(const store::RunSet& base, const store::RunSet& cand, const CompareOptions& options);

// "3 FASTER, 1 SLOWER, ... 0 FAILED; geomean time ratio cand/base 0.9712 over 14 cases"
std::string comparison_summary_line(const Comparison& c);

}  // namespace assay::compare
