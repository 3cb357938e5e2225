// The combined summary of the sessions of `assay run --repeat N`: per case, the median of each
// session, the median of those medians, and the spread between sessions, which shows how much
// a single run can be trusted. Written as sessions.json (schema "assay.sessions") and
// sessions.md beside the session documents.
#pragma once

#include <string>
#include <vector>

#include "core/results.hpp"

namespace assay::report {

struct SessionCase {
  std::string case_id, key;
  std::vector<double> session_medians_ns;  // sessions where the case is ok, in session order
  double median_of_medians_ns = 0;
  double spread_rel = 0;  // (max - min) / median of the session medians
  // Per session (same order), the median SM clock of the case's samples (the clock probe; 0
  // where the sampler has none), and their median over the sessions that have one (0 if none):
  // under the power cap a time differs by clock as much as by cycles.
  std::vector<double> session_sm_clock_mhz;
  double median_sm_clock_mhz = 0;
  // Against the bench's baseline: each session's speedup_vs_baseline and, at one clock,
  // cycles_speedup_vs_baseline (the sessions that have one, in order), and their medians (0: none).
  std::vector<double> session_speedups, session_clock_speedups;
  double median_speedup = 0, median_clock_speedup = 0;
};

struct SessionsSummary {
  std::string group_id;
  std::vector<std::string> session_paths;
  std::vector<SessionCase> cases;  // in plan order
};

SessionsSummary summarize_sessions(const std::string& group_id, const std::vector<ResultsDocument>& sessions,
                                   const std::vector<std::string>& paths);

std::string sessions_json(const SessionsSummary& s);
std::string sessions_markdown(const SessionsSummary& s);

}  // namespace assay::report
