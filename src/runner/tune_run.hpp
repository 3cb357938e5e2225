#pragma once
// `assay tune`: the search of src/tune over one bench of a suite, with this machine as the
// Evaluator. The shapes are the bench's points (after --filter) at which the baseline backend
// runs; a variant is another backend (an `assay@<config>` pinned configuration, say) and/or
// environment settings for its workers (the knobs a backend's command reads). Each check and each
// measured session is a fresh worker process, as in `assay run`; a session's budget is the suite's
// criterion scaled by the search's share (successive halving measures short first).
#include <functional>
#include <optional>
#include <string>
#include <vector>

#include "runner/run_options.hpp"
#include "tune/search.hpp"

namespace assay::runner {

struct TuneVariant {
  std::string name;
  std::string backend;
  std::vector<std::string> env;  // NAME=value, for this variant's workers
  // From --variants-of, a backend's whole family (assay@ holds GEMM and attention configurations):
  // left out where it does not implement the bench's workload and dtypes, where a named --variant
  // is an input error.
  bool from_family = false;
  // Where it was given, for errors: "--variant" or the suite's "FILE:LINE:COL: bench[i].tune.variants".
  std::string origin = "--variant";
};

// "NAME=BACKEND[,VAR=value...]" (a --variant, or an entry of a bench's [bench.tune] variants);
// InputError naming `origin` when malformed.
TuneVariant parse_tune_variant(const std::string& text, const std::string& origin = "--variant");

struct TuneRunOptions {
  RunOptions run;        // the suite, --filter, --device, --out, --seed, --mode
  std::string bench;     // "" when the suite has one bench
  std::string baseline;  // "" for the bench's baseline backend
  std::vector<TuneVariant> variants;  // empty, with no variants_of: the bench's [bench.tune] variants
  // --variants-of: this backend and its pinned configurations (BACKEND@...) that implement the
  // bench, less the baseline; expanded once the bench's baseline is known.
  std::optional<std::string> variants_of;
  tune::TuneOptions search;
};

struct TuneRunOutcome {
  std::string suite, bench, workload, baseline;
  std::vector<std::string> shapes;   // the baseline's case ids
  std::vector<std::pair<std::string, Params>> shape_points;  // their dtype and parameters
  std::vector<TuneVariant> variants;
  // The backend the variants are configurations of (--variants-of, else their one backend
  // family; "" when they have none): a variant that runs it plainly is its own heuristic.
  std::string family;
  tune::TuneOutcome result;
  int interrupted_by = 0;  // the signal that stopped the search part-way, 0 when none did
  std::string failure;     // the error that ended the tune after its report was reserved
  std::string json_path, markdown_path;
  std::string tuning_path;  // the tuning table written beside the report ("" when none: tuning_note says why)
  std::string tuning_note;
};

// Throws InputError (exit 3) for an unknown bench or backend, a variant whose backend cannot run
// the bench's workload and dtype, no shape, or an --out that cannot be written, all before the
// first check. The report is reserved before the first check and written at the end, also when
// the baseline failed (result.baseline_fault) or a signal stopped the search (interrupted_by).
TuneRunOutcome run_tune(const TuneRunOptions& options, const std::function<void(const std::string&)>& progress);

// "cannot run here", "failed its check", "could not be timed" (the report's and the CLI's words).
std::string baseline_fault_words(tune::BaselineFault f);

// The tune report: JSON (schema "assay.tune", version 1) and Markdown.
std::string tune_report_json(const TuneRunOutcome& t);
std::string tune_report_markdown(const TuneRunOutcome& t);

}  // namespace assay::runner
