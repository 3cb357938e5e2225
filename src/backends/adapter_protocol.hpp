#pragma once
// The adapter protocol (docs/adapters.md), version "assay.adapter/1": the case assay gives an
// adapter on stdin, and the one JSON object the adapter must print on stdout.
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "workloads/workload.hpp"

namespace assay::adapter {

inline constexpr const char* kProtocol = "assay.adapter/1";

struct TensorFile {
  std::string name, path, dtype;
  std::vector<std::int64_t> shape;
};

// How the adapter is to measure: the case's mode, warm-up and stopping criterion
// (measure::Method and measure::Criterion, which this layer is below).
struct MeasureRequest {
  std::string mode = "cold";  // cold | hot | graph | host
  std::uint64_t warmup_calls = 3;
  double warmup_min_s = 0.05;
  std::uint64_t min_samples = 20, max_samples = 5000;
  double min_time_s = 0.3, target_rel_ci = 0.01, timeout_s = 15.0;
  std::uint64_t profile_calls = 0;  // purpose "profile": calls inside the profiler's window
};

struct CaseRequest {
  std::string backend, variant, workload, dtype, purpose;  // purpose: "check", "measure" or "profile"
  Params params;
  std::uint64_t seed = 0;
  std::string device;  // "0", "1", ... or "cpu"
  MeasureRequest measure;
  std::vector<TensorFile> inputs;
  TensorFile output;
  // Measure calls with a recheck: other values of the inputs. The adapter copies them into its
  // input tensors after the timed calls, calls once more and writes that output (docs/adapters.md).
  std::vector<TensorFile> fresh_inputs;
};

std::string case_json(const CaseRequest& req);

struct Reply {
  std::string status;  // ok | unavailable | error
  std::string message;
  std::string mode;    // how the adapter timed: cold | hot | graph | host
  std::vector<double> samples_ms;
  std::map<std::string, double> summary_ms;
  std::map<std::string, double> throughput;
  double peak_memory_bytes = 0;
  std::map<std::string, std::string> versions;
  bool fresh_inputs = false;  // the output written is that of a call on the fresh inputs
};

// Parses what the adapter printed. Throws InternalError with the reason (not JSON, several
// objects, a missing or mistyped field) so the case becomes `error` with that reason.
// `purpose` "measure" requires non-empty positive finite samples and the summary.
Reply parse_reply(const std::string& stdout_text, const std::string& purpose);

}  // namespace assay::adapter
