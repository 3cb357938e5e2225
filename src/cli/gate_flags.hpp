#pragma once
// The flags that `assay compare` and `assay ab` share: thresholds, the gate, the metric, and the
// CI outputs (Markdown, JUnit, CSV, BMF); checked before any work, applied after the comparison.
#include <CLI/CLI.hpp>

#include <memory>
#include <string>
#include <vector>

#include "compare/comparison.hpp"
#include "compare/gate.hpp"

namespace assay::cli {

struct GateFlags {
  std::string metric = "time", normalize, require;
  std::vector<std::string> fail_on;
  std::string markdown, junit, bmf, csv;
  double floor_pct = 2.0;
  bool quiet = false, gate_single_session = false;
  compare::CompareOptions options;
  compare::GateRules rules;
  CLI::Option* require_opt = nullptr;
  std::vector<std::pair<CLI::Option*, std::string*>> outputs;
};

// Registers the flags on `app`; the returned object holds their values.
std::shared_ptr<GateFlags> add_gate_flags(CLI::App& app);

// Checks the values (InputError, exit 3, naming the flag) and fills options and rules. Output
// files are checked here, before the comparison, so that no work is lost to an unwritable path.
void resolve_gate_flags(GateFlags& f);

// Whether writing the file `out` would replace what the argument `arg` (a results file, a folder
// of them, or the history database) holds: the same file, or a document in the folder `arg` or in
// a session folder inside it.
bool output_replaces(const std::string& out, const std::string& arg);

// Refuses (InputError naming the flag) an output that would replace one of `inputs` (results
// files or folders, the history database): `assay compare BASE CAND --markdown BASE` had written
// Markdown over BASE. Also two outputs naming one file.
void refuse_outputs_over(const GateFlags& f, const std::vector<std::string>& inputs);

// Writes the outputs asked for, prints the table (or, with --quiet, the summary and the gate)
// and returns the exit code: 0 when the gate passes, 1 when it fails.
int finish_comparison(const GateFlags& f, const compare::Comparison& c);

}  // namespace assay::cli
