#include "runner/runner.hpp"

#include <atomic>
#include <cmath>
#include <mutex>
#include <thread>
#include <filesystem>
#include <regex>
#include <set>

#include <fmt/format.h>

#include "backends/backend.hpp"
#include "backends/external_backend.hpp"
#include "core/atomic_file.hpp"
#include "assay/version.hpp"
#include "core/ids.hpp"
#include "gpu/device_info.hpp"
#include "gpu/doctor.hpp"
#include "gpu/telemetry.hpp"
#include "measure/measure_loop.hpp"
#include "report/markdown.hpp"
#include "runner/executor.hpp"
#include "runner/run_metadata.hpp"
#include "runner/worker.hpp"
#include "verify/tolerance.hpp"
#include "workloads/workload.hpp"

namespace assay::runner {

namespace {

std::string join(const std::vector<std::string>& v) {
  std::string s;
  for (const auto& x : v) s += (s.empty() ? "" : ", ") + x;
  return s;
}



// A file stem not used yet by a results file (two runs can finish in the same second).
std::string unique_stem(const std::string& stem) {
  std::string s = stem;
  for (int i = 2; std::filesystem::exists(s + ".json"); ++i) s = stem + "-" + std::to_string(i);
  return s;
}

std::string gib(double bytes) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%.2f GiB", bytes / (1024.0 * 1024 * 1024));
  return buf;
}

void validate_bench(const suite::Bench& b) {
  const std::string at = b.pos.str() + ": bench '" + b.name + "': ";
  const Workload* w = find_workload(b.workload);
  if (!w) {
    std::vector<std::string> names;
    for (const Workload* x : all_workloads()) names.push_back(x->name());
    throw InputError(at + "workload: unknown workload '" + b.workload + "' (known: " + join(names) + ")");
  }
  for (const auto& name : b.backends) {
    const Backend* be = find_backend(name);
    if (!be) {
      std::vector<std::string> names;
      for (const Backend* x : all_backends()) names.push_back(x->name());
      throw InputError(at + "backends: unknown backend '" + name + "' (known: " + join(names) + ")");
    }
  }
  for (const auto& d : b.dtypes) {
    const auto t = parse_dtype(d);
    std::vector<std::string> names;
    for (DType x : w->dtypes()) names.push_back(std::string(dtype_name(x)));
    bool ok = t.has_value();
    if (ok) {
      ok = false;
      for (DType x : w->dtypes()) ok = ok || x == *t;
    }
    if (!ok) throw InputError(at + "dtype: '" + d + "' is not a dtype of " + b.workload + " (" + join(names) + ")");
    for (const auto& name : b.backends)
      if (!find_backend(name)->supports(b.workload, *t))
        throw InputError(at + "backends: '" + name + "' does not implement " + b.workload + " in " + d);
  }
  const auto names = w->param_names();
  const std::set<std::string> known(names.begin(), names.end());
  for (const auto& axis : b.axes) {
    if (!known.count(axis.name))
      throw InputError(axis.pos.str() + ": bench '" + b.name + "': axes." + axis.name + ": " + b.workload +
                       " has no parameter '" + axis.name + "' (it takes " + join(names) + ")");
    const auto [lo, hi] = w->param_range(axis.name);
    for (auto v : axis.values)
      if (v < lo || v > hi)
        throw InputError(axis.pos.str() + ": bench '" + b.name + "': axes." + axis.name + ": " + std::to_string(v) +
                         " is outside [" + std::to_string(lo) + ", " + std::to_string(hi) + "]");
  }
  for (const auto& [key, value] : b.check.shape)
    if (!known.count(key))
      throw InputError(at + "check.shape." + key + ": " + b.workload + " has no parameter '" + key + "'");
  for (const auto& p : names) {
    bool found = false;
    for (const auto& axis : b.axes) found = found || axis.name == p;
    if (!found) throw InputError(at + "axes: parameter '" + p + "' of " + b.workload + " has no axis");
  }
}

}  // namespace

CaseRecord make_planned_record(const PlannedCase& pc) {
  CaseRecord r;
  r.id = pc.id;
  r.bench = pc.bench->name;
  r.workload = pc.bench->workload;
  r.backend = pc.backend;
  r.dtype = pc.point.dtype;
  r.params = pc.point.params;
  r.baseline = pc.bench->baseline;
  return r;
}

namespace {

// Builds a problem, checking first that one instance of it fits in the executor's memory.
std::unique_ptr<Problem> make_problem(const suite::Bench& b, const Params& params, DType dtype,
                                      const Executor& ex) {
  auto problem = find_workload(b.workload)->make(params, dtype);
  const double need = static_cast<double>(problem->device_bytes());
  const double free = static_cast<double>(ex.free_memory());
  if (need > 0.95 * free)
    throw InternalError(params_string(params) + " needs " + gib(need) + " of memory; " + gib(free) +
                        " is free on " + ex.device().name);
  return problem;
}

std::string check_failure_reason(const char* which, const CheckRecord& c) {
  char buf[256];
  std::snprintf(buf, sizeof buf, "%s failed: fails=%llu/%llu (NaN/Inf %llu), max_abs=%.3g, max_rel=%.3g at %s; %s",
                which, static_cast<unsigned long long>(c.fails), static_cast<unsigned long long>(c.checked),
                static_cast<unsigned long long>(c.nan_count), c.max_abs, c.max_rel, c.shape.c_str(),
                c.first_failure.c_str());
  return buf;
}

// Every element at check shapes; sampled rows when a problem is too large for an fp64 CPU
// oracle of every element in seconds (a suite without a check shape checks the measured one).
std::int64_t check_rows(const Problem& problem, const suite::CheckConfig& cfg) {
  constexpr double kFullOracleFlops = 2e10;
  return problem.flops() > kFullOracleFlops ? cfg.sampled_rows : 0;
}

// Checks `out` against the oracle (all rows, or `sampled_rows` of them), stores the record in
// `slot`, and on failure marks the case check-failed. Returns whether it passed.
bool record_check(CaseRecord& rec, std::optional<CheckRecord>& slot, const char* which, const HostTensor& out,
                  const Problem& problem, const std::vector<HostTensor>& inputs, std::int64_t sampled_rows,
                  const suite::CheckConfig& cfg, std::uint64_t seed) {
  slot = verify::check_output(out, problem.reference(inputs, sampled_rows), {cfg.atol, cfg.rtol});
  slot->shape = problem.shape_string();
  slot->seed = seed;
  if (slot->passed) return true;
  rec.status = CaseStatus::check_failed;
  rec.reason = check_failure_reason(which, *slot);
  return false;
}


}  // namespace

Params check_params(const suite::Bench& b, const Params& point) {
  Params p = point;
  for (const auto& [k, v] : b.check.shape) p[k] = v;
  for (const auto& axis : b.axes) {
    if (axis.expression.empty() || b.check.shape.count(axis.name)) continue;
    const std::int64_t v = suite::eval_expression(axis.expression, p);
    if (v < 0) throw InputError(axis.pos.str() + ": bench '" + b.name + "': axes." + axis.name +
                                " is " + std::to_string(v) + " at the check shape");
    p[axis.name] = v;
  }
  return p;
}

namespace {

// Seeded by the point, not the backend: every backend of a point gets the same input bytes.
std::uint64_t point_seed(const RunOptions& opt, const PlannedCase& pc) {
  return opt.seed ^ fnv1a64(pc.bench->name + "/" + pc.point.dtype + "/" + params_string(pc.point.params));
}

// Summary and the figures derived from it, for a case whose checks passed; `d` holds only the
// problem's flops and bytes and the device's peak (nothing computed from samples).
void summarize_ok(CaseRecord& rec, DerivedRecord d) {
  rec.summary = stats::summarize(rec.measurement->samples_ns);
  d.tflops = d.flops / rec.summary->median / 1e3;
  d.gbs = d.min_bytes / rec.summary->median;
  if (d.peak_tflops > 0) d.pct_of_peak = 100.0 * d.tflops / d.peak_tflops;
  const auto& m = *rec.measurement;
  if (m.energy_j && m.energy_window_s > 0) d.mean_power_w = *m.energy_j / m.energy_window_s;
  rec.derived = d;
  rec.status = CaseStatus::ok;
}

void finish_ok(CaseRecord& rec, const Problem& problem, const DeviceRecord& device) {
  DerivedRecord d;
  d.flops = problem.flops();
  d.min_bytes = problem.min_bytes();
  d.peak_tflops = gpu::peak_tflops(device, rec.dtype, &d.peak_source);
  summarize_ok(rec, d);
}

// A case measured in rounds: one record from its rounds' (merge_rounds), summarised over every
// round's samples when each round was ok.
CaseRecord finish_rounds(const std::vector<CaseRecord>& parts) {
  CaseRecord rec = merge_rounds(parts);
  if (rec.status != CaseStatus::ok) return rec;
  if (!parts.back().derived) {  // an ok round always has them (summarize_ok): a broken invariant
    rec.status = CaseStatus::error;
    rec.reason = "internal: the last round is ok but has no derived figures";
    return rec;
  }
  const DerivedRecord& last = *parts.back().derived;
  DerivedRecord d;  // the problem's and the device's figures; the rest is computed again
  d.flops = last.flops;
  d.min_bytes = last.min_bytes;
  d.peak_tflops = last.peak_tflops;
  d.peak_source = last.peak_source;
  summarize_ok(rec, d);
  return rec;
}

void run_case(const PlannedCase& pc, const RunOptions& opt, Executor& ex, CaseRecord& rec, const CaseRound& round) {
  const suite::Bench& b = *pc.bench;
  const Backend& backend = *find_backend(pc.backend);
  const DType dtype = *parse_dtype(pc.point.dtype);
  const std::uint64_t case_seed = point_seed(opt, pc);

  if (!b.check.enabled && opt.check_only) {
    rec.status = CaseStatus::skipped;
    rec.reason = "check disabled in the suite (check.enabled = false)";
    return;
  }
  if (b.check.enabled && round.first()) {
    // Fresh random inputs, a poisoned output, one call, and the fp64 oracle on every element.
    const Params shape = check_params(b, pc.point.params);
    const auto problem = make_problem(b, shape, dtype, ex);
    const std::uint64_t seed = case_seed + 1;
    const auto inputs = problem->make_inputs(seed);
    auto inst = backend.instantiate(*problem, inputs);
    inst->poison_output();
    inst->call(ex.stream());
    ex.synchronize();
    rec.variant = inst->variant();
    if (!record_check(rec, rec.check, "check", inst->read_output(), *problem, inputs, check_rows(*problem, b.check),
                      b.check, seed))
      return;
  }
  if (opt.check_only) {
    rec.status = CaseStatus::ok;
    return;
  }

  suite::MeasureConfig mcfg = round_config(b.measure, round);
  if (opt.mode) mcfg.mode = *opt.mode;
  if (opt.gap_us) mcfg.gap_us = *opt.gap_us;  // adapters time themselves: theirs keeps none
  const auto problem = make_problem(b, pc.point.params, dtype, ex);
  const std::uint64_t seed = case_seed + 2;
  const auto inputs = problem->make_inputs(seed);
  auto inst = backend.instantiate(*problem, inputs);
  auto sampler = ex.sampler(mcfg, *inst, problem->device_bytes());
  MeasurementRecord m = measure::run_measurement(*sampler, mcfg);
  rec.variant = inst->variant();

  if (b.check.enabled && b.check.recheck && round.last()) {
    // One more call through the same sampler writes into a poisoned output, which is then
    // checked again. Its time is not added to the samples the stopping rule accepted.
    inst->poison_output();
    sampler->sample();
    ex.synchronize();
    record_check(rec, rec.recheck, "recheck of the last timed call", inst->read_output(), *problem, inputs,
                 b.check.sampled_rows, b.check, seed);
  }
  rec.measurement = std::move(m);
  if (rec.status == CaseStatus::check_failed) return;  // the recheck failed: no time is reported
  if (rec.measurement->samples_ns.empty()) {
    rec.status = CaseStatus::error;
    rec.reason = "no sample kept: every sample was taken while the GPU was throttled";
    return;
  }
  finish_ok(rec, *problem, ex.device());
}

// An adapter program checks, warms up and times itself; assay gives it the same inputs as
// every other backend of the point, checks what it wrote, and summarises its raw samples.
void run_external_case(const PlannedCase& pc, const RunOptions& opt, const ExternalBackend& backend,
                       const DeviceRecord& device, CaseRecord& rec, const CaseRound& round) {
  const suite::Bench& b = *pc.bench;
  const DType dtype = *parse_dtype(pc.point.dtype);
  const std::uint64_t case_seed = point_seed(opt, pc);
  const Workload& w = *find_workload(b.workload);
  suite::MeasureConfig mcfg = round_config(b.measure, round);
  if (opt.mode) mcfg.mode = *opt.mode;
  if (!b.check.enabled && opt.check_only) {
    rec.status = CaseStatus::skipped;
    rec.reason = "check disabled in the suite (check.enabled = false)";
    return;
  }
  if (b.check.enabled && round.first()) {
    const auto problem = w.make(check_params(b, pc.point.params), dtype);
    const auto inputs = problem->make_inputs(case_seed + 1);
    const auto result = backend.run(*problem, inputs, "check", opt.device, mcfg, case_seed + 1);
    if (!record_check(rec, rec.check, "check", result.output, *problem, inputs, check_rows(*problem, b.check),
                      b.check, case_seed + 1))
      return;
  }
  if (opt.check_only) {
    rec.status = CaseStatus::ok;
    return;
  }
  const auto problem = w.make(pc.point.params, dtype);
  const auto inputs = problem->make_inputs(case_seed + 2);
  auto result = backend.run(*problem, inputs, "measure", opt.device, mcfg, case_seed + 2);
  rec.adapter = result.record;
  rec.variant = backend.variant();
  MeasurementRecord m;
  m.mode = "adapter:" + result.reply.mode;
  for (double ms : result.reply.samples_ms) m.samples_ns.push_back(ms * 1e6);
  m.stop_reason = "adapter";
  rec.measurement = std::move(m);
  if (b.check.enabled && b.check.recheck && round.last()) {
    // The adapter writes the output of its last timed call: checked on sampled rows.
    if (!record_check(rec, rec.recheck, "recheck of the last timed call", result.output, *problem, inputs,
                      b.check.sampled_rows, b.check, case_seed + 2))
      return;
  }
  finish_ok(rec, *problem, device);
}

}  // namespace

Executors make_executors(const RunOptions& opt, const std::vector<PlannedCase>& planned) {
  Executors ex;
  ex.cpu = make_cpu_executor();
  ex.device = ex.cpu->device();
  bool needs_cuda = false;
  for (const auto& pc : planned) needs_cuda = needs_cuda || find_backend(pc.backend)->target() != Target::cpu;
  if (opt.device == "cpu") {
    ex.cuda_skip = "--device cpu";
    return ex;
  }
  if (!needs_cuda) return ex;
  int index = -1;
  try {
    std::size_t used = 0;
    index = std::stoi(opt.device, &used);
    if (used != opt.device.size()) throw std::invalid_argument("trailing");
  } catch (const std::exception&) {
    throw InputError("--device '" + opt.device + "': must be a CUDA device index or 'cpu'");
  }
  std::string why;
  const int n = cuda_devices(&why);
  if (n == 0) {
    ex.cuda_skip = "no CUDA device (" + why + ")";
    return ex;
  }
  if (index < 0 || index >= n)
    throw InputError("--device " + std::to_string(index) + ": this machine has " + std::to_string(n) +
                     " CUDA device(s), numbered from 0");
  ex.cuda_ok = true;
  ex.index = index;
  if (auto d = describe_cuda_device(opt.device)) ex.device = *d;
  // In-process runs measure here and need the device set up; isolated runs leave that to
  // each worker, so this process holds no CUDA context while they run.
  if (!opt.isolate) ex.cuda = make_cuda_executor(index);
  return ex;
}

void execute_case(const PlannedCase& pc, const RunOptions& opt, Executors& ex, CaseRecord& rec,
                  const CaseRound& round) {
  const Backend& backend = *find_backend(pc.backend);
  if (backend.target() != Target::cpu) rec.device_index = ex.index;
  // NVML watches the GPU while an in-process GPU case runs. Adapter cases are not watched:
  // their own process on the GPU would read as "another process".
  std::optional<gpu::TelemetryMonitor> monitor;
  if (backend.target() == Target::cuda && ex.cuda_ok) {
    monitor.emplace(ex.device.uuid);
    monitor->start();
  }
  try {
    if (backend.target() == Target::external)
      run_external_case(pc, opt, dynamic_cast<const ExternalBackend&>(backend), ex.device, rec, round);
    else if (backend.target() == Target::cuda)
      run_case(pc, opt, *ex.cuda, rec, round);
    else
      run_case(pc, opt, *ex.cpu, rec, round);
  } catch (const SkipError& e) {
    rec.status = CaseStatus::skipped;
    rec.reason = e.what();
  } catch (const DeviceFault& e) {
    rec.status = CaseStatus::crashed;
    rec.reason = e.what();
  } catch (const std::exception& e) {
    rec.status = CaseStatus::error;
    rec.reason = e.what();
  }
  if (monitor) rec.telemetry = monitor->stop();
}

std::string point_key(const PlannedCase& pc) {
  return pc.bench->name + "/" + pc.point.dtype + "/" + params_string(pc.point.params);
}

std::vector<std::string> resolve_devices(const RunOptions& opt, const Executors& ex) {
  if (opt.devices.empty()) return {opt.device};
  if (!opt.isolate) throw InputError("--devices runs one worker per GPU: it cannot be combined with --no-isolate");
  std::string why;
  const int n = cuda_devices(&why);
  if (n == 0) {
    if (!ex.cuda_ok) return {opt.device};  // the cases are skipped with the reason, as for --device
    throw InputError("--devices: no CUDA device (" + why + ")");
  }
  std::vector<std::string> out;
  if (opt.devices.size() == 1 && opt.devices.front() == "all") {
    for (int i = 0; i < n; ++i) out.push_back(std::to_string(i));
    return out;
  }
  for (const auto& d : opt.devices) {
    std::size_t used = 0;
    int i = -1;
    try {
      i = std::stoi(d, &used);
    } catch (const std::exception&) {
    }
    if (used != d.size() || i < 0 || i >= n)
      throw InputError("--devices: '" + d + "' is not a CUDA device index here (0 to " + std::to_string(n - 1) + ")");
    out.push_back(d);
  }
  return out;
}

std::vector<PlannedCase> shard_cases(std::vector<PlannedCase> planned, int index, int count) {
  if (count <= 1) return planned;
  // Whole points go to one shard (a point's backends are compared with each other), dealt
  // round-robin in plan order: deterministic for a given suite, whatever the host.
  std::vector<PlannedCase> mine;
  std::map<std::string, int> point_ordinal;
  for (auto& pc : planned) {
    const int ordinal = point_ordinal.emplace(point_key(pc), static_cast<int>(point_ordinal.size())).first->second;
    if (ordinal % count == index - 1) mine.push_back(std::move(pc));
  }
  return mine;
}

std::vector<PlannedCase> plan_cases(const suite::Suite& s, const std::optional<std::string>& filter) {
  std::optional<std::regex> re;
  if (filter) {
    try {
      re.emplace(*filter, std::regex::ECMAScript);
    } catch (const std::regex_error& e) {
      throw InputError("--filter '" + *filter + "': not a valid regular expression: " + e.what());
    }
  }
  std::vector<PlannedCase> cases;
  for (const auto& b : s.benches) {
    validate_bench(b);
    const auto points = suite::expand_points(b);
    const Workload* w = find_workload(b.workload);
    for (const auto& p : points) {
      try {
        w->make(p.params, *parse_dtype(p.dtype));  // sizes that overflow are input errors
      } catch (const InputError& e) {
        throw InputError(b.pos.str() + ": bench '" + b.name + "': " + e.what());
      }
      // Backends of one point are adjacent: they run interleaved, close in time.
      for (const auto& be : b.backends) {
        PlannedCase pc{&b, be, p, b.name + "/" + be + "/" + p.dtype + "/" + params_string(p.params)};
        if (re && !std::regex_search(pc.id, *re)) continue;
        cases.push_back(std::move(pc));
      }
    }
  }
  return cases;
}

void attach_baseline_ratios(std::vector<CaseRecord>& cases) {
  for (auto& c : cases) {
    if (c.baseline.empty() || c.status != CaseStatus::ok || !c.summary) continue;
    for (const auto& base : cases) {
      if (base.bench == c.bench && base.backend == c.baseline && base.dtype == c.dtype &&
          base.params == c.params && base.status == CaseStatus::ok && base.summary) {
        c.baseline_median_ns = base.summary->median;
        c.speedup_vs_baseline = base.summary->median / c.summary->median;
      }
    }
  }
}

ExitCode exit_code_for(const std::vector<CaseRecord>& cases) {
  bool failed = false, errored = false, ran = false;
  for (const auto& c : cases) {
    // A kernel that faults or hangs is as wrong as one that fails its check.
    failed = failed || c.status == CaseStatus::check_failed || c.status == CaseStatus::crashed ||
             c.status == CaseStatus::timeout;
    errored = errored || c.status == CaseStatus::error;
    ran = ran || c.status != CaseStatus::skipped;
  }
  if (failed) return ExitCode::check_failed;
  if (errored) return ExitCode::internal;
  if (!ran) return ExitCode::skipped;
  return ExitCode::ok;
}

RunOutcome run_suite(const RunOptions& opt, const std::function<void(const std::string&)>& progress) {
  const suite::Suite s = suite::load_suite(opt.suite_path);
  const auto planned = shard_cases(plan_cases(s, opt.filter), opt.shard_index, opt.shard_count);
  if (planned.empty())
    throw InputError(opt.suite_path + ": no case to run" +
                     (opt.filter ? " matches --filter '" + *opt.filter + "'" : std::string()) +
                     (opt.shard_count > 1 ? " in shard " + std::to_string(opt.shard_index) + "/" +
                                                std::to_string(opt.shard_count)
                                          : ""));

  Executors ex = make_executors(opt, planned);
  const std::vector<std::string> devices = resolve_devices(opt, ex);
  RunOutcome out;
  RunRecord& run = out.doc.run;
  run.assay_version = kVersion;
  run.assay_build_commit = kBuildCommit;
  run.git_commit = git_commit(&run.git_dirty);
  run.started_utc = utc_now_iso8601();
  run.host = host_name();
  run.command_line = opt.command_line;
  run.tag = opt.tag;
  run.suite_path = opt.suite_path;
  run.suite_name = s.name;
  run.suite_hash = s.hash;
  run.mode = opt.check_only ? "check" : opt.mode.value_or(s.benches.front().measure.mode);
  for (const auto& b : s.benches)
    if (!opt.check_only && !opt.mode && b.measure.mode != run.mode) run.mode = "mixed";
  run.device = ex.device;
  if (devices.front() != opt.device)
    if (auto d = describe_cuda_device(devices.front())) run.device = *d;
  if (!ex.cuda_ok && !opt.check_only) run.mode = "cpu";  // every case is measured by the host clock
  run.shard = opt.shard_count > 1 ? std::to_string(opt.shard_index) + "/" + std::to_string(opt.shard_count) : "";
  run.libraries = cuda_library_versions();
  for (const Backend* b : all_backends())
    if (auto v = b->library_version(); !v.empty()) run.libraries[b->name()] = v;
  run.environment = relevant_environment();
  run.environment["seed"] = std::to_string(opt.seed);
  run.environment["tf32"] = "off (cuBLAS CUBLAS_COMPUTE_32F with CUBLAS_DEFAULT_MATH)";
  run.environment["cublas_math_mode"] = "CUBLAS_DEFAULT_MATH | CUBLAS_MATH_DISALLOW_REDUCED_PRECISION_REDUCTION";
  run.environment["isolation"] = opt.isolate ? "worker process per case" : "in-process";
  if (opt.rounds) run.environment["rounds"] = std::to_string(*opt.rounds) + " (assay run --rounds, over the suite's)";
  if (opt.gap_us) run.environment["gap_us"] = fmt::format("{:g} (assay run --gap-us, over the suite's)", *opt.gap_us);
  if (devices.size() > 1) {
    std::string list;
    for (const auto& d : devices) list += (list.empty() ? "" : ",") + d;
    run.environment["devices"] = list;
  }
  if (ex.cuda_ok) {
    for (const auto& [k, v] : gpu::gpu_environment(ex.device.uuid)) run.environment[k] = v;
    if (opt.doctor) progress(gpu::doctor_summary_line(ex.device, gpu::nvml::system_library()));
  }

  // The results file is named at the start and rewritten (atomically) after every case that
  // ran, so a run that dies part-way leaves the cases it finished.
  const std::string stem = unique_stem(opt.out_dir + "/" + s.name + "-" + (opt.tag.empty() ? "untagged" : opt.tag) +
                                       "-" + utc_now_compact());
  out.results_path = stem + ".json";
  out.markdown_path = stem + ".md";
  // Cases are stored in plan order whatever order they finish in; `done` marks the ones that
  // have, and the file is rewritten after each (under the lock when devices run in parallel).
  out.doc.cases.resize(planned.size());
  std::vector<bool> done(planned.size(), false);
  std::mutex lock;
  const auto label = [&](std::size_t i, const std::string& device) {
    return "[" + std::to_string(i + 1) + "/" + std::to_string(planned.size()) + "] " + planned[i].id +
           (devices.size() > 1 ? " (GPU " + device + ")" : "");
  };
  // A CUDA case on a run without CUDA: skipped, and one line for the whole run says why.
  const auto no_cuda = [&](std::size_t i) { return find_backend(planned[i].backend)->target() == Target::cuda && !ex.cuda_ok; };
  // One run of case i: all of it, or one round.
  const auto run_part = [&](std::size_t i, const std::string& device, const CaseRound& round) {
    const PlannedCase& pc = planned[i];
    CaseRecord rec = make_planned_record(pc);
    const Backend& backend = *find_backend(pc.backend);
    if (no_cuda(i)) {
      rec.status = CaseStatus::skipped;
      rec.reason = ex.cuda_skip;
    } else if (const auto why = backend.unavailable_reason(); !why.empty()) {
      rec.status = CaseStatus::skipped;
      rec.reason = why;
    } else {
      {
        std::lock_guard<std::mutex> g(lock);
        progress(label(i, device) +
                 (round.count > 1 ? " (round " + std::to_string(round.index + 1) + "/" + std::to_string(round.count) + ")"
                                  : "") +
                 " ...");
      }
      if (opt.isolate) {
        RunOptions on_device = opt;
        on_device.device = device;
        rec = run_case_in_worker(pc, on_device, rec, round);
      } else {
        execute_case(pc, opt, ex, rec, round);
      }
    }
    return rec;
  };
  // Case i's final record: its line, its place in the document, and the document rewritten.
  const auto finish = [&](std::size_t i, const std::string& device, CaseRecord rec) {
    std::string line = label(i, device) + ": " + case_status_name(rec.status);
    if (rec.summary) {
      char buf[96];
      std::snprintf(buf, sizeof buf, " median %.3f us (+-%.2f%%, n=%zu, %s)", rec.summary->median / 1e3,
                    100 * rec.summary->median_ci_rel_halfwidth, rec.summary->n,
                    rec.measurement->stop_reason.c_str());
      line += buf;
      if (const auto r = rec.measurement->round_samples.size(); r > 1) line += " in " + std::to_string(r) + " rounds";
    }
    if (!rec.reason.empty()) line += ": " + rec.reason;
    const bool ran = rec.status != CaseStatus::skipped;
    std::lock_guard<std::mutex> g(lock);
    if (!no_cuda(i)) progress(line);
    out.doc.cases[i] = std::move(rec);
    done[i] = true;
    if (ran || std::filesystem::exists(out.results_path)) {
      ResultsDocument partial;
      partial.run = out.doc.run;
      for (std::size_t j = 0; j < planned.size(); ++j)
        if (done[j]) partial.cases.push_back(out.doc.cases[j]);
      write_file_atomically(out.results_path, to_json_text(partial));
    }
  };
  // A point's cases one after another; in rounds (suite `rounds`), round by round with the order
  // reversed each round (src/runner/rounds.hpp). A case that is not ok after a round runs no more;
  // each case is finished in the last round, at its place in that round's order.
  const auto run_point = [&](std::size_t first, std::size_t last, const std::string& device) {
    const std::uint64_t rounds = opt.check_only ? 1 : opt.rounds.value_or(planned[first].bench->measure.rounds);
    const std::size_t n = last - first;
    std::vector<std::vector<CaseRecord>> parts(n);
    for (std::uint64_t r = 0; r < rounds; ++r) {
      for (const std::size_t j : round_order(n, r)) {
        if (r == 0 || parts[j].back().status == CaseStatus::ok) {
          std::uint64_t floor = 0;  // the samples of the case's first round (CaseRound::min_samples)
          if (r > 0 && parts[j].front().measurement) floor = parts[j].front().measurement->samples_ns.size();
          parts[j].push_back(run_part(first + j, device, CaseRound{r, rounds, floor}));
        }
        if (r + 1 == rounds)
          finish(first + j, device, rounds == 1 ? std::move(parts[j].front()) : finish_rounds(parts[j]));
      }
    }
  };
  // Whole points go to one device (a point's backends are compared with each other); with
  // several devices, one thread per device takes the next point when it is free.
  std::vector<std::pair<std::size_t, std::size_t>> points;  // [first, last) case indices
  for (std::size_t i = 0; i < planned.size(); ++i)
    if (i == 0 || point_key(planned[i]) != point_key(planned[i - 1])) points.emplace_back(i, i + 1);
    else points.back().second = i + 1;
  std::atomic<std::size_t> next_point{0};
  const auto device_loop = [&](const std::string& device) {
    for (std::size_t p; (p = next_point++) < points.size();) run_point(points[p].first, points[p].second, device);
  };
  if (devices.size() == 1) {
    device_loop(devices.front());
  } else {
    std::vector<std::jthread> threads;
    for (const auto& d : devices) threads.emplace_back(device_loop, d);
  }
  run.finished_utc = utc_now_iso8601();
  attach_baseline_ratios(out.doc.cases);
  out.code = exit_code_for(out.doc.cases);

  if (out.code == ExitCode::skipped) {
    out.skipped_reason = ex.cuda_skip.empty() ? out.doc.cases.front().reason : ex.cuda_skip;
    out.results_path.clear();  // nothing ran: no results file was written
    out.markdown_path.clear();
    return out;
  }
  write_file_atomically(out.results_path, to_json_text(out.doc));
  write_file_atomically(out.markdown_path, report::markdown_summary(out.doc));
  return out;
}

}  // namespace assay::runner
