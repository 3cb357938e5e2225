#pragma once
// The results document: one per run, schema "assay.results" version kResultsSchemaVersion
// (docs/results-schema.md). Plain structs; JSON conversion lives in results_json.cpp.
#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "stats/summary.hpp"

namespace assay {

inline constexpr int kResultsSchemaVersion = 1;
inline constexpr const char* kResultsSchemaName = "assay.results";

struct DeviceRecord {
  std::string kind = "cpu";  // "cuda" or "cpu"
  int index = -1;
  std::string name;
  std::string uuid;
  std::string compute_capability;  // "9.0"
  int sm_count = 0;
  std::uint64_t memory_bytes = 0;
  std::uint64_t l2_bytes = 0;
  int max_sm_clock_mhz = 0;
  int max_memory_clock_mhz = 0;
  int memory_bus_width_bits = 0;
  std::string driver_version;
  std::string runtime_version;
  int cpu_threads = 0;
};

// The DRAM bandwidth the device's memory clock and bus allow (GB/s; DDR: two transfers a
// clock); 0 when either is unknown.
inline double peak_memory_gbs(const DeviceRecord& d) {
  if (d.max_memory_clock_mhz <= 0 || d.memory_bus_width_bits <= 0) return 0;
  return 2.0 * d.max_memory_clock_mhz * 1e6 * (d.memory_bus_width_bits / 8.0) / 1e9;
}

// "9.0" -> "sm_90", "12.0" -> "sm_120".
inline std::string sm_name(const std::string& compute_capability) {
  std::string s = "sm_";
  for (char c : compute_capability)
    if (c != '.') s += c;
  return s;
}

struct RunRecord {
  std::string schema = kResultsSchemaName;
  int schema_version = kResultsSchemaVersion;
  std::string assay_version;
  std::string assay_build_commit;
  std::string git_commit;  // of the working tree the run was started in; empty when none
  bool git_dirty = false;
  std::string started_utc;
  std::string finished_utc;
  std::string host;
  std::vector<std::string> command_line;
  std::string tag;
  std::string suite_path;
  std::string suite_name;
  std::string suite_hash;
  std::string mode;
  DeviceRecord device;
  std::map<std::string, std::string> libraries;  // name -> version
  std::map<std::string, std::string> environment;  // the settings in force (math modes, seeds)
  std::string shard;  // "i/n" for one shard of a suite, "merged" for a merge of shards, else empty
  // The two documents of one `assay ab` run share ab_pair; ab_side is "base" or "candidate".
  // Both empty otherwise.
  std::string ab_pair, ab_side;
};

struct CheckRecord {
  bool passed = false;
  std::string oracle;  // "fp64-cpu" (all elements) or "fp64-cpu-sampled-rows"
  std::string shape;   // e.g. "k=384,m=384,n=384"
  std::uint64_t seed = 0;
  double atol = 0, rtol = 0;
  double max_abs = 0, max_rel = 0, rel_l2 = 0;
  double rmse = 0;  // sqrt(mean (out - ref)²) over the checked elements; +inf with a NaN or Inf
  std::uint64_t fails = 0, checked = 0, nan_count = 0;
  std::string first_failure;  // index, value and reference of the first failing element
  // The check: how many calls were checked (each into a poisoned output) and whether their
  // outputs were bitwise equal (a kernel with atomics may legitimately differ in low bits).
  std::uint64_t calls = 1;
  std::optional<bool> bitwise_repeatable;
  // The recheck: "fresh" (a call on inputs of another seed, `seed`, put where the timed inputs
  // were), "timed" (a call on the timed inputs), empty in documents that predate the field.
  std::string inputs;
};

// Cold mode's L2 flushes by name: the suite's `l2_flush`, `--l2-flush`, MeasurementRecord::l2_flush
// (measure::L2Flush is the measuring layer's enum of them; docs/measurement-notes.md).
inline constexpr std::string_view kL2FlushMemset = "memset";
inline constexpr std::string_view kL2FlushClean = "clean";

struct MeasurementRecord {
  std::string mode;  // cold | hot | graph | host | cpu
  std::vector<double> samples_ns;
  std::vector<double> sm_clock_mhz;  // per kept sample; empty when the sampler has no clock probe
  std::uint64_t warmup_calls = 0;
  std::uint64_t dropped_throttled = 0;
  std::uint64_t calls_per_sample = 1;  // batch size (hot) or graph length (graph)
  std::uint64_t input_sets = 1;        // input rotation (hot/graph when the inputs fit in L2)
  std::string stop_reason;             // converged | max-samples | timeout
  double elapsed_s = 0;
  std::uint64_t l2_flush_bytes = 0;
  // How the flush left L2 (suite `l2_flush`): kL2FlushClean (read: no dirty lines); empty for the
  // default, a memset that leaves the flush's dirty lines for the timed call to write back, and when
  // no flush ran.
  std::string l2_flush;
  // The board's energy over the sampling phase (after warm-up), from NVML's counter: joules,
  // the window's seconds, and the seconds of it the kept samples timed (their time per call x
  // calls per sample). Everything the GPU did in the window counts: the gaps between samples,
  // in cold mode the L2 flushes too; so it is no kernel's energy per call.
  std::optional<double> energy_j;
  double energy_window_s = 0;
  double energy_timed_s = 0;
  // Measured in rounds (suite `rounds` > 1): the kept samples of each round, in the order they
  // ran; `samples_ns` holds them one round after another. Empty when measured in one piece.
  std::vector<std::uint64_t> round_samples;
  // The GPU idle asked for between samples (suite `gap_us`; 0: none asked), and how many samples
  // followed a longer one because the host had not enqueued them by the gap's end.
  double gap_us = 0;
  std::uint64_t gap_overruns = 0;
};

// Each kept sample's work in SM clock cycles, time x its probed clock (ns x MHz / 1000): blind to
// the clock a power cap or boost chose. Empty unless every kept sample has its clock.
inline std::vector<double> cycle_samples(const MeasurementRecord& m) {
  if (m.sm_clock_mhz.size() != m.samples_ns.size() || m.samples_ns.empty()) return {};
  std::vector<double> v;
  v.reserve(m.samples_ns.size());
  for (std::size_t i = 0; i < m.samples_ns.size(); ++i) {
    if (!(m.sm_clock_mhz[i] > 0)) return {};
    v.push_back(m.samples_ns[i] * m.sm_clock_mhz[i] * 1e-3);
  }
  return v;
}

struct DerivedRecord {
  double flops = 0;
  double min_bytes = 0;
  double tflops = 0;
  double gbs = 0;
  double peak_tflops = 0;  // 0 when unknown
  double pct_of_peak = 0;
  std::string peak_source;
  std::optional<double> mean_power_w;  // measurement energy_j / energy_window_s
};

// What an external adapter (docs/adapters.md) reported about itself, for the record.
struct AdapterRecord {
  std::vector<std::string> command;
  std::map<std::string, std::string> versions;
  std::map<std::string, double> summary_ms;  // the adapter's own summary, kept for cross-checking
  std::map<std::string, double> throughput;
  double peak_memory_bytes = 0;
  std::string stderr_tail;  // of the measuring call
};

// GPU state around one case, from NVML (src/gpu/telemetry.hpp). Clocks in MHz, power in W.
struct TelemetryRecord {
  std::string source;  // "nvml", or "unavailable: <why>"
  int sm_clock_start_mhz = 0, sm_clock_end_mhz = 0, sm_clock_min_mhz = 0;
  int mem_clock_start_mhz = 0, mem_clock_end_mhz = 0, mem_clock_min_mhz = 0;
  int temperature_max_c = 0;
  double power_max_w = 0, power_limit_w = 0;
  std::vector<std::string> clock_event_reasons;  // every reason seen while the case ran
  std::vector<std::string> other_processes;      // other compute processes on the GPU
  std::uint64_t polls = 0;
  // Polls at which NVML gave the power, the clock-event reasons and the process list: a doctor
  // check passes on a reading, not on a quantity NVML refused (NO_PERMISSION in a container).
  // Not in the results document.
  std::uint64_t power_reads = 0, reason_reads = 0, process_reads = 0;
  bool unstable = false;                         // throttled (power, thermal, hw) or not alone
  std::vector<std::string> unstable_reasons;
};

// ok: checked and timed; check-failed: a check failed (never timed); skipped: could not run
// here; error: the case could not run; crashed: its worker died (fault, abort, signal);
// `assay profile` (docs/profile.md): one case's kernels under Nsight Compute. Its own schema
// name and version, so that a reader can tell what the block holds; absent in `assay run`'s
// documents. Percentages are of the GPU's peak (Nsight Compute's "speed of light"); a metric the
// profiler did not report is absent (nullopt), never 0.
inline constexpr int kProfileSchemaVersion = 1;
inline constexpr const char* kProfileSchemaName = "assay.profile";

struct KernelProfileRecord {
  std::string name;
  std::uint64_t launches = 0;  // launches of this kernel in the profiled window
  std::string grid, block;     // "(2, 66, 1)"
  double duration_ns = 0;      // median over its launches
  double total_ns = 0;         // sum over its launches (what it adds to the window)
  std::optional<double> sm_clock_mhz;
  std::optional<double> compute_pct, memory_pct;  // SM throughput; the busiest memory unit
  std::optional<double> dram_pct, dram_bytes, dram_gbs;
  std::optional<double> l2_hit_pct;
  std::optional<double> tensor_pipe_pct;           // every tensor instruction (wgmma and mma)
  std::optional<double> wgmma_instructions, mma_instructions;  // per launch, warp level
  std::optional<double> occupancy_pct;             // achieved: warps active / maximum
  std::optional<double> registers_per_thread;
  std::optional<double> shared_static_bytes, shared_dynamic_bytes;  // per block
  std::optional<double> local_bytes;               // local-memory loads + stores (spills)
  std::vector<std::pair<std::string, double>> stalls;  // top reasons: warps stalled per issue
  std::string bottleneck, rule, advice;            // tune::diagnose on this kernel's metrics
};

struct ProfileRecord {
  std::string schema = kProfileSchemaName;
  int schema_version = kProfileSchemaVersion;
  std::string tool;           // "ncu 2025.3.1.0"
  std::string clock_control;  // ncu --clock-control: "none" (the card's own clocks) or "base"
  std::string metric_table;   // which architecture's metric names were asked for ("sm_90")
  std::uint64_t calls = 0;    // calls of the case inside the window
  std::vector<KernelProfileRecord> kernels;  // by time per call, longest first
  std::vector<std::string> excluded;         // assay's own kernels seen in the window, left out
  double kernel_ns_per_call = 0;             // sum of the kernels' time per call
  // The roofline of one call: the workload's FLOPs and least bytes over the kernel time.
  double flops = 0, min_bytes = 0, intensity = 0;
  double bound_tflops = 0, achieved_tflops = 0, fraction_of_bound = 0;
  bool under_memory_roof = false;
  std::string bottleneck, rule, advice;  // those of the kernel that takes the most time
};

// timeout: its worker was killed at the per-case limit; interrupted: assay was stopped (SIGINT,
// SIGTERM) before the case finished, or before it started; implausible: its median time is below
// the physical floor of the device (its work at the peak rate), so the timing is wrong.
enum class CaseStatus { ok, check_failed, skipped, error, crashed, timeout, interrupted, implausible };
std::string case_status_name(CaseStatus s);
std::optional<CaseStatus> parse_case_status(const std::string& s);

struct CaseRecord {
  std::string id;
  std::string bench;
  std::string workload;
  std::string backend;
  std::string variant;  // the backend's configuration chosen for this case
  std::string dtype;
  std::map<std::string, std::int64_t> params;
  CaseStatus status = CaseStatus::error;
  std::string reason;  // why a case is not ok
  std::optional<CheckRecord> check;    // before timing, on the check shape
  std::optional<CheckRecord> recheck;  // the output of the last timed call
  std::optional<MeasurementRecord> measurement;
  std::optional<stats::Summary> summary;  // only for ok cases
  std::optional<DerivedRecord> derived;
  std::string baseline;                      // baseline backend of the bench
  std::optional<double> speedup_vs_baseline;  // baseline median / this median (>1: faster)
  std::optional<double> baseline_median_ns;
  // The same ratio of the median cycles (each sample's time x its SM clock): the speedup at one
  // clock, where the power cap moved it between the two cases. Only where both have a clock per
  // sample; it means little for a memory-bound kernel, whose time does not follow the SM clock.
  std::optional<double> cycles_speedup_vs_baseline;
  std::optional<AdapterRecord> adapter;  // external backends only
  std::optional<TelemetryRecord> telemetry;
  std::string stderr_tail;  // of a worker that crashed or timed out
  int device_index = -1;    // the CUDA device the case ran on (-1: the host)
  double worker_wall_s = 0; // wall time of the isolated worker process (0: ran in-process)
  std::map<std::string, std::string> sanitizer;  // check --sanitize: tool -> "0 errors" or the findings
  std::optional<ProfileRecord> profile;          // assay profile only
};

struct ResultsDocument {
  RunRecord run;
  std::vector<CaseRecord> cases;
};

std::string to_json_text(const ResultsDocument& doc, int indent = 1);
// One case alone (what an isolated worker prints), and back.
std::string case_to_json_text(const CaseRecord& c);
CaseRecord parse_case_json(const std::string& text, const std::string& origin);
// Parses and validates a results document; throws InputError naming `origin` and the field.
ResultsDocument parse_results_json(const std::string& text, const std::string& origin);

}  // namespace assay
