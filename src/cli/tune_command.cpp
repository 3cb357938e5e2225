// assay tune SUITE [--variant NAME=BACKEND[,VAR=value...] ...]: the search of src/tune over one
// bench, with this machine measuring (runner/tune_run.hpp); a report in JSON and Markdown.
#include <iostream>

#include "backends/backend.hpp"
#include "cli/commands.hpp"
#include "cli/device_flag.hpp"
#include "core/error.hpp"
#include "core/interrupt.hpp"
#include "runner/tune_run.hpp"

namespace assay::cli {


Action add_tune_command(CLI::App& app) {
  struct TuneFlags {
    runner::TuneRunOptions t;
    std::vector<std::string> variants;
    std::string variants_of, filter;
    CLI::Option* filter_opt = nullptr;
  };
  auto f = std::make_shared<TuneFlags>();
  f->t.run.out_dir = "assay-results";
  app.add_option("suite", f->t.run.suite_path, "suite file (TOML)")->required();
  app.add_option("--bench", f->t.bench, "the bench whose points are the shapes (needed when the suite has several)");
  app.add_option("--baseline", f->t.baseline, "the backend the variants must beat (default: the bench's baseline)");
  app.add_option("--variant", f->variants,
                 "NAME=BACKEND[,VAR=value...]: a variant (repeatable; default: the bench's [bench.tune] variants)");
  app.add_option("--variants-of", f->variants_of, "every pinned configuration of this backend (BACKEND@...) that implements the bench's workload is a variant");
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
    if (!f->variants_of.empty()) {
      for (const Backend* b : all_backends())
        if (b->name().rfind(f->variants_of + "@", 0) == 0) f->t.variants.push_back({b->name(), b->name(), {}, true});
      if (f->t.variants.empty()) throw InputError("--variants-of '" + f->variants_of + "': no backend named " + f->variants_of + "@...");
      // The backend itself (its own heuristic's choice per shape) races its pinned configurations,
      // so that the report says whether the heuristic's choice is in the elite.
      if (find_backend(f->variants_of) && f->variants_of != f->t.baseline)
        f->t.variants.push_back({f->variants_of, f->variants_of, {}, true});
    }
    install_interrupt_handlers();
    const auto out = runner::run_tune(f->t, [](const std::string& line) { std::cerr << line << "\n"; });
    std::cout << runner::tune_report_markdown(out) << "\nwrote " << out.json_path << " and " << out.markdown_path
              << (out.tuning_path.empty() ? "" : " and " + out.tuning_path) << "\n";
    // Nothing could run here (as `assay run` with every case skipped): exit 2, not a result.
    bool all_skipped = !out.result.variants.empty();
    for (const auto& v : out.result.variants) all_skipped = all_skipped && v.dropped.rfind("not run here", 0) == 0;
    if (all_skipped) {
      std::cerr << "skipped: no variant can run here (" << out.result.variants.front().check_failure << ")\n";
      return static_cast<int>(ExitCode::skipped);
    }
    return 0;
  };
}

}  // namespace assay::cli
