#include "cli/gate_flags.hpp"

#include <filesystem>
#include <iostream>

#include "core/atomic_file.hpp"
#include "core/error.hpp"
#include "report/compare_outputs.hpp"
#include "store/document_file.hpp"

namespace assay::cli {

namespace {
stats::Verdict verdict_flag(const std::string& flag, const std::string& value) {
  const auto v = compare::parse_verdict(value);
  if (!v) throw InputError(flag + " '" + value + "': use faster, slower, same, ambiguous, new or gone");
  return *v;
}
}  // namespace

std::shared_ptr<GateFlags> add_gate_flags(CLI::App& app) {
  auto f = std::make_shared<GateFlags>();
  stats::Thresholds& t = f->options.thresholds;
  app.add_option("--fail-on", f->fail_on, "exit 1 when any case has one of these verdicts (e.g. slower,ambiguous)")
      ->delimiter(',');
  f->require_opt =
      app.add_option("--require", f->require, "exit 1 unless every compared case has this verdict (e.g. faster)");
  app.add_option("--floor", f->floor_pct, "practical floor in %: smaller changes are SAME")->capture_default_str();
  app.add_option("--alpha", t.alpha, "false-alarm rate: the test's p must be below it")->capture_default_str();
  app.add_option("--confidence", t.confidence, "confidence of the intervals")->capture_default_str();
  app.add_option("--resamples", t.resamples, "bootstrap resamples of the ratio of medians (100 to 1000000)")->capture_default_str();
  app.add_option("--metric", f->metric,
                 "time or cycles (time x the probed SM clock; lower is better), tflops or gbs (higher is better)")
      ->check(CLI::IsMember({"time", "tflops", "gbs", "cycles"}))
      ->capture_default_str();
  app.add_option("--normalize", f->normalize, "'peak': compare % of peak, also across GPU models")
      ->check(CLI::IsMember({"peak"}));
  app.add_flag("--also-cycles", f->options.also_cycles,
               "judge each case on time and on cycles (time x SM clock), each at alpha/2: sees a change of work "
               "through the power cap's clock swings");
  f->outputs = {
      {app.add_option("--markdown", f->markdown, "write Markdown (PR comment, job summary) to this file"), &f->markdown},
      {app.add_option("--junit", f->junit, "write JUnit XML (one testcase per case) to this file"), &f->junit},
      {app.add_option("--bmf", f->bmf, "write Bencher Metric Format JSON of the candidate to this file"), &f->bmf},
      {app.add_option("--csv", f->csv, "write CSV (one row per case, every statistic) to this file"), &f->csv}};
  app.add_flag("--quiet", f->quiet, "print only the summary line and the gate");
  app.add_flag("--gate-single-session", f->gate_single_session,
               "let FASTER/SLOWER from one session a side without history (drift unknown, marked ?) fail the gate");
  return f;
}

void resolve_gate_flags(GateFlags& f) {
  if (f.require_opt->count() && f.require.empty()) throw InputError("--require '': name a verdict");
  for (const auto& [opt, path] : f.outputs) {
    if (!opt->count()) continue;
    const std::string flag = opt->get_name();
    if (path->empty()) throw InputError(flag + " '': name a file to write");
    if (std::filesystem::is_directory(*path)) throw InputError(flag + " '" + *path + "': is a folder, not a file");
  }
  stats::Thresholds& th = f.options.thresholds;
  if (!(f.floor_pct >= 0 && f.floor_pct < 100)) throw InputError("--floor: a percentage in [0, 100)");
  if (!(th.alpha > 0 && th.alpha < 1)) throw InputError("--alpha: a probability in (0, 1)");
  if (!(th.confidence > 0 && th.confidence < 1)) throw InputError("--confidence: a probability in (0, 1)");
  // Each resample holds a case's medians: the bound keeps memory and time in reason.
  if (th.resamples < 100 || th.resamples > 1000000) throw InputError("--resamples: between 100 and 1000000");
  th.floor = f.floor_pct / 100.0;
  f.options.metric = *compare::parse_metric(f.metric);
  f.options.normalize_peak = f.normalize == "peak";
  compare::check_also_cycles(f.options);  // before an `ab` run measures anything
  for (const auto& v : f.fail_on) f.rules.fail_on.insert(verdict_flag("--fail-on", v));
  if (!f.require.empty()) f.rules.require = verdict_flag("--require", f.require);
  f.rules.gate_single_session = f.gate_single_session;
}

bool output_replaces(const std::string& out, const std::string& arg) {
  namespace fs = std::filesystem;
  std::error_code ec;
  if (arg.empty() || !fs::exists(arg, ec)) return false;
  if (fs::equivalent(out, arg, ec)) return true;
  if (!fs::is_directory(arg, ec) || !store::has_document_name(out) || !fs::is_regular_file(out, ec)) return false;
  const fs::path parent = fs::absolute(out, ec).parent_path();
  return fs::equivalent(parent, arg, ec) || fs::equivalent(parent.parent_path(), arg, ec);
}

void refuse_outputs_over(const GateFlags& f, const std::vector<std::string>& inputs) {
  std::vector<std::pair<std::string, std::string>> given;  // flag, path
  for (const auto& [opt, path] : f.outputs)
    if (opt->count() && !path->empty()) given.emplace_back(opt->get_name(), *path);
  for (const auto& [flag, path] : given) {
    for (const auto& in : inputs)
      if (output_replaces(path, in))
        throw InputError(flag + " '" + path + "': would replace the input '" + in + "'; write it elsewhere");
    for (const auto& [other_flag, other] : given) {
      std::error_code ec;
      if (&other != &path && (other == path || std::filesystem::equivalent(other, path, ec)))
        throw InputError(flag + " '" + path + "' and " + other_flag + " name one file; give each its own");
    }
  }
}

int finish_comparison(const GateFlags& f, const compare::Comparison& c) {
  const compare::GateResult gate = compare::apply_gate(c, f.rules);
  if (!f.markdown.empty()) write_file_atomically(f.markdown, report::comparison_markdown(c, gate));
  if (!f.junit.empty()) write_file_atomically(f.junit, report::comparison_junit(c, f.rules));
  if (!f.bmf.empty()) write_file_atomically(f.bmf, report::comparison_bmf(c));
  if (!f.csv.empty()) write_file_atomically(f.csv, report::comparison_csv(c));
  if (f.quiet) {
    std::cout << compare::comparison_summary_line(c) << "\n" << (gate.passed ? "gate: pass\n" : "gate: FAIL\n");
    for (const auto& r : gate.reasons) std::cout << "  " << r << "\n";
    for (const auto& n : gate.notes) std::cout << "  (" << n << ")\n";
  } else {
    std::cout << report::comparison_table(c, gate);
  }
  return gate.passed ? 0 : static_cast<int>(ExitCode::check_failed);
}

}  // namespace assay::cli
