// What `assay history` shows: the runs recorded, and per case the trend of its median over
// runs with the change points in it, each named by run, commit and tag.
#pragma once

#include <ctime>
#include <string>
#include <vector>

#include "stats/change_points.hpp"
#include "store/history_db.hpp"

namespace assay::report {

// "30d", "12h", "2w", "45m", or a date "2026-11-01" / time "2026-11-01T08:00:00Z", to the UTC
// time "YYYY-MM-DDTHH:MM:SSZ" it means, relative to `now`. InputError for anything else.
std::string since_to_utc(const std::string& since, std::time_t now);

// One point per run group (the sessions of a repeat count once: the median of their medians).
struct TrendPoint {
  std::int64_t run_id = 0;  // the group's first run
  std::string run_group, started_utc, git_commit, tag;
  double median_ns = 0;
  std::size_t sessions = 0;
};

struct CaseTrend {
  std::string case_id, key;
  std::vector<TrendPoint> points;  // oldest first
  std::vector<stats::ChangePoint> change_points;
};

// Groups the points by case (key) and run group, oldest first, keeps the cases whose id matches
// `case_regex` ("" for all; InputError when invalid), and finds the change points of each.
std::vector<CaseTrend> case_trends(const std::vector<store::CasePoint>& points, const std::string& case_regex,
                                   const stats::ChangePointOptions& options);

std::string runs_table(const std::vector<store::RunRow>& runs);
std::string trends_text(const std::vector<CaseTrend>& trends);

}  // namespace assay::report
