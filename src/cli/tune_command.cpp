// assay tune SUITE [--variant NAME=BACKEND[,VAR=value...] ...]: the search of src/tune over one
// bench, with this machine measuring (runner/tune_run.hpp); a report in JSON and Markdown.
#include <iostream>

#include "cli/commands.hpp"
#include "cli/device_flag.hpp"
#include "core/error.hpp"
#include "core/interrupt.hpp"
#include "runner/tune_run.hpp"

namespace assay::cli {

namespace {

// What the tune's outcome means for the exit status (docs/reliability.md): interrupted 128 +
// the signal; the baseline cannot run here, or no variant can, 2; the baseline failed its check,
// or every variant failed or skipped its check with one failing, 1; the baseline, or every
// checked variant, could not be timed, 4; else 0. `why` is the line for stderr.
int tune_exit_status(const runner::TuneRunOutcome& out, std::string* why) {
  if (out.interrupted_by) {
    *why = "interrupted: the report holds what the search finished";
    return 128 + out.interrupted_by;
  }
  if (const auto f = out.result.baseline_fault; f != tune::BaselineFault::none) {
    *why = "the baseline " + out.baseline + " " + runner::baseline_fault_words(f) + " (" + out.result.baseline_failure + ")";
    return static_cast<int>(f == tune::BaselineFault::skipped        ? ExitCode::skipped
                            : f == tune::BaselineFault::check_failed ? ExitCode::check_failed
                                                                     : ExitCode::internal);
  }
  bool one_checked = false, one_timed = false, one_failed = false;
  for (const auto& v : out.result.variants) {
    one_checked = one_checked || v.check == tune::CheckEnd::passed;
    one_timed = one_timed || v.budget > 0;  // measured at least once (VariantOutcome::budget)
    one_failed = one_failed || v.check == tune::CheckEnd::failed;
  }
  if (one_timed) return 0;
  if (one_checked) {  // checked, yet none timed: nothing was compared, the machine's failure
    *why = "no variant could be timed: nothing to compare";
    return static_cast<int>(ExitCode::internal);
  }
  if (one_failed) {
    *why = "every variant failed its check (or cannot run here): nothing to compare";
    return static_cast<int>(ExitCode::check_failed);
  }
  *why = "skipped: no variant can run here (" + out.result.variants.front().check_failure + ")";
  return static_cast<int>(ExitCode::skipped);
}

}  // namespace

Action add_tune_command(CLI::App& app) {
  struct TuneFlags {
    runner::TuneRunOptions t;
    std::vector<std::string> variants;
    std::string variants_of, filter;
    CLI::Option* filter_opt = nullptr;
    CLI::Option* variants_of_opt = nullptr;
  };
  auto f = std::make_shared<TuneFlags>();
  f->t.run.out_dir = "assay-results";
  app.add_option("suite", f->t.run.suite_path, "suite file (TOML)")->required();
  app.add_option("--bench", f->t.bench, "the bench whose points are the shapes (needed when the suite has several)");
  app.add_option("--baseline", f->t.baseline, "the backend the variants must beat (default: the bench's baseline)");
  app.add_option("--variant", f->variants,
                 "NAME=BACKEND[,VAR=value...]: a variant (repeatable; default: the bench's [bench.tune] variants)");
  f->variants_of_opt = app.add_option("--variants-of", f->variants_of,
                                      "this backend and every pinned configuration of it (BACKEND@...) that implements the "
                                      "bench's workload are variants (less the baseline)");
  f->filter_opt = app.add_option("--filter", f->filter, "only the shapes whose case id matches this regex");
  app.add_option("--device", f->t.run.device, "CUDA device index, or 'cpu'")->capture_default_str();
  app.add_option("--out", f->t.run.out_dir, "folder for the tune report (JSON and Markdown)")->capture_default_str();
  app.add_option("--elite", f->t.search.elite, "size of the elite")->check(CLI::Range(1, 100))->capture_default_str();
  app.add_option("--promote-sessions", f->t.search.promote_sessions, "sessions per side and shape for the promotion")
      ->check(CLI::Range(2, 50))
      ->capture_default_str();
  return [f]() -> int {
    if (f->filter_opt->count() && f->filter.empty()) throw InputError("--filter '': give a regex of case ids");
    if (!f->filter.empty()) f->t.run.filter = f->filter;
    check_device_flag(f->t.run.device);
    for (const auto& v : f->variants) f->t.variants.push_back(runner::parse_tune_variant(v));
    if (f->variants_of_opt->count()) f->t.variants_of = f->variants_of;
    install_interrupt_handlers();
    const auto out = runner::run_tune(f->t, [](const std::string& line) { std::cerr << line << "\n"; });
    std::cout << runner::tune_report_markdown(out) << "\nwrote " << out.json_path << " and " << out.markdown_path
              << (out.tuning_path.empty() ? "" : " and " + out.tuning_path) << "\n";
    std::string why;
    const int status = tune_exit_status(out, &why);
    if (!why.empty()) std::cerr << why << "\n";
    return status;
  };
}

}  // namespace assay::cli
