#pragma once
// `assay ab`: two builds (two assay binaries, or one with two environments) measured on the same
// GPU in one job, case by case, in alternating rounds: A B, B A, A B, ... Each round of each side
// runs in a fresh worker process of that side's binary, with that round's share of the case's
// budgets, on the same resolved case (this binary plans and resolves; the sides only measure).
// A drift slower than a round (clock, power state, other load) reaches both sides of a pair
// alike, so that compare's paired verdicts (stats/session_noise.hpp) see the change, not the
// drift. Two results documents are written, base.json and candidate.json, marked as one pair.
#include <cstdint>
#include <functional>
#include <string>

#include "core/results.hpp"
#include "stats/sample_comparison.hpp"
#include "runner/run_options.hpp"
#include "runner/worker.hpp"

namespace assay::runner {

struct AbOptions {
  RunOptions run;  // the suite, its filter, --mode, --gap-us, --device, --out, --tag, --seed
  WorkerProgram base, candidate;
  std::uint64_t rounds = 6;  // even, at least 2: pairs A B and B A balance a linear drift
  // Sequential rounds (docs/compare.md): a case whose paired verdict is AMBIGUOUS after `rounds`
  // gets two more, up to max_rounds (even; 0 or `rounds`: fixed rounds). Decided on time (and cycles), with
  // `thresholds` at each look (stats::at_each_look); compare applies the same to the verdicts.
  std::uint64_t max_rounds = 0;
  stats::Thresholds thresholds;
  bool also_cycles = false;  // --also-cycles: the looks judge time and cycles as compare will
};

struct AbOutcome {
  ResultsDocument base, candidate;
  std::string folder, base_path, candidate_path;
  int interrupted_by = 0;
};

// "assay 0.9.0 (abc1234)" from `PATH --version` run with `env`; InputError (exit 3) naming the
// flag when the program cannot run or does not answer as assay does.
std::string program_version(const std::string& flag, const WorkerProgram& program);

// Throws InputError for bad options, a suite that plans no case, or a side whose worker cannot
// read this assay's case requests (builds of different worker protocols).
AbOutcome run_ab(const AbOptions& options, const std::function<void(const std::string&)>& progress);

}  // namespace assay::runner
