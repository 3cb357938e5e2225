// assay report RESULTS... [--compare BASE] [--history] -o report.html: one self-contained HTML
// file with the plots of docs/report.md.
#include <ctime>
#include <filesystem>
#include <iostream>
#include <map>
#include <set>

#include "cli/commands.hpp"
#include "cli/gate_flags.hpp"
#include "core/atomic_file.hpp"
#include "core/error.hpp"
#include "compare/comparison.hpp"
#include "compare/gate.hpp"
#include "compare/history_noise.hpp"
#include "report/history_report.hpp"
#include "report/html_report.hpp"
#include "store/document_file.hpp"
#include "store/history_db.hpp"
#include "store/run_set.hpp"

namespace assay::cli {

namespace {
struct ReportFlags {
  std::vector<std::string> results;
  std::string base, out, history_db, since, title, metric = "time";
  bool history = false, no_history_noise = false, also_cycles = false;
  double floor_pct = 2.0;
  double min_change_pct = 2.0;
};

std::string utc_now() {
  const std::time_t t = std::time(nullptr);
  std::tm tm{};
  gmtime_r(&t, &tm);
  char buf[32];
  std::strftime(buf, sizeof buf, "%Y-%m-%dT%H:%M:%SZ", &tm);
  return buf;
}
}  // namespace

Action add_report_command(CLI::App& app) {
  auto f = std::make_shared<ReportFlags>();
  app.add_option("results", f->results,
                 "results: files, folders of sessions, or tags or commits in the history (as assay compare takes them)")
      ->required();
  app.add_option("-o,--out", f->out, "the HTML file to write")->required();
  app.add_option("--compare", f->base, "compare all RESULTS (as one candidate) against this base; the same kinds as RESULTS");
  app.add_flag("--history", f->history, "add the trends of these cases from the history, with change points");
  app.add_option("--history-db", f->history_db, "history database (default $ASSAY_HISTORY or .assay/history.db)");
  app.add_option("--since", f->since, "history: only runs since 30d, 12h, 2w, 45m, or a UTC date 2026-11-01");
  CLI::Option* min_change =
      app.add_option("--min-change", f->min_change_pct, "history: smallest change point shown, in %")->capture_default_str();
  app.add_option("--floor", f->floor_pct, "--compare: practical floor in %, as assay compare")->capture_default_str();
  app.add_option("--metric", f->metric, "--compare: time, tflops, gbs or cycles, as assay compare")
      ->check(CLI::IsMember({"time", "tflops", "gbs", "cycles"}))
      ->capture_default_str();
  app.add_flag("--also-cycles", f->also_cycles, "--compare: judge time and cycles together, as assay compare");
  app.add_flag("--no-history-noise", f->no_history_noise,
               "--compare: do not learn the between-session spread from the history, as assay compare");
  app.add_option("--title", f->title, "the page's title (default: from the suites)");

  return [f, min_change]() -> int {
    // A build without the charting library cannot write the page: say so before any work.
    const report::HtmlAssets& assets = report::html_assets();
    if (!assets.missing.empty()) throw InternalError("assay report: " + assets.missing);
    if (f->out.empty()) throw InputError("-o '': name a file to write");
    if (std::filesystem::is_directory(f->out)) throw InputError("-o '" + f->out + "': is a folder, not a file");
    if (!(f->floor_pct >= 0 && f->floor_pct < 100)) throw InputError("--floor: a percentage in [0, 100)");
    if (!f->history && !f->since.empty()) throw InputError("--since: only with --history");
    if (!f->history && min_change->count() > 0) throw InputError("--min-change: only with --history");
    if (!(f->min_change_pct >= 0))  // as assay history: NaN or a negative size had been taken
      throw InputError("--min-change " + std::to_string(f->min_change_pct) + ": a change in %, >= 0");
    if (f->base.empty() && (f->also_cycles || f->no_history_noise))
      throw InputError(std::string(f->also_cycles ? "--also-cycles" : "--no-history-noise") + ": only with --compare");

    // -o must not replace a document the page is made from (it would be lost, HTML in its place):
    // an argument itself, or a document in an argument's folder or in a session folder inside it.
    for (const auto& arg : f->results)
      if (output_replaces(f->out, arg))
        throw InputError("-o '" + f->out + "': is one of the RESULTS, which the page would overwrite");
    if (!f->base.empty() && output_replaces(f->out, f->base))
      throw InputError("-o '" + f->out + "': is the --compare BASE, which the page would overwrite");
    const std::string history_path = store::history_path(f->history_db);
    if (output_replaces(f->out, history_path))
      throw InputError("-o '" + f->out + "': is the history database, which the page would overwrite");
    report::ReportInputs in;
    in.title = f->title;
    in.generated_utc = utc_now();
    for (const auto& arg : f->results) in.runs.push_back(store::load_run_set(arg, history_path));
    const store::RunSet base_set = f->base.empty() ? store::RunSet{} : store::load_run_set(f->base, history_path);
    // As assay compare: a profile document holds no timings, and a session given twice (in two
    // arguments, or on both sides) would count twice in the comparison's noise model.
    std::map<std::string, std::string> seen;  // session_identity -> the argument that gave it
    std::vector<const store::RunSet*> sets;
    for (const auto& rs : in.runs) sets.push_back(&rs);
    if (!f->base.empty()) sets.push_back(&base_set);
    for (const store::RunSet* set : sets)
      for (const auto& doc : set->sessions) {
        if (!f->base.empty() && doc.run.mode == "profile")
          throw InputError(set->label + ": an `assay profile` document (run mode \"profile\") holds no timings to compare");
        const auto [it, fresh] = seen.emplace(store::session_identity(doc), set->label);
        if (!fresh)
          throw InputError(set->label + " and " + it->second + " hold the same session (identical documents); give it once");
      }

    if (!f->base.empty()) {
      // All RESULTS together are the candidate: their documents are its sessions.
      store::RunSet cand;
      for (const auto& rs : in.runs) {
        cand.label += (cand.label.empty() ? "" : " + ") + rs.label;
        cand.origin += (cand.origin.empty() ? "" : "; ") + rs.origin;
        cand.sessions.insert(cand.sessions.end(), rs.sessions.begin(), rs.sessions.end());
      }
      compare::CompareOptions options;
      options.thresholds.floor = f->floor_pct / 100.0;
      options.metric = *compare::parse_metric(f->metric);
      options.also_cycles = f->also_cycles;
      const store::RunSet& base = base_set;
      // The verdicts `assay compare` gives: with the history's between-session spreads.
      const std::string unusable = f->no_history_noise ? "" : compare::use_history_noise(options, history_path, base, cand);
      in.comparison = compare::compare_runs(base, cand, options);
      if (!unusable.empty()) in.comparison->notes.push_back("no between-session spread from the history: " + unusable);
      in.gate = compare::apply_gate(*in.comparison, {});
    }

    if (f->history) {
      report::ReportHistory h;
      h.since_utc = f->since.empty() ? "" : report::since_to_utc(f->since, std::time(nullptr));
      store::HistoryDb db = store::HistoryDb::open_for_reading(history_path);
      h.path = db.path();
      std::set<std::string> benches;
      for (const auto& rs : in.runs)
        for (const auto& doc : rs.sessions)
          for (const auto& c : doc.cases) benches.insert(c.bench);
      stats::ChangePointOptions cp;
      cp.min_magnitude = f->min_change_pct / 100.0;
      for (const auto& bench : benches) {
        auto trends = report::case_trends(db.case_points(bench, h.since_utc), "", cp);
        h.trends.insert(h.trends.end(), trends.begin(), trends.end());
      }
      in.history = std::move(h);
    }

    const std::string page = report::render_html_report(in, assets);
    write_file_atomically(f->out, page);
    std::size_t n = 0;
    for (const auto& rs : in.runs)
      for (const auto& doc : rs.sessions) n += doc.cases.size();
    std::cout << "assay report: wrote " << f->out << " (" << page.size() / 1024 << " KiB, " << n << " cases"
              << (in.comparison ? ", a comparison" : "") << (in.history ? ", the history" : "") << ")\n";
    return 0;
  };
}

}  // namespace assay::cli
