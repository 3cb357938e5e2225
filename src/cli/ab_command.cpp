// assay ab SUITE --base BIN --candidate BIN: two builds measured in alternating rounds on one
// GPU (runner/ab.hpp), then compared round pair by round pair, with the gate of `assay compare`.
#include <fmt/format.h>

#include <algorithm>
#include <chrono>
#include <iostream>

#include "cli/commands.hpp"
#include "cli/device_flag.hpp"
#include "cli/gate_flags.hpp"
#include "core/error.hpp"
#include "core/interrupt.hpp"
#include "core/results.hpp"
#include "runner/ab.hpp"
#include "runner/worker.hpp"
#include "store/run_set.hpp"

namespace assay::cli {

namespace {
// NAME=value, NAME a shell-style variable name.
void check_env(const std::string& flag, const std::vector<std::string>& settings) {
  for (const auto& e : settings)
    if (!runner::is_env_setting(e)) throw InputError(flag + " '" + e + "': use NAME=value");
}
}  // namespace

Action add_ab_command(CLI::App& app, const std::vector<std::string>& argv) {
  struct AbFlags {
    runner::AbOptions ab;
    std::string mode, filter, l2_flush;
    double gap_us = -1;
    CLI::Option* filter_opt = nullptr;
  };
  auto a = std::make_shared<AbFlags>();
  a->ab.run.command_line = argv;
  a->ab.run.out_dir = "assay-results";
  app.add_option("suite", a->ab.run.suite_path, "suite file (TOML), e.g. suites/gemm.toml")->required();
  app.add_option("--base", a->ab.base.path, "the base build's assay binary (e.g. the merge base's)")->required();
  app.add_option("--candidate", a->ab.candidate.path, "the candidate build's assay binary")->required();
  app.add_option("--base-env", a->ab.base.env, "NAME=value set for the base's workers (repeatable)");
  app.add_option("--candidate-env", a->ab.candidate.env, "NAME=value set for the candidate's workers (repeatable)");
  app.add_option("--rounds", a->ab.rounds, "rounds per case and side, even: A B, B A, ...")
      ->check(CLI::Range(2, 64))
      ->capture_default_str();
  app.add_option("--max-rounds", a->ab.max_rounds,
                 "sequential: a case still AMBIGUOUS after --rounds gets two more rounds, up to this many (even)")
      ->check(CLI::Range(2, 64));
  app.add_option("--tag", a->ab.run.tag, "a name for this comparison, kept in the results");
  app.add_option("--out", a->ab.run.out_dir, "folder for the pair's folder (base.json, candidate.json)")
      ->capture_default_str();
  app.add_option("--device", a->ab.run.device, "CUDA device index, or 'cpu'")->capture_default_str();
  app.add_option("--mode", a->mode, "override the suite's mode")->check(CLI::IsMember({"cold", "hot", "graph", "host"}));
  app.add_option("--gap-us", a->gap_us, "override the suite's gap_us")->check(CLI::Range(0.0, 100000.0));
  app.add_option("--l2-flush", a->l2_flush, "cold mode's L2 flush, memset or clean; overrides the suite's l2_flush")
      ->check(CLI::IsMember({std::string(kL2FlushMemset), std::string(kL2FlushClean)}));
  a->filter_opt = app.add_option("--filter", a->filter, "run only cases whose id matches this regex");
  app.add_option("--seed", a->ab.run.seed, "base seed of the random inputs")->capture_default_str();
  auto f = add_gate_flags(app);

  return [a, f]() -> int {
    if (a->filter_opt->count() && a->filter.empty()) throw InputError("--filter '': give a regex of case ids");
    if (!a->filter.empty()) a->ab.run.filter = a->filter;
    if (!a->mode.empty()) a->ab.run.mode = a->mode;
    if (a->gap_us >= 0) a->ab.run.gap_us = a->gap_us;
    if (!a->l2_flush.empty()) a->ab.run.l2_flush = a->l2_flush;
    a->ab.run.rounds = a->ab.rounds;
    check_device_flag(a->ab.run.device);
    check_env("--base-env", a->ab.base.env);
    check_env("--candidate-env", a->ab.candidate.env);
    resolve_gate_flags(*f);
    a->ab.thresholds = f->options.thresholds;  // the looks of --max-rounds decide as compare will
    a->ab.also_cycles = f->options.also_cycles;
    install_interrupt_handlers();
    const auto start = std::chrono::steady_clock::now();
    const runner::AbOutcome out = runner::run_ab(a->ab, [](const std::string& line) { std::cerr << line << "\n"; });
    // What the gate cost: the GPU was this run's for its whole wall time (docs/compare.md).
    const double wall_s = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
    std::size_t rounds = 0;
    for (const auto& c : out.base.cases)
      if (c.measurement) rounds += std::max<std::size_t>(1, c.measurement->round_samples.size());
    const std::size_t cases = out.base.cases.size();
    std::cerr << fmt::format("assay ab: {} case{}, {} round{} a side, {:.0f} s; wrote {} and {}\n", cases,
                             cases == 1 ? "" : "s", rounds, rounds == 1 ? "" : "s", wall_s, out.base_path, out.candidate_path);
    if (out.interrupted_by) return 128 + out.interrupted_by;
    // A side that crashed on every case (a program that is no working assay) leaves nothing to
    // compare: the candidate's cases would all read NEW and the gate pass.
    for (const auto* side : {&out.base, &out.candidate}) {
      const bool none_ran = std::none_of(side->cases.begin(), side->cases.end(), [](const CaseRecord& c) {
        return c.status != CaseStatus::crashed;
      });
      if (!side->cases.empty() && none_ran)
        throw InputError(std::string(side == &out.base ? "--base" : "--candidate") + ": its worker crashed on every case (" +
                         side->cases.front().reason + "): nothing to compare; see " +
                         (side == &out.base ? out.base_path : out.candidate_path));
    }
    const store::RunSet base{"base", out.base_path, {out.base}};
    const store::RunSet cand{"candidate", out.candidate_path, {out.candidate}};
    return finish_comparison(*f, compare::compare_runs(base, cand, f->options));
  };
}

}  // namespace assay::cli
