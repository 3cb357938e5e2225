#pragma once
// A suite file (TOML, docs/suite-format.md) after parsing: benches of one workload,
// several backends and parameter axes, with measurement and check settings.
#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "core/results.hpp"

namespace assay::suite {

// Where a value came from, for error messages: "suites/gemm.toml:12:7".
struct SourcePos {
  std::string file;
  int line = 0, column = 0;
  std::string str() const;
};

// One axis of integer values. A derived axis has an expression over other axes ("m", "2*k").
struct Axis {
  std::string name;
  std::vector<std::int64_t> values;  // empty for a derived axis
  std::string expression;            // non-empty for a derived axis
  SourcePos pos;
};

struct MeasureConfig {
  std::string mode = "cold";  // cold | hot | graph | host
  std::uint64_t warmup_calls = 3;
  double warmup_min_s = 0.05;
  std::uint64_t min_samples = 20;
  std::uint64_t max_samples = 5000;
  double min_time_s = 0.3;
  double target_rel_ci = 0.01;  // relative half-width of the 95% CI of the median
  double timeout_s = 15.0;      // per case
  double throttle_threshold = 0.75;  // a sample whose SM clock is under this fraction of max is dropped
  double throttle_backoff_s = 0.05;
  double cooldown_s = 0;  // idle time before a case's warm-up, so that it does not inherit the last case's heat
  // GPU idle from the end of one timed sample to the start of the next, the same for every
  // in-process backend; 0: whatever the host takes (a backend's own launch cost then sets the
  // GPU's duty cycle, and with it the clock of a power-capped GPU).
  double gap_us = 0;
  // Cold mode's L2 flush: "memset" (writes twice L2, as nvbench does) or "clean" (reads it, so the
  // timed call owes no write-backs); measure/method.hpp.
  std::string l2_flush = std::string(kL2FlushMemset);
  // Parts each case of a point is measured in, the point's backends alternating between parts
  // (A B, B A, A B, ...: src/runner/rounds.hpp); 1: each case in one piece.
  std::uint64_t rounds = 1;
  std::uint64_t graph_calls = 0;  // calls per graph in graph mode; 0: chosen from a probe call
  double adapter_timeout_s = 600;  // wall-clock limit of one adapter call (start-up and compiles included)
  double case_timeout_s = 0;       // limit of one isolated case's worker; 0: 3 x timeout_s + 60 s (adapters: 2 x adapter_timeout_s + 30 s)
};

// Forward and backward rounds balance the backends' positions only in pairs: `rounds` is 1 or
// even (the suite's key and `assay run --rounds` both say so in kRoundsRule's words).
constexpr bool rounds_balanced(std::uint64_t rounds) { return rounds == 1 || rounds % 2 == 0; }
inline constexpr const char* kRoundsRule = "must be 1 or even (rounds run in forward/backward pairs)";

struct CheckConfig {
  bool enabled = true;
  double atol = 0.02;
  double rtol = 0.01;
  std::map<std::string, std::int64_t> shape;  // params overridden for the check; empty: measured shape
  bool recheck = true;                        // check the output of the last timed call
  std::int64_t sampled_rows = 16;             // rows checked in fp64 when rechecking large shapes
};

struct Bench {
  std::string name;
  std::string workload;
  std::vector<std::string> backends;
  std::string baseline;  // empty: no baseline
  std::vector<std::string> dtypes;
  std::vector<Axis> axes;  // in file order
  MeasureConfig measure;
  CheckConfig check;
  // `assay tune`'s variants ([bench.tune] variants, "NAME=BACKEND[,VAR=value...]"), used when
  // the command line gives none.
  std::vector<std::string> tune_variants;
  SourcePos tune_variants_pos;
  SourcePos pos;
};

struct Suite {
  std::string path;
  std::string name;
  std::string description;
  std::vector<std::string> python_path;  // absolute folders for py: backends' modules
  std::string hash;  // of the file's bytes: FNV-1a 64-bit, hex (identity, not security)
  std::vector<Bench> benches;
};

// Parses a suite file and checks its syntax, types and ranges (workload, backend and
// parameter names are checked against the registries by the planner).
// Throws InputError("FILE:LINE:COL: FIELD: what is wrong") on the first problem.
Suite load_suite(const std::string& path);
Suite parse_suite(const std::string& text, const std::string& path);

// One point of a bench: concrete parameter values and a dtype.
struct Point {
  std::map<std::string, std::int64_t> params;
  std::string dtype;
};

// Cartesian product of the value axes (file order, last axis fastest), derived axes
// evaluated per point, times the dtypes. Throws InputError for a derived value that is
// not positive or overflows.
std::vector<Point> expand_points(const Bench& bench);

// Evaluates an integer expression of + - * / ( ) over named values. Throws InputError.
std::int64_t eval_expression(const std::string& expr, const std::map<std::string, std::int64_t>& vars);

}  // namespace assay::suite
