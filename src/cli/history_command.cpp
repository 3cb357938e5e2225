// assay history: the runs recorded, or per-case trends with their change points.
#include <ctime>
#include <iostream>

#include "cli/commands.hpp"
#include "core/error.hpp"
#include "report/history_report.hpp"
#include "store/history_db.hpp"

namespace assay::cli {

namespace {
struct HistoryFlags {
  std::string history, bench, case_regex, since, suite;
  int limit = 20;
  long long window = 50;
  double min_change_pct = 2.0;
  stats::ChangePointOptions cp;
};
}  // namespace

Action add_history_command(CLI::App& app) {
  auto f = std::make_shared<HistoryFlags>();
  CLI::Option* history = app.add_option("--history", f->history, "history database (default $ASSAY_HISTORY or .assay/history.db)");
  app.add_option("--bench", f->bench, "show the trends of this bench's cases");
  app.add_option("--case", f->case_regex, "show the trends of cases whose id matches this regex");
  app.add_option("--since", f->since, "only runs since: 30d, 12h, 2w, 45m, or a UTC date 2026-11-01");
  CLI::Option* suite = app.add_option("--suite", f->suite, "list only runs of this suite");
  CLI::Option* limit = app.add_option("--limit", f->limit, "list at most this many runs (0: all)")->capture_default_str();
  app.add_option("--min-change", f->min_change_pct, "smallest change point reported, in %")->capture_default_str();
  app.add_option("--max-p", f->cp.max_p_value, "largest t-test p-value of a change point")->capture_default_str();
  app.add_option("--window", f->window, "E-divisive window, in runs (at least 4)")->capture_default_str();

  return [f, history, suite, limit]() -> int {
    if (history->count() && f->history.empty()) throw InputError("--history '': name a history database file");
    if (f->window < 4) throw InputError("--window " + std::to_string(f->window) + ": at least 4 runs");
    f->cp.window = static_cast<std::size_t>(f->window);
    if (f->limit < 0) throw InputError("--limit " + std::to_string(f->limit) + ": a count, >= 0 (0: all)");
    if ((!f->bench.empty() || !f->case_regex.empty()) && (suite->count() || limit->count()))
      throw InputError(std::string(suite->count() ? "--suite" : "--limit") +
                       " lists runs: it does not apply to the trends of --bench or --case");
    // E-divisive's first pass keeps candidates up to 10 x --max-p (then the merge holds them to
    // --max-p): 1 would never stop it.
    if (!(f->cp.max_p_value > 0 && f->cp.max_p_value < 1))
      throw InputError("--max-p " + std::to_string(f->cp.max_p_value) + ": a p-value in (0, 1)");
    if (!(f->min_change_pct >= 0)) throw InputError("--min-change " + std::to_string(f->min_change_pct) + ": a change in %, >= 0");
    const std::string since = f->since.empty() ? "" : report::since_to_utc(f->since, std::time(nullptr));
    store::HistoryDb db = store::HistoryDb::open_for_reading(store::history_path(f->history));
    if (db.run_count() == 0) throw InputError(db.path() + ": the history is empty (no run recorded yet)");
    const std::string window = since.empty() ? "" : " since " + since;
    if (f->bench.empty() && f->case_regex.empty()) {
      const auto runs = db.runs({since, f->suite, f->limit});
      if (runs.empty()) throw InputError(db.path() + ": no run" + window + (f->suite.empty() ? "" : " of suite '" + f->suite + "'"));
      std::cout << report::runs_table(runs);
      return 0;
    }
    f->cp.min_magnitude = f->min_change_pct / 100.0;
    const auto trends = report::case_trends(db.case_points(f->bench, since), f->case_regex, f->cp);
    if (trends.empty())
      throw InputError(db.path() + ": no measured case" + (f->bench.empty() ? "" : " of bench '" + f->bench + "'") +
                       (f->case_regex.empty() ? "" : " matching '" + f->case_regex + "'") + window);
    std::cout << report::trends_text(trends);
    return 0;
  };
}

}  // namespace assay::cli
