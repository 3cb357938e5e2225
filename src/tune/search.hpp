// `assay tune`'s search over a backend's variants (issue 29): every variant checked before it is
// timed; exhaustive for a small space, successive halving for a large one (short measurements
// first, the better half measured again with twice the budget, survivors to the full budget);
// an elite by geometric-mean speedup over the shapes against the baseline; the drop rules of the
// playbooks; and a promotion only when repeated sessions say FASTER. The Evaluator is the
// machine: the runner's (cases on a GPU) in `assay tune`, a seeded fake in the tests.
#pragma once

#include <cstddef>
#include <optional>
#include <stdexcept>
#include <string>
#include <vector>

#include "stats/sample_comparison.hpp"

namespace assay::tune {

// Thrown by measure() when a session could not be timed (the adapter returned no samples, the
// worker crashed while timing): that variant is out with the reason, the search goes on.
struct NotTimed : std::runtime_error {
  using std::runtime_error::runtime_error;
};

// Thrown by either call when the search must stop (Ctrl-C): the outcome keeps what was finished.
struct Interrupted {};

class Evaluator {
 public:
  virtual ~Evaluator() = default;
  // "" when the variant's output passes the check on shape `shape`, else why not; a reason that
  // starts with "skipped" means it cannot run here (wrong GPU, library missing), no failure.
  virtual std::string check(const std::string& variant, std::size_t shape) = 0;
  // One session's samples (ns) of the variant on the shape, measured with `budget` in (0, 1] of
  // the suite's full measurement budget.
  virtual std::vector<double> measure(const std::string& variant, std::size_t shape, double budget) = 0;
};

struct TuneOptions {
  std::size_t elite = 3;
  double min_gain = 0.03;           // drop: geometric-mean speedup below 1 + min_gain
  double regression = 0.02;         // a shape regresses when its speedup is below 1 / (1 + regression)
  std::size_t max_regressions = 1;  // drop: regresses on more shapes than this (the playbook: 2 or more)
  std::size_t exhaustive_up_to = 8; // more checked variants than this: successive halving
  double first_budget = 0.25;       // successive halving's first budget, lower when it needs more rounds
  std::size_t promote_sessions = 3; // per side and shape, for the promotion's comparison
  stats::Thresholds thresholds;
};

// How a variant's check ended: the CLI's exit status tells a variant that failed from one whose
// backend cannot run here.
enum class CheckEnd { passed, skipped, failed };

struct VariantOutcome {
  std::string name;
  std::string check_failure;    // "" when every shape passed
  std::vector<double> speedup;  // per shape: baseline median / variant median, at `budget`
  double geomean = 0;           // of speedup
  double budget = 0;            // the largest budget it was measured with (0: never timed)
  std::string dropped;          // why it is out, or ""
  bool elite = false;
  CheckEnd check = CheckEnd::passed;  // failed or skipped: check_failure says where and why
};

struct Promotion {
  std::string variant;
  bool promoted = false;
  std::vector<stats::Verdict> per_shape;  // candidate against baseline, sessions method
  std::string why;
};

// Why nothing could be compared: the baseline is checked on every shape before any variant.
enum class BaselineFault { none, skipped, check_failed, not_timed };

struct TuneOutcome {
  std::string baseline;
  BaselineFault baseline_fault = BaselineFault::none;
  std::string baseline_failure;          // "shape N: why" when baseline_fault is not none
  bool interrupted = false;              // stopped part-way: what is here was finished
  std::vector<VariantOutcome> variants;  // in the order given
  std::vector<std::string> elite;        // best first
  std::optional<Promotion> promotion;    // of the best of the elite, when there is one
  double budget_spent = 0;               // sum of the budgets of every measure() call
};

// Throws std::invalid_argument for no shapes, no variants, or a baseline among the variants. A
// baseline that fails (baseline_fault) or an Interrupted from the evaluator ends the search early.
TuneOutcome search_variants(const std::vector<std::string>& variants, const std::string& baseline, std::size_t shapes,
                 Evaluator& evaluator, const TuneOptions& options);

}  // namespace assay::tune
