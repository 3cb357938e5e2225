// assay compare BASE CAND: verdicts per case, the gate, and the CI outputs.
#include <filesystem>
#include <iostream>

#include "cli/commands.hpp"
#include "core/atomic_file.hpp"
#include "core/error.hpp"
#include "report/compare_outputs.hpp"
#include "compare/comparison.hpp"
#include "compare/gate.hpp"
#include "store/history_db.hpp"
#include "store/run_set.hpp"

namespace assay::cli {

namespace {
struct CompareFlags {
  std::string base, cand, history, metric = "time", normalize, filter, require;
  std::vector<std::string> fail_on;
  std::string markdown, junit, bmf, csv;
  double floor_pct = 2.0;
  compare::CompareOptions options;
  bool quiet = false;
};

stats::Verdict verdict_flag(const std::string& flag, const std::string& value) {
  const auto v = compare::parse_verdict(value);
  if (!v) throw InputError(flag + " '" + value + "': use faster, slower, same, ambiguous, new or gone");
  return *v;
}
}  // namespace

Action add_compare_command(CLI::App& app) {
  auto f = std::make_shared<CompareFlags>();
  stats::Thresholds& t = f->options.thresholds;
  app.add_option("base", f->base, "base: a results file, a folder of them (sessions), or a tag or commit in the history")
      ->required();
  app.add_option("candidate", f->cand, "candidate: the same kinds as base")->required();
  app.add_option("--fail-on", f->fail_on, "exit 1 when any case has one of these verdicts (e.g. slower,ambiguous)")
      ->delimiter(',');
  auto* require = app.add_option("--require", f->require, "exit 1 unless every compared case has this verdict (e.g. faster)");
  app.add_option("--floor", f->floor_pct, "practical floor in %: smaller changes are SAME")->capture_default_str();
  app.add_option("--alpha", t.alpha, "false-alarm rate: Mann-Whitney p must be below it")->capture_default_str();
  app.add_option("--confidence", t.confidence, "confidence of the intervals")->capture_default_str();
  app.add_option("--resamples", t.resamples, "bootstrap resamples of the ratio of medians")->capture_default_str();
  app.add_option("--seed", t.seed, "bootstrap seed")->capture_default_str();
  app.add_option("--metric", f->metric, "time (lower is better), tflops or gbs (higher is better)")
      ->check(CLI::IsMember({"time", "tflops", "gbs"}))
      ->capture_default_str();
  app.add_option("--normalize", f->normalize, "'peak': compare % of peak, also across GPU models")
      ->check(CLI::IsMember({"peak"}));
  app.add_option("--history", f->history, "history database for tags and commits (default $ASSAY_HISTORY or .assay/history.db)");
  auto* markdown = app.add_option("--markdown", f->markdown, "write Markdown (PR comment, job summary) to this file");
  auto* junit = app.add_option("--junit", f->junit, "write JUnit XML (one testcase per case) to this file");
  auto* bmf = app.add_option("--bmf", f->bmf, "write Bencher Metric Format JSON of the candidate to this file");
  auto* csv = app.add_option("--csv", f->csv, "write CSV (one row per case, every statistic) to this file");
  auto* filter = app.add_option("--filter", f->filter, "compare only cases whose id matches this regex");
  app.add_flag("--quiet", f->quiet, "print only the summary line and the gate");

  return [f, require, markdown, junit, bmf, csv, filter]() -> int {
    // Flags given with an empty value are mistakes, not "unset"; output files are checked
    // before the comparison so that no work is lost to an unwritable path.
    if (require->count() && f->require.empty()) throw InputError("--require '': name a verdict");
    if (filter->count() && f->filter.empty()) throw InputError("--filter '': give a regex");
    for (const auto& [opt, path] : {std::pair{markdown, &f->markdown}, std::pair{junit, &f->junit},
                                    std::pair{bmf, &f->bmf}, std::pair{csv, &f->csv}}) {
      if (!opt->count()) continue;
      const std::string flag = opt->get_name();
      if (path->empty()) throw InputError(flag + " '': name a file to write");
      if (std::filesystem::is_directory(*path)) throw InputError(flag + " '" + *path + "': is a folder, not a file");
    }
    stats::Thresholds& th = f->options.thresholds;
    if (!(f->floor_pct >= 0 && f->floor_pct < 100)) throw InputError("--floor: a percentage in [0, 100)");
    if (!(th.alpha > 0 && th.alpha < 1)) throw InputError("--alpha: a probability in (0, 1)");
    if (!(th.confidence > 0 && th.confidence < 1)) throw InputError("--confidence: a probability in (0, 1)");
    if (th.resamples < 100) throw InputError("--resamples: at least 100");
    th.floor = f->floor_pct / 100.0;
    f->options.metric = *compare::parse_metric(f->metric);
    f->options.normalize_peak = f->normalize == "peak";
    f->options.filter = f->filter;
    compare::GateRules rules;
    for (const auto& v : f->fail_on) rules.fail_on.insert(verdict_flag("--fail-on", v));
    if (!f->require.empty()) rules.require = verdict_flag("--require", f->require);

    const std::string history = store::history_path(f->history);
    const store::RunSet base = store::load_run_set(f->base, history);
    const store::RunSet cand = store::load_run_set(f->cand, history);
    const compare::Comparison c = compare::compare_runs(base, cand, f->options);
    const compare::GateResult gate = compare::apply_gate(c, rules);

    if (!f->markdown.empty()) write_file_atomically(f->markdown, report::comparison_markdown(c, gate));
    if (!f->junit.empty()) write_file_atomically(f->junit, report::comparison_junit(c, rules));
    if (!f->bmf.empty()) write_file_atomically(f->bmf, report::comparison_bmf(c));
    if (!f->csv.empty()) write_file_atomically(f->csv, report::comparison_csv(c));
    if (f->quiet) {
      std::cout << compare::comparison_summary_line(c) << "\n" << (gate.passed ? "gate: pass\n" : "gate: FAIL\n");
      for (const auto& r : gate.reasons) std::cout << "  " << r << "\n";
    } else {
      std::cout << report::comparison_table(c, gate);
    }
    return gate.passed ? 0 : static_cast<int>(ExitCode::check_failed);
  };
}

}  // namespace assay::cli
