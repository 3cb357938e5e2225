// assay compare BASE CAND: verdicts per case, the gate, and the CI outputs.
#include "cli/commands.hpp"
#include "cli/gate_flags.hpp"
#include "compare/history_noise.hpp"
#include "core/error.hpp"
#include "store/history_db.hpp"
#include "store/run_set.hpp"

namespace assay::cli {

Action add_compare_command(CLI::App& app) {
  struct Sides {
    std::string base, cand, history, filter;
    bool no_history_noise = false;
    CLI::Option* filter_opt = nullptr;
    CLI::Option* history_opt = nullptr;
  };
  auto s = std::make_shared<Sides>();
  app.add_option("base", s->base, "base: a results file, a folder of them (sessions), or a tag or commit in the history")
      ->required();
  app.add_option("candidate", s->cand, "candidate: the same kinds as base")->required();
  auto f = add_gate_flags(app);
  app.add_option("--seed", f->options.thresholds.seed, "bootstrap seed")->capture_default_str();
  s->history_opt = app.add_option("--history", s->history, "history database for tags, commits and the between-session "
                                                          "spread (default $ASSAY_HISTORY or .assay/history.db)");
  s->filter_opt = app.add_option("--filter", s->filter, "compare only cases whose id matches this regex");
  app.add_flag("--no-history-noise", s->no_history_noise,
               "do not learn the between-session spread from the history (single-session verdicts are then marked ?)");

  return [s, f]() -> int {
    // Flags given with an empty value are mistakes, not "unset".
    if (s->filter_opt->count() && s->filter.empty()) throw InputError("--filter '': give a regex");
    if (s->history_opt->count() && s->history.empty()) throw InputError("--history '': name a history database file");
    resolve_gate_flags(*f);
    f->options.filter = s->filter;
    const std::string history = store::history_path(s->history);
    refuse_outputs_over(*f, {s->base, s->cand, history});
    const store::RunSet base = store::load_run_set(s->base, history);
    const store::RunSet cand = store::load_run_set(s->cand, history);
    // A profile document's calls ran under the profiler and were not timed: nothing to compare.
    for (const store::RunSet* set : {&base, &cand})
      for (const auto& doc : set->sessions)
        if (doc.run.mode == "profile")
          throw InputError(set->label + ": an `assay profile` document (run mode \"profile\") holds no timings to compare");
    const std::string unusable = s->no_history_noise ? "" : compare::use_history_noise(f->options, history, base, cand);
    compare::Comparison c = compare::compare_runs(base, cand, f->options);
    if (!unusable.empty()) c.notes.push_back("no between-session spread from the history: " + unusable);
    return finish_comparison(*f, c);
  };
}

}  // namespace assay::cli
