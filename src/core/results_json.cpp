// JSON form of the results document. Writing is straightforward; reading checks the
// schema name and version first and names the exact field of any bad value.
#include <nlohmann/json.hpp>

#include <algorithm>
#include <cctype>
#include <cmath>
#include <limits>
#include <map>
#include <string>
#include <type_traits>

#include "core/error.hpp"
#include "core/results.hpp"

namespace assay {
using nlohmann::json;

std::string case_status_name(CaseStatus s) {
  switch (s) {
    case CaseStatus::ok: return "ok";
    case CaseStatus::check_failed: return "check-failed";
    case CaseStatus::skipped: return "skipped";
    case CaseStatus::error: return "error";
    case CaseStatus::crashed: return "crashed";
    case CaseStatus::timeout: return "timeout";
    case CaseStatus::interrupted: return "interrupted";
    case CaseStatus::implausible: return "implausible";
  }
  return "error";
}

std::optional<CaseStatus> parse_case_status(const std::string& s) {
  for (auto st : {CaseStatus::ok, CaseStatus::check_failed, CaseStatus::skipped, CaseStatus::error,
                  CaseStatus::crashed, CaseStatus::timeout, CaseStatus::interrupted,
                  CaseStatus::implausible})
    if (case_status_name(st) == s) return st;
  return std::nullopt;
}

namespace {

// null for none (and for a non-finite value, which JSON cannot hold).
json optional_number(const std::optional<double>& v) {
  return v && std::isfinite(*v) ? json(*v) : json(nullptr);
}

json summary_json(const stats::Summary& s) {
  return {{"n", s.n},           {"min", s.min},       {"max", s.max},       {"mean", s.mean},
          {"stdev", s.stdev},   {"cv", s.cv},         {"median", s.median}, {"p5", s.p5},
          {"p25", s.p25},       {"p75", s.p75},       {"p95", s.p95},       {"p99", s.p99},
          {"median_ci_lo", s.median_ci.lo}, {"median_ci_hi", s.median_ci.hi},
          {"median_ci_rel_halfwidth", std::isfinite(s.median_ci_rel_halfwidth)
                                          ? json(s.median_ci_rel_halfwidth) : json(nullptr)},
          {"median_ci_batch_rel_halfwidth", optional_number(s.median_ci_batch_rel_halfwidth)},
          {"autocorrelation_lag1", optional_number(s.autocorrelation_lag1)}};
}

json check_json(const CheckRecord& c) {
  json j = {{"passed", c.passed}, {"oracle", c.oracle},   {"shape", c.shape},
            {"seed", c.seed},     {"atol", c.atol},       {"rtol", c.rtol},
            {"max_abs", c.max_abs}, {"max_rel", c.max_rel}, {"rel_l2", c.rel_l2},
            {"rmse", std::isfinite(c.rmse) ? json(c.rmse) : json(nullptr)},
            {"fails", c.fails},   {"checked", c.checked}, {"nan_count", c.nan_count},
            {"first_failure", c.first_failure}};
  if (c.calls != 1) j["calls"] = c.calls;
  if (c.bitwise_repeatable) j["bitwise_repeatable"] = *c.bitwise_repeatable;
  if (!c.inputs.empty()) j["inputs"] = c.inputs;
  return j;
}

json measurement_json(const MeasurementRecord& m) {
  json j = {{"mode", m.mode},
          {"samples_ns", m.samples_ns},
          {"sm_clock_mhz", m.sm_clock_mhz},
          {"warmup_calls", m.warmup_calls},
          {"dropped_throttled", m.dropped_throttled},
          {"calls_per_sample", m.calls_per_sample},
          {"input_sets", m.input_sets},
          {"stop_reason", m.stop_reason},
          {"elapsed_s", m.elapsed_s},
          {"l2_flush_bytes", m.l2_flush_bytes},
          {"energy_j", optional_number(m.energy_j)},
          {"energy_window_s", m.energy_window_s},
          {"energy_timed_s", m.energy_timed_s}};
  if (!m.round_samples.empty()) j["round_samples"] = m.round_samples;
  if (!m.l2_flush.empty()) j["l2_flush"] = m.l2_flush;
  if (m.gap_us > 0) {
    j["gap_us"] = m.gap_us;
    j["gap_overruns"] = m.gap_overruns;
  }
  return j;
}

json derived_json(const DerivedRecord& d) {
  return {{"flops", d.flops},   {"min_bytes", d.min_bytes},     {"tflops", d.tflops},
          {"gbs", d.gbs},       {"peak_tflops", d.peak_tflops}, {"pct_of_peak", d.pct_of_peak},
          {"peak_source", d.peak_source},
          {"mean_power_w", optional_number(d.mean_power_w)}};
}

json device_json(const DeviceRecord& d) {
  return {{"kind", d.kind},
          {"index", d.index},
          {"name", d.name},
          {"uuid", d.uuid},
          {"compute_capability", d.compute_capability},
          {"sm_count", d.sm_count},
          {"memory_bytes", d.memory_bytes},
          {"l2_bytes", d.l2_bytes},
          {"max_sm_clock_mhz", d.max_sm_clock_mhz},
          {"max_memory_clock_mhz", d.max_memory_clock_mhz},
          {"memory_bus_width_bits", d.memory_bus_width_bits},
          {"driver_version", d.driver_version},
          {"runtime_version", d.runtime_version},
          {"cpu_threads", d.cpu_threads}};
}

json adapter_json(const AdapterRecord& a) {
  return {{"command", a.command},       {"versions", a.versions},
          {"summary_ms", a.summary_ms}, {"throughput", a.throughput},
          {"peak_memory_bytes", a.peak_memory_bytes}, {"stderr_tail", a.stderr_tail}};
}

json telemetry_json(const TelemetryRecord& t) {
  return {{"source", t.source},
          {"sm_clock_start_mhz", t.sm_clock_start_mhz},
          {"sm_clock_end_mhz", t.sm_clock_end_mhz},
          {"sm_clock_min_mhz", t.sm_clock_min_mhz},
          {"mem_clock_start_mhz", t.mem_clock_start_mhz},
          {"mem_clock_end_mhz", t.mem_clock_end_mhz},
          {"mem_clock_min_mhz", t.mem_clock_min_mhz},
          {"temperature_max_c", t.temperature_max_c},
          {"power_max_w", t.power_max_w},
          {"power_limit_w", t.power_limit_w},
          {"clock_event_reasons", t.clock_event_reasons},
          {"other_processes", t.other_processes},
          {"polls", t.polls},
          {"unstable", t.unstable},
          {"unstable_reasons", t.unstable_reasons}};
}

json kernel_profile_json(const KernelProfileRecord& k) {
  json stalls = json::array();
  for (const auto& [reason, v] : k.stalls) stalls.push_back({{"reason", reason}, {"warps_per_issue", v}});
  return {{"name", k.name},
          {"launches", k.launches},
          {"grid", k.grid},
          {"block", k.block},
          {"duration_ns", k.duration_ns},
          {"total_ns", k.total_ns},
          {"sm_clock_mhz", optional_number(k.sm_clock_mhz)},
          {"compute_pct", optional_number(k.compute_pct)},
          {"memory_pct", optional_number(k.memory_pct)},
          {"dram_pct", optional_number(k.dram_pct)},
          {"dram_bytes", optional_number(k.dram_bytes)},
          {"dram_gbs", optional_number(k.dram_gbs)},
          {"l2_hit_pct", optional_number(k.l2_hit_pct)},
          {"tensor_pipe_pct", optional_number(k.tensor_pipe_pct)},
          {"wgmma_instructions", optional_number(k.wgmma_instructions)},
          {"mma_instructions", optional_number(k.mma_instructions)},
          {"occupancy_pct", optional_number(k.occupancy_pct)},
          {"registers_per_thread", optional_number(k.registers_per_thread)},
          {"shared_static_bytes", optional_number(k.shared_static_bytes)},
          {"shared_dynamic_bytes", optional_number(k.shared_dynamic_bytes)},
          {"local_bytes", optional_number(k.local_bytes)},
          {"stalls", stalls},
          {"bottleneck", k.bottleneck},
          {"rule", k.rule},
          {"advice", k.advice}};
}

json profile_json(const ProfileRecord& p) {
  json kernels = json::array();
  for (const auto& k : p.kernels) kernels.push_back(kernel_profile_json(k));
  return {{"schema", p.schema},
          {"schema_version", p.schema_version},
          {"tool", p.tool},
          {"clock_control", p.clock_control},
          {"metric_table", p.metric_table},
          {"calls", p.calls},
          {"kernels", kernels},
          {"excluded", p.excluded},
          {"kernel_ns_per_call", p.kernel_ns_per_call},
          {"flops", p.flops},
          {"min_bytes", p.min_bytes},
          {"intensity", p.intensity},
          {"bound_tflops", p.bound_tflops},
          {"achieved_tflops", p.achieved_tflops},
          {"fraction_of_bound", p.fraction_of_bound},
          {"under_memory_roof", p.under_memory_roof},
          {"bottleneck", p.bottleneck},
          {"rule", p.rule},
          {"advice", p.advice}};
}

json case_json(const CaseRecord& c) {
  json j = {{"id", c.id},         {"bench", c.bench},     {"workload", c.workload},
            {"backend", c.backend}, {"variant", c.variant}, {"dtype", c.dtype},
            {"params", c.params}, {"status", case_status_name(c.status)},
            {"reason", c.reason}, {"baseline", c.baseline}};
  j["check"] = c.check ? check_json(*c.check) : json(nullptr);
  j["recheck"] = c.recheck ? check_json(*c.recheck) : json(nullptr);
  j["measurement"] = c.measurement ? measurement_json(*c.measurement) : json(nullptr);
  j["summary_ns"] = c.summary ? summary_json(*c.summary) : json(nullptr);
  j["derived"] = c.derived ? derived_json(*c.derived) : json(nullptr);
  j["speedup_vs_baseline"] = c.speedup_vs_baseline ? json(*c.speedup_vs_baseline) : json(nullptr);
  j["baseline_median_ns"] = c.baseline_median_ns ? json(*c.baseline_median_ns) : json(nullptr);
  if (c.cycles_speedup_vs_baseline) j["cycles_speedup_vs_baseline"] = *c.cycles_speedup_vs_baseline;
  if (c.adapter) j["adapter"] = adapter_json(*c.adapter);
  if (c.telemetry) j["telemetry"] = telemetry_json(*c.telemetry);
  if (!c.stderr_tail.empty()) j["stderr_tail"] = c.stderr_tail;
  if (c.device_index >= 0) j["device_index"] = c.device_index;
  if (c.worker_wall_s > 0) j["worker_wall_s"] = c.worker_wall_s;
  if (!c.sanitizer.empty()) j["sanitizer"] = c.sanitizer;
  if (c.profile) j["profile"] = profile_json(*c.profile);
  return j;
}

// What a results file may hold and still be read: a sample is a time in nanoseconds (a value
// outside these bounds is not one, and would take the statistics to infinity or NaN), and an
// array of samples no longer than a run can take (the suite's max_samples bound).
constexpr double kMinSampleNs = 1e-3;
constexpr double kMaxSampleNs = 1e15;
constexpr std::size_t kMaxSamplesPerCase = 1000000;
constexpr double kMaxWork = 1e30;  // flops or bytes of one call

// Reads fields of one JSON object and names the full path of any missing or mistyped one.
class Reader {
 public:
  Reader(const json& j, std::string path, const std::string& origin)
      : j_(j), path_(std::move(path)), origin_(origin) {
    if (!j_.is_object()) fail("", "expected an object");
  }
  template <class T>
  T get(const char* key) const {
    const auto it = j_.find(key);
    if (it == j_.end()) fail(key, "missing");
    // The writer turns non-finite numbers into null (JSON has no NaN or infinity).
    if constexpr (std::is_floating_point_v<T>)
      if (it->is_null()) return std::numeric_limits<T>::quiet_NaN();
    // A whole number must be written as one, and fit: nlohmann would truncate 1.5 to 1 and
    // wrap -1 to 2^64 - 1 without a word.
    if constexpr (std::is_integral_v<T> && !std::is_same_v<T, bool>) {
      if (!it->is_number_integer()) fail(key, std::string("must be a whole number, not ") + it->type_name());
      const bool fits = it->is_number_unsigned()
                            ? it->template get<std::uint64_t>() <= static_cast<std::uint64_t>(std::numeric_limits<T>::max())
                            : std::is_signed_v<T> && it->template get<std::int64_t>() >= static_cast<std::int64_t>(std::numeric_limits<T>::min()) &&
                                  it->template get<std::int64_t>() <= static_cast<std::int64_t>(std::numeric_limits<T>::max());
      if (!fits) fail(key, "is out of range (" + it->dump() + ")");
    }
    try {
      return it->template get<T>();
    } catch (const nlohmann::json::exception&) {
      fail(key, std::string("has the wrong type (") + it->type_name() + ")");
    }
  }
  // A number that must be finite and in [lo, hi] (null, the writer's form of a non-finite
  // value, is not accepted).
  double finite(const char* key, double lo, double hi) const {
    const auto it = j_.find(key);
    if (it == j_.end()) fail(key, "missing");
    if (!it->is_number()) fail(key, std::string("must be a number, not ") + it->type_name());
    const double v = it->get<double>();
    if (!(v >= lo && v <= hi)) fail(key, "is " + it->dump() + ", outside [" + json(lo).dump() + ", " + json(hi).dump() + "]");
    return v;
  }
  // Samples (times in ns): a bounded array of finite numbers within [kMinSampleNs, kMaxSampleNs].
  std::vector<double> samples(const char* key) const {
    const auto it = j_.find(key);
    if (it == j_.end()) fail(key, "missing");
    if (!it->is_array()) fail(key, std::string("must be an array of numbers, not ") + it->type_name());
    if (it->size() > kMaxSamplesPerCase)
      fail(key, "holds " + std::to_string(it->size()) + " samples; a case has at most " +
                    std::to_string(kMaxSamplesPerCase));
    std::vector<double> v;
    v.reserve(it->size());
    for (std::size_t i = 0; i < it->size(); ++i) {
      const auto& x = (*it)[i];
      const std::string at = std::string(key) + "[" + std::to_string(i) + "]";
      if (!x.is_number()) fail(at, std::string("must be a number, not ") + x.type_name());
      const double ns = x.get<double>();
      if (!(ns >= kMinSampleNs && ns <= kMaxSampleNs))
        fail(at, "is " + x.dump() + ": a sample is a time in ns, in [0.001, 1e15]");
      v.push_back(ns);
    }
    return v;
  }
  // A name that becomes part of a file name (suite, tag): letters, digits, '.', '_', '-'.
  std::string name(const char* key, bool may_be_empty) const {
    const auto v = get<std::string>(key);
    bool ok = (may_be_empty || !v.empty()) && v.size() <= 255;
    for (char c : v) ok = ok && (std::isalnum(static_cast<unsigned char>(c)) || c == '.' || c == '_' || c == '-');
    if (!ok) fail(key, std::string(may_be_empty ? "must be letters, " : "must be a non-empty name of letters, ") +
                           "digits, '.', '_' and '-' (at most 255), not " + json(v).dump(-1, ' ', false, json::error_handler_t::replace));
    return v;
  }
  double get_number_or_null(const char* key, double null_value) const {
    const auto it = j_.find(key);
    if (it == j_.end()) fail(key, "missing");
    if (it->is_null()) return null_value;
    if (!it->is_number()) fail(key, "must be a number or null");
    return it->get<double>();
  }
  bool has(const char* key) const { return j_.contains(key); }
  const json& object() const { return j_; }
  // A key documents written before it existed lack: absent or null gives none.
  std::optional<double> optional_number(const char* key) const {
    if (!has(key)) return std::nullopt;
    const double v = get_number_or_null(key, std::numeric_limits<double>::quiet_NaN());
    if (std::isnan(v)) return std::nullopt;
    return v;
  }
  const json* optional_object(const char* key) const {
    const auto it = j_.find(key);
    if (it == j_.end()) fail(key, "missing");
    if (it->is_null()) return nullptr;
    return &*it;
  }
  Reader child(const char* key) const {
    const auto it = j_.find(key);
    if (it == j_.end()) fail(key, "missing");
    return Reader(*it, path_ + "." + key, origin_);
  }
  // The length of the array at `key`; fails when it is not one.
  std::size_t array_size(const char* key) const {
    const auto it = j_.find(key);
    if (it == j_.end()) fail(key, "missing");
    if (!it->is_array()) fail(key, std::string("must be an array, not ") + it->type_name());
    return it->size();
  }
  // The object at `key`[i] (array_size first).
  Reader element(const char* key, std::size_t i) const {
    return Reader(j_.at(key).at(i), path_ + "." + key + "[" + std::to_string(i) + "]", origin_);
  }
  [[noreturn]] void fail(const std::string& key, const std::string& what) const {
    throw InputError(origin_ + ": field '" + path_ + (key.empty() ? "" : "." + key) + "' " + what);
  }

 private:
  const json& j_;
  std::string path_;
  const std::string& origin_;
};

// A summary of samples in ns: its statistics are times in the samples' range, in order, and its
// interval holds its median (reports plot them as they are: a CI to 1e308 had drawn an axis to it).
stats::Summary read_summary(const Reader& r) {
  stats::Summary s;
  s.n = r.get<std::size_t>("n");
  const auto time = [&](const char* key) { return r.finite(key, kMinSampleNs, kMaxSampleNs); };
  s.min = time("min");
  s.max = time("max");
  s.mean = time("mean");
  s.stdev = r.finite("stdev", 0, kMaxSampleNs);
  s.cv = r.get<double>("cv");
  s.median = time("median");
  s.p5 = time("p5");
  s.p25 = time("p25");
  s.p75 = time("p75");
  s.p95 = time("p95");
  s.p99 = time("p99");
  // The batch medians' interval (median ± a half-width) may reach below the smallest sample.
  s.median_ci.lo = r.finite("median_ci_lo", -kMaxSampleNs, kMaxSampleNs);
  s.median_ci.hi = r.finite("median_ci_hi", -kMaxSampleNs, kMaxSampleNs);
  // In order, up to rounding (interpolated percentiles, a mean of equal values).
  const auto at_most = [](double a, double b) { return a <= b + 1e-9 * std::fabs(b); };
  const double order[] = {s.min, s.p5, s.p25, s.median, s.p75, s.p95, s.p99, s.max};
  for (std::size_t i = 1; i < std::size(order); ++i)
    if (!at_most(order[i - 1], order[i])) r.fail("", "is not in order (min <= p5 <= p25 <= median <= p75 <= p95 <= p99 <= max)");
  if (!at_most(s.min, s.mean) || !at_most(s.mean, s.max)) r.fail("mean", "lies outside [min, max]");
  if (!at_most(s.median_ci.lo, s.median) || !at_most(s.median, s.median_ci.hi))
    r.fail("median_ci_lo", "and median_ci_hi must hold the median");
  s.median_ci_rel_halfwidth =
      r.get_number_or_null("median_ci_rel_halfwidth", std::numeric_limits<double>::infinity());
  s.median_ci_batch_rel_halfwidth = r.optional_number("median_ci_batch_rel_halfwidth");
  s.autocorrelation_lag1 = r.optional_number("autocorrelation_lag1");
  return s;
}

CheckRecord read_check(const Reader& r) {
  CheckRecord c;
  c.passed = r.get<bool>("passed");
  c.oracle = r.get<std::string>("oracle");
  c.shape = r.get<std::string>("shape");
  c.seed = r.get<std::uint64_t>("seed");
  c.atol = r.get<double>("atol");
  c.rtol = r.get<double>("rtol");
  c.max_abs = r.get<double>("max_abs");
  c.max_rel = r.get<double>("max_rel");
  c.rel_l2 = r.get_number_or_null("rel_l2", std::numeric_limits<double>::infinity());
  if (r.has("rmse")) c.rmse = r.get_number_or_null("rmse", std::numeric_limits<double>::infinity());
  c.fails = r.get<std::uint64_t>("fails");
  c.checked = r.get<std::uint64_t>("checked");
  c.nan_count = r.get<std::uint64_t>("nan_count");
  c.first_failure = r.get<std::string>("first_failure");
  if (r.has("calls")) c.calls = r.get<std::uint64_t>("calls");
  if (r.has("bitwise_repeatable")) c.bitwise_repeatable = r.get<bool>("bitwise_repeatable");
  if (r.has("inputs")) c.inputs = r.get<std::string>("inputs");
  return c;
}

MeasurementRecord read_measurement(const Reader& r) {
  MeasurementRecord m;
  m.mode = r.get<std::string>("mode");
  m.samples_ns = r.samples("samples_ns");
  m.sm_clock_mhz = r.get<std::vector<double>>("sm_clock_mhz");
  if (m.sm_clock_mhz.size() > kMaxSamplesPerCase) r.fail("sm_clock_mhz", "holds more values than a case has samples");
  for (std::size_t i = 0; i < m.sm_clock_mhz.size(); ++i)  // 0: no clock tick seen during that sample
    if (!(m.sm_clock_mhz[i] >= 0.0 && m.sm_clock_mhz[i] <= 1e5))
      r.fail("sm_clock_mhz[" + std::to_string(i) + "]",
             "is " + json(m.sm_clock_mhz[i]).dump() + ": an SM clock in MHz, in [0, 100000] (0: not seen)");
  m.warmup_calls = r.get<std::uint64_t>("warmup_calls");
  m.dropped_throttled = r.get<std::uint64_t>("dropped_throttled");
  m.calls_per_sample = r.get<std::uint64_t>("calls_per_sample");
  m.input_sets = r.get<std::uint64_t>("input_sets");
  m.stop_reason = r.get<std::string>("stop_reason");
  m.elapsed_s = r.get<double>("elapsed_s");
  m.l2_flush_bytes = r.get<std::uint64_t>("l2_flush_bytes");
  if (r.has("l2_flush")) {
    m.l2_flush = r.get<std::string>("l2_flush");
    if (m.l2_flush != kL2FlushClean)
      r.fail("l2_flush", "must be \"" + std::string(kL2FlushClean) + "\" when present (a memset flush writes no field)");
  }
  m.energy_j = r.optional_number("energy_j");
  if (m.energy_j) {
    m.energy_window_s = r.get<double>("energy_window_s");
    m.energy_timed_s = r.get<double>("energy_timed_s");
  }
  if (r.has("round_samples")) m.round_samples = r.get<std::vector<std::uint64_t>>("round_samples");
  if (r.has("gap_us")) {
    m.gap_us = r.get<double>("gap_us");
    m.gap_overruns = r.get<std::uint64_t>("gap_overruns");
  }
  return m;
}

DerivedRecord read_derived(const Reader& r) {
  DerivedRecord d;
  d.flops = r.finite("flops", 0, kMaxWork);
  d.min_bytes = r.finite("min_bytes", 0, kMaxWork);
  d.tflops = r.finite("tflops", 0, kMaxWork);
  d.gbs = r.finite("gbs", 0, kMaxWork);
  d.peak_tflops = r.finite("peak_tflops", 0, 1e9);
  d.pct_of_peak = r.finite("pct_of_peak", 0, kMaxWork);
  d.peak_source = r.get<std::string>("peak_source");
  d.mean_power_w = r.optional_number("mean_power_w");
  return d;
}

AdapterRecord read_adapter(const Reader& r) {
  AdapterRecord a;
  a.command = r.get<std::vector<std::string>>("command");
  a.versions = r.get<std::map<std::string, std::string>>("versions");
  a.summary_ms = r.get<std::map<std::string, double>>("summary_ms");
  a.throughput = r.get<std::map<std::string, double>>("throughput");
  a.peak_memory_bytes = r.get<double>("peak_memory_bytes");
  a.stderr_tail = r.get<std::string>("stderr_tail");
  return a;
}

TelemetryRecord read_telemetry(const Reader& r) {
  TelemetryRecord t;
  t.source = r.get<std::string>("source");
  t.sm_clock_start_mhz = r.get<int>("sm_clock_start_mhz");
  t.sm_clock_end_mhz = r.get<int>("sm_clock_end_mhz");
  t.sm_clock_min_mhz = r.get<int>("sm_clock_min_mhz");
  t.mem_clock_start_mhz = r.get<int>("mem_clock_start_mhz");
  t.mem_clock_end_mhz = r.get<int>("mem_clock_end_mhz");
  t.mem_clock_min_mhz = r.get<int>("mem_clock_min_mhz");
  t.temperature_max_c = r.get<int>("temperature_max_c");
  t.power_max_w = r.get<double>("power_max_w");
  t.power_limit_w = r.get<double>("power_limit_w");
  t.clock_event_reasons = r.get<std::vector<std::string>>("clock_event_reasons");
  t.other_processes = r.get<std::vector<std::string>>("other_processes");
  t.polls = r.get<std::uint64_t>("polls");
  t.unstable = r.get<bool>("unstable");
  t.unstable_reasons = r.get<std::vector<std::string>>("unstable_reasons");
  return t;
}

DeviceRecord read_device(const Reader& r) {
  DeviceRecord d;
  d.kind = r.get<std::string>("kind");
  d.index = r.get<int>("index");
  d.name = r.get<std::string>("name");
  d.uuid = r.get<std::string>("uuid");
  d.compute_capability = r.get<std::string>("compute_capability");
  d.sm_count = r.get<int>("sm_count");
  d.memory_bytes = r.get<std::uint64_t>("memory_bytes");
  d.l2_bytes = r.get<std::uint64_t>("l2_bytes");
  d.max_sm_clock_mhz = r.get<int>("max_sm_clock_mhz");
  d.max_memory_clock_mhz = r.get<int>("max_memory_clock_mhz");
  d.memory_bus_width_bits = r.get<int>("memory_bus_width_bits");
  d.driver_version = r.get<std::string>("driver_version");
  d.runtime_version = r.get<std::string>("runtime_version");
  d.cpu_threads = r.get<int>("cpu_threads");
  return d;
}

KernelProfileRecord read_kernel_profile(const Reader& r) {
  KernelProfileRecord k;
  k.name = r.get<std::string>("name");
  k.launches = r.get<std::uint64_t>("launches");
  k.grid = r.get<std::string>("grid");
  k.block = r.get<std::string>("block");
  k.duration_ns = r.finite("duration_ns", 0, kMaxSampleNs);
  // Absent from documents written before it: their launches were counted at the median.
  k.total_ns = r.has("total_ns") ? r.finite("total_ns", 0, 1e18) : k.duration_ns * static_cast<double>(k.launches);
  k.sm_clock_mhz = r.optional_number("sm_clock_mhz");
  k.compute_pct = r.optional_number("compute_pct");
  k.memory_pct = r.optional_number("memory_pct");
  k.dram_pct = r.optional_number("dram_pct");
  k.dram_bytes = r.optional_number("dram_bytes");
  k.dram_gbs = r.optional_number("dram_gbs");
  k.l2_hit_pct = r.optional_number("l2_hit_pct");
  k.tensor_pipe_pct = r.optional_number("tensor_pipe_pct");
  k.wgmma_instructions = r.optional_number("wgmma_instructions");
  k.mma_instructions = r.optional_number("mma_instructions");
  k.occupancy_pct = r.optional_number("occupancy_pct");
  k.registers_per_thread = r.optional_number("registers_per_thread");
  k.shared_static_bytes = r.optional_number("shared_static_bytes");
  k.shared_dynamic_bytes = r.optional_number("shared_dynamic_bytes");
  k.local_bytes = r.optional_number("local_bytes");
  for (std::size_t i = 0, n = r.array_size("stalls"); i < n; ++i) {
    const Reader s = r.element("stalls", i);
    k.stalls.emplace_back(s.get<std::string>("reason"), s.get<double>("warps_per_issue"));
  }
  k.bottleneck = r.get<std::string>("bottleneck");
  k.rule = r.get<std::string>("rule");
  k.advice = r.get<std::string>("advice");
  return k;
}

ProfileRecord read_profile(const Reader& r) {
  ProfileRecord p;
  p.schema = r.get<std::string>("schema");
  p.schema_version = r.get<int>("schema_version");
  if (p.schema != kProfileSchemaName) r.fail("schema", "is '" + p.schema + "', expected '" + kProfileSchemaName + "'");
  if (p.schema_version != kProfileSchemaVersion)
    r.fail("schema_version", "is " + std::to_string(p.schema_version) + "; this assay reads version " +
                                 std::to_string(kProfileSchemaVersion));
  p.tool = r.get<std::string>("tool");
  p.clock_control = r.get<std::string>("clock_control");
  p.metric_table = r.get<std::string>("metric_table");
  p.calls = r.get<std::uint64_t>("calls");
  for (std::size_t i = 0, n = r.array_size("kernels"); i < n; ++i)
    p.kernels.push_back(read_kernel_profile(r.element("kernels", i)));
  p.excluded = r.get<std::vector<std::string>>("excluded");
  p.kernel_ns_per_call = r.get<double>("kernel_ns_per_call");
  p.flops = r.finite("flops", 0, kMaxWork);
  p.min_bytes = r.finite("min_bytes", 0, kMaxWork);
  p.intensity = r.get<double>("intensity");
  p.bound_tflops = r.get<double>("bound_tflops");
  p.achieved_tflops = r.get<double>("achieved_tflops");
  p.fraction_of_bound = r.get<double>("fraction_of_bound");
  p.under_memory_roof = r.get<bool>("under_memory_roof");
  p.bottleneck = r.get<std::string>("bottleneck");
  p.rule = r.get<std::string>("rule");
  p.advice = r.get<std::string>("advice");
  return p;
}

CaseRecord read_case(const Reader& r) {
  CaseRecord c;
  c.id = r.get<std::string>("id");
  c.bench = r.get<std::string>("bench");
  c.workload = r.get<std::string>("workload");
  c.backend = r.get<std::string>("backend");
  c.variant = r.get<std::string>("variant");
  c.dtype = r.get<std::string>("dtype");
  {
    const Reader params = r.child("params");
    for (const auto& [key, value] : params.object().items()) {
      // (a NUL would also cut the key below and name the wrong field "missing")
      if (std::any_of(key.begin(), key.end(), [](unsigned char ch) { return ch < 0x20 || ch == 0x7f; }))
        params.fail("", "has a parameter name with a control character: " + json(key).dump());
      c.params[key] = params.get<std::int64_t>(key.c_str());
    }
  }
  const auto status = parse_case_status(r.get<std::string>("status"));
  if (!status) r.fail("status", "must be one of ok, check-failed, skipped, error, crashed, timeout");
  c.status = *status;
  c.reason = r.get<std::string>("reason");
  c.baseline = r.get<std::string>("baseline");
  if (r.optional_object("check")) c.check = read_check(r.child("check"));
  if (r.optional_object("recheck")) c.recheck = read_check(r.child("recheck"));
  if (r.optional_object("measurement"))
    c.measurement = read_measurement(r.child("measurement"));
  if (r.optional_object("summary_ns")) {
    const Reader summary = r.child("summary_ns");
    c.summary = read_summary(summary);
    if (c.status == CaseStatus::ok) summary.finite("median", kMinSampleNs, kMaxSampleNs);  // a time the reports show
  }
  if (r.optional_object("derived")) c.derived = read_derived(r.child("derived"));
  if (r.optional_object("speedup_vs_baseline")) c.speedup_vs_baseline = r.get<double>("speedup_vs_baseline");
  if (r.optional_object("baseline_median_ns")) c.baseline_median_ns = r.get<double>("baseline_median_ns");
  if (r.has("cycles_speedup_vs_baseline")) c.cycles_speedup_vs_baseline = r.get<double>("cycles_speedup_vs_baseline");
  if (r.has("adapter") && r.optional_object("adapter")) c.adapter = read_adapter(r.child("adapter"));
  if (r.has("telemetry") && r.optional_object("telemetry")) c.telemetry = read_telemetry(r.child("telemetry"));
  if (r.has("stderr_tail")) c.stderr_tail = r.get<std::string>("stderr_tail");
  if (r.has("device_index")) c.device_index = r.get<int>("device_index");
  if (r.has("worker_wall_s")) c.worker_wall_s = r.get<double>("worker_wall_s");
  if (r.has("sanitizer")) c.sanitizer = r.get<std::map<std::string, std::string>>("sanitizer");
  if (r.has("profile") && r.optional_object("profile")) c.profile = read_profile(r.child("profile"));
  return c;
}

}  // namespace

std::string to_json_text(const ResultsDocument& doc, int indent) {
  const RunRecord& r = doc.run;
  json run = {{"assay_version", r.assay_version},
              {"assay_build_commit", r.assay_build_commit},
              {"git_commit", r.git_commit},
              {"git_dirty", r.git_dirty},
              {"started_utc", r.started_utc},
              {"finished_utc", r.finished_utc},
              {"host", r.host},
              {"command_line", r.command_line},
              {"tag", r.tag},
              {"suite_path", r.suite_path},
              {"suite_name", r.suite_name},
              {"suite_hash", r.suite_hash},
              {"mode", r.mode},
              {"device", device_json(r.device)},
              {"libraries", r.libraries},
              {"environment", r.environment}};
  if (!r.shard.empty()) run["shard"] = r.shard;
  if (!r.ab_pair.empty()) {
    run["ab_pair"] = r.ab_pair;
    run["ab_side"] = r.ab_side;
  }
  json cases = json::array();
  for (const auto& c : doc.cases) cases.push_back(case_json(c));
  const json j = {{"schema", r.schema},
                  {"schema_version", r.schema_version},
                  {"run", std::move(run)},
                  {"cases", std::move(cases)}};
  // Non-finite numbers are not JSON: nlohmann writes them as null, which the reader maps back.
  // Text from outside (an adapter's stderr cut at a byte offset, a library's message) may not
  // be valid UTF-8: it is kept as bytes until here, and written with each invalid sequence
  // replaced by U+FFFD, so that no text can make a record unwritable.
  return j.dump(indent, ' ', false, json::error_handler_t::replace) + "\n";
}

std::string case_to_json_text(const CaseRecord& c) {
  return case_json(c).dump(-1, ' ', false, json::error_handler_t::replace) + "\n";
}

namespace {

// The text as JSON, refused (InputError naming `origin`) as soon as one array or object holds more
// values than any field of a document may (twice a case's samples): a hostile file of ten million
// samples is turned away after two million, not after building all of them (seconds of parsing
// and a gigabyte of memory). Fields within the bound get their own message from the Reader.
json parse_bounded(const std::string& text, const std::string& origin) {
  constexpr std::size_t kMaxValues = 2 * kMaxSamplesPerCase;
  std::vector<std::size_t> held;  // values so far in the open container at each depth
  std::vector<std::string> key;   // the last key seen at each depth (names the field refused)
  const json::parser_callback_t count = [&](int depth, json::parse_event_t event, json& parsed) {
    const auto d = static_cast<std::size_t>(depth);
    if (held.size() < d + 2) {
      held.resize(d + 2);
      key.resize(d + 2);
    }
    if (event == json::parse_event_t::key) {
      key[d] = parsed.is_string() ? parsed.get<std::string>() : std::string();
    } else if (event == json::parse_event_t::array_start || event == json::parse_event_t::object_start) {
      held[d + 1] = 0;
    } else if (event == json::parse_event_t::value || event == json::parse_event_t::array_end ||
               event == json::parse_event_t::object_end) {
      if (++held[d] > kMaxValues)
        throw InputError(origin + ": field '" + (d > 0 ? key[d - 1] : std::string("$")) + "' holds more than " +
                         std::to_string(kMaxValues) + " values (a case has at most " +
                         std::to_string(kMaxSamplesPerCase) + " samples)");
    }
    return true;
  };
  try {
    return json::parse(text, count);
  } catch (const json::parse_error& e) {
    throw InputError(origin + ": not valid JSON (byte " + std::to_string(e.byte) + ")");
  } catch (const json::exception& e) {  // a number out of range (1e999), ...
    throw InputError(origin + ": not valid JSON (" + e.what() + ")");
  }
}

}  // namespace

CaseRecord parse_case_json(const std::string& text, const std::string& origin) {
  const json j = parse_bounded(text, origin);
  return read_case(Reader(j, "$", origin));
}

ResultsDocument parse_results_json(const std::string& text, const std::string& origin) {
  const json j = parse_bounded(text, origin);
  const Reader top(j, "$", origin);
  const auto schema = top.get<std::string>("schema");
  if (schema != kResultsSchemaName)
    top.fail("schema", "is '" + schema + "', not an assay results document ('" +
                           kResultsSchemaName + "')");
  const std::int64_t version = top.get<std::int64_t>("schema_version");
  if (version != kResultsSchemaVersion)
    top.fail("schema_version", "is " + std::to_string(version) + "; this assay reads version " +
                                   std::to_string(kResultsSchemaVersion));
  ResultsDocument doc;
  const Reader run = top.child("run");
  RunRecord& r = doc.run;
  r.schema = schema;
  r.schema_version = static_cast<int>(version);
  r.assay_version = run.get<std::string>("assay_version");
  r.assay_build_commit = run.get<std::string>("assay_build_commit");
  r.git_commit = run.get<std::string>("git_commit");
  r.git_dirty = run.get<bool>("git_dirty");
  r.started_utc = run.get<std::string>("started_utc");
  r.finished_utc = run.get<std::string>("finished_utc");
  r.host = run.get<std::string>("host");
  r.command_line = run.get<std::vector<std::string>>("command_line");
  r.tag = run.name("tag", true);
  r.suite_path = run.get<std::string>("suite_path");
  r.suite_name = run.name("suite_name", true);
  r.suite_hash = run.get<std::string>("suite_hash");
  r.mode = run.get<std::string>("mode");
  r.device = read_device(run.child("device"));
  r.libraries = run.get<std::map<std::string, std::string>>("libraries");
  r.environment = run.get<std::map<std::string, std::string>>("environment");
  if (run.has("shard")) r.shard = run.get<std::string>("shard");
  if (run.has("ab_pair")) {
    r.ab_pair = run.get<std::string>("ab_pair");
    r.ab_side = run.name("ab_side", false);
    if (r.ab_side != "base" && r.ab_side != "candidate") run.fail("ab_side", "must be \"base\" or \"candidate\"");
  }
  const auto& cases = j.find("cases");
  if (cases == j.end() || !cases->is_array()) top.fail("cases", "missing or not an array");
  // One entry per case: a repeated id would count as a second session of that case in a
  // comparison (a zero-spread replicate, gated as certain) and twice in a summary of sessions.
  std::map<std::string, std::size_t> first_index;
  for (std::size_t i = 0; i < cases->size(); ++i) {
    const Reader at((*cases)[i], "$.cases[" + std::to_string(i) + "]", origin);
    doc.cases.push_back(read_case(at));
    const auto [it, fresh] = first_index.emplace(doc.cases.back().id, i);
    if (!fresh) at.fail("id", "'" + it->first + "' is also $.cases[" + std::to_string(it->second) + "]'s: a document holds each case once");
  }
  return doc;
}

}  // namespace assay
