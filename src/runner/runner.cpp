#include "runner/runner.hpp"

#include <cmath>
#include <filesystem>
#include <regex>
#include <set>

#include "backends/backend.hpp"
#include "backends/external_backend.hpp"
#include "core/atomic_file.hpp"
#include "assay/version.hpp"
#include "gpu/device_info.hpp"
#include "measure/measure_loop.hpp"
#include "report/markdown.hpp"
#include "runner/executor.hpp"
#include "runner/run_metadata.hpp"
#include "verify/tolerance.hpp"
#include "workloads/workload.hpp"

namespace assay::runner {

namespace {

std::string join(const std::vector<std::string>& v) {
  std::string s;
  for (const auto& x : v) s += (s.empty() ? "" : ", ") + x;
  return s;
}

std::string params_string(const Params& p) {
  std::string s;
  for (const auto& [k, v] : p) s += (s.empty() ? "" : ",") + k + "=" + std::to_string(v);
  return s;
}

std::uint64_t fnv1a(const std::string& s) {
  std::uint64_t h = 1469598103934665603ull;
  for (unsigned char c : s) h = (h ^ c) * 1099511628211ull;
  return h;
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

CaseRecord make_record(const PlannedCase& pc) {
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

CheckRecord check_instance(Instance& inst, const Problem& problem,
                           const std::vector<HostTensor>& inputs, std::int64_t sampled_rows,
                           const suite::CheckConfig& cfg, std::uint64_t seed) {
  HostTensor out = inst.read_output();
  const Reference ref = problem.reference(inputs, sampled_rows);
  CheckRecord c = verify::check_output(out, ref, {cfg.atol, cfg.rtol});
  c.shape = problem.shape_string();
  c.seed = seed;
  return c;
}

std::string check_failure_reason(const char* which, const CheckRecord& c) {
  char buf[256];
  std::snprintf(buf, sizeof buf, "%s failed: fails=%llu/%llu (NaN/Inf %llu), max_abs=%.3g, max_rel=%.3g at %s; %s",
                which, static_cast<unsigned long long>(c.fails), static_cast<unsigned long long>(c.checked),
                static_cast<unsigned long long>(c.nan_count), c.max_abs, c.max_rel, c.shape.c_str(),
                c.first_failure.c_str());
  return buf;
}

}  // namespace

Params check_params(const suite::Bench& b, const Params& point) {
  Params p = point;
  for (const auto& [k, v] : b.check.shape) p[k] = v;
  for (const auto& axis : b.axes) {
    if (axis.expression.empty() || b.check.shape.count(axis.name)) continue;
    const std::int64_t v = suite::eval_expression(axis.expression, p);
    if (v < 1) throw InputError(axis.pos.str() + ": bench '" + b.name + "': axes." + axis.name +
                                " is " + std::to_string(v) + " at the check shape");
    p[axis.name] = v;
  }
  return p;
}

namespace {

// Seeded by the point, not the backend: every backend of a point gets the same input bytes.
std::uint64_t point_seed(const RunOptions& opt, const PlannedCase& pc) {
  return opt.seed ^ fnv1a(pc.bench->name + "/" + pc.point.dtype + "/" + params_string(pc.point.params));
}

// Summary and derived figures of a case whose checks passed.
void finish_ok(CaseRecord& rec, const Problem& problem, const DeviceRecord& device) {
  rec.summary = stats::summarize(rec.measurement->samples_ns);
  DerivedRecord d;
  d.flops = problem.flops();
  d.min_bytes = problem.min_bytes();
  d.tflops = d.flops / rec.summary->median / 1e3;
  d.gbs = d.min_bytes / rec.summary->median;
  d.peak_tflops = gpu::peak_tflops(device, rec.dtype, &d.peak_source);
  if (d.peak_tflops > 0) d.pct_of_peak = 100.0 * d.tflops / d.peak_tflops;
  rec.derived = d;
  rec.status = CaseStatus::ok;
}

void run_case(const PlannedCase& pc, const RunOptions& opt, Executor& ex, CaseRecord& rec) {
  const suite::Bench& b = *pc.bench;
  const Backend& backend = *find_backend(pc.backend);
  const DType dtype = *parse_dtype(pc.point.dtype);
  const std::uint64_t case_seed = point_seed(opt, pc);

  if (!b.check.enabled && opt.check_only) {
    rec.status = CaseStatus::skipped;
    rec.reason = "check disabled in the suite (check.enabled = false)";
    return;
  }
  if (b.check.enabled) {
    // Fresh random inputs, a poisoned output, one call, and the fp64 oracle on every element.
    const Params shape = check_params(b, pc.point.params);
    const auto problem = make_problem(b, shape, dtype, ex);
    const std::uint64_t seed = case_seed + 1;
    const auto inputs = problem->make_inputs(seed);
    auto inst = backend.instantiate(*problem, inputs);
    inst->poison_output();
    inst->call(ex.stream());
    ex.synchronize();
    rec.check = check_instance(*inst, *problem, inputs, 0, b.check, seed);
    rec.variant = inst->variant();
    if (!rec.check->passed) {
      rec.status = CaseStatus::check_failed;
      rec.reason = check_failure_reason("check", *rec.check);
      return;
    }
  }
  if (opt.check_only) {
    rec.status = CaseStatus::ok;
    return;
  }

  suite::MeasureConfig mcfg = b.measure;
  if (opt.mode) mcfg.mode = *opt.mode;
  const auto problem = make_problem(b, pc.point.params, dtype, ex);
  const std::uint64_t seed = case_seed + 2;
  const auto inputs = problem->make_inputs(seed);
  auto inst = backend.instantiate(*problem, inputs);
  auto sampler = ex.sampler(mcfg, *inst, problem->device_bytes());
  MeasurementRecord m = measure::run_measurement(*sampler, mcfg);
  rec.variant = inst->variant();

  if (b.check.enabled && b.check.recheck) {
    // One more call through the same sampler writes into a poisoned output, which is then
    // checked again. Its time is not added to the samples the stopping rule accepted.
    inst->poison_output();
    sampler->sample();
    ex.synchronize();
    rec.recheck = check_instance(*inst, *problem, inputs, b.check.sampled_rows, b.check, seed);
  }
  rec.measurement = std::move(m);
  if (rec.recheck && !rec.recheck->passed) {
    rec.status = CaseStatus::check_failed;
    rec.reason = check_failure_reason("recheck of the last timed call", *rec.recheck);
    return;
  }
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
                       const DeviceRecord& device, CaseRecord& rec) {
  const suite::Bench& b = *pc.bench;
  const DType dtype = *parse_dtype(pc.point.dtype);
  const std::uint64_t case_seed = point_seed(opt, pc);
  const Workload& w = *find_workload(b.workload);
  suite::MeasureConfig mcfg = b.measure;
  if (opt.mode) mcfg.mode = *opt.mode;
  if (b.check.enabled) {
    const auto problem = w.make(check_params(b, pc.point.params), dtype);
    const auto inputs = problem->make_inputs(case_seed + 1);
    const auto result = backend.run(*problem, inputs, "check", opt.device, mcfg, case_seed + 1);
    rec.check = verify::check_output(result.output, problem->reference(inputs, 0), {b.check.atol, b.check.rtol});
    rec.check->shape = problem->shape_string();
    rec.check->seed = case_seed + 1;
    if (!rec.check->passed) {
      rec.status = CaseStatus::check_failed;
      rec.reason = check_failure_reason("check", *rec.check);
      return;
    }
  }
  if (opt.check_only) {
    rec.status = CaseStatus::ok;
    return;
  }
  const auto problem = w.make(pc.point.params, dtype);
  const auto inputs = problem->make_inputs(case_seed + 2);
  auto result = backend.run(*problem, inputs, "measure", opt.device, mcfg, case_seed + 2);
  rec.adapter = result.record;
  rec.variant = result.reply.mode;
  MeasurementRecord m;
  m.mode = "adapter:" + result.reply.mode;
  for (double ms : result.reply.samples_ms) m.samples_ns.push_back(ms * 1e6);
  m.stop_reason = "adapter";
  rec.measurement = std::move(m);
  if (b.check.enabled && b.check.recheck) {
    // The adapter writes the output of its last timed call: checked on sampled rows.
    rec.recheck = verify::check_output(result.output, problem->reference(inputs, b.check.sampled_rows),
                                       {b.check.atol, b.check.rtol});
    rec.recheck->shape = problem->shape_string();
    rec.recheck->seed = case_seed + 2;
    if (!rec.recheck->passed) {
      rec.status = CaseStatus::check_failed;
      rec.reason = check_failure_reason("recheck of the last timed call", *rec.recheck);
      return;
    }
  }
  finish_ok(rec, *problem, device);
}

}  // namespace

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
  const auto planned = plan_cases(s, opt.filter);
  if (planned.empty()) throw InputError(opt.suite_path + ": no case matches --filter '" + opt.filter.value_or("") + "'");

  // Executors: the host always; a CUDA device unless --device cpu, and only if some case needs one.
  bool needs_cuda = false;
  for (const auto& pc : planned) needs_cuda = needs_cuda || find_backend(pc.backend)->target() == Target::cuda;
  auto cpu = make_cpu_executor();
  std::unique_ptr<Executor> cuda;
  std::string cuda_skip;
  if (opt.device == "cpu") {
    cuda_skip = "--device cpu";
  } else if (needs_cuda) {
    int index = -1;
    try {
      std::size_t used = 0;
      index = std::stoi(opt.device, &used);
      if (used != opt.device.size()) throw std::invalid_argument("trailing");
    } catch (const std::exception&) {
      throw InputError("--device '" + opt.device + "': must be a CUDA device index or 'cpu'");
    }
    try {
      cuda = make_cuda_executor(index);
    } catch (const SkipError& e) {
      cuda_skip = e.what();
    }
  }

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
  run.device = cuda ? cuda->device() : cpu->device();
  // Adapters run on the GPU the run names even when no in-process backend needs it.
  if (!cuda && opt.device != "cpu")
    if (auto d = describe_cuda_device(opt.device)) run.device = *d;
  if (!cuda && !opt.check_only) run.mode = "cpu";  // every case is measured by the host clock
  run.libraries = cuda_library_versions();
  for (const Backend* b : all_backends())
    if (auto v = b->library_version(); !v.empty()) run.libraries[b->name()] = v;
  run.environment = relevant_environment();
  run.environment["seed"] = std::to_string(opt.seed);
  run.environment["tf32"] = "off (cuBLAS CUBLAS_COMPUTE_32F with CUBLAS_DEFAULT_MATH)";
  run.environment["cublas_math_mode"] = "CUBLAS_DEFAULT_MATH | CUBLAS_MATH_DISALLOW_REDUCED_PRECISION_REDUCTION";

  // The results file is named at the start and rewritten (atomically) after every case that
  // ran, so a run that dies part-way leaves the cases it finished.
  const std::string stem = unique_stem(opt.out_dir + "/" + s.name + "-" + (opt.tag.empty() ? "untagged" : opt.tag) +
                                       "-" + utc_now_compact());
  out.results_path = stem + ".json";
  out.markdown_path = stem + ".md";
  for (std::size_t i = 0; i < planned.size(); ++i) {
    const PlannedCase& pc = planned[i];
    CaseRecord rec = make_record(pc);
    const Backend& backend = *find_backend(pc.backend);
    const bool external = backend.target() == Target::external;
    Executor* ex = backend.target() == Target::cuda ? cuda.get() : cpu.get();
    const std::string counter = "[" + std::to_string(i + 1) + "/" + std::to_string(planned.size()) + "] ";
    if (!ex && !external) {
      rec.status = CaseStatus::skipped;
      rec.reason = cuda_skip;
    } else if (const auto why = backend.unavailable_reason(); !why.empty()) {
      rec.status = CaseStatus::skipped;
      rec.reason = why;
    } else {
      progress(counter + pc.id + " ...");
      try {
        if (external) run_external_case(pc, opt, dynamic_cast<const ExternalBackend&>(backend), run.device, rec);
        else run_case(pc, opt, *ex, rec);
      } catch (const SkipError& e) {
        rec.status = CaseStatus::skipped;
        rec.reason = e.what();
      } catch (const std::exception& e) {
        rec.status = CaseStatus::error;
        rec.reason = e.what();
      }
    }
    if (rec.status == CaseStatus::skipped && rec.reason == cuda_skip) {
      out.doc.cases.push_back(std::move(rec));  // one line for the whole run says why, below
      continue;
    }
    std::string line = counter + pc.id + ": " + case_status_name(rec.status);
    if (rec.summary) {
      char buf[96];
      std::snprintf(buf, sizeof buf, " median %.3f us (+-%.2f%%, n=%zu, %s)", rec.summary->median / 1e3,
                    100 * rec.summary->median_ci_rel_halfwidth, rec.summary->n,
                    rec.measurement->stop_reason.c_str());
      line += buf;
    }
    if (!rec.reason.empty()) line += ": " + rec.reason;
    progress(line);
    const bool ran = rec.status != CaseStatus::skipped;
    out.doc.cases.push_back(std::move(rec));
    if (ran || std::filesystem::exists(out.results_path))
      write_file_atomically(out.results_path, to_json_text(out.doc));
  }
  run.finished_utc = utc_now_iso8601();
  attach_baseline_ratios(out.doc.cases);
  out.code = exit_code_for(out.doc.cases);

  if (out.code == ExitCode::skipped) {
    out.skipped_reason = cuda_skip.empty() ? out.doc.cases.front().reason : cuda_skip;
    out.results_path.clear();  // nothing ran: no results file was written
    out.markdown_path.clear();
    return out;
  }
  write_file_atomically(out.results_path, to_json_text(out.doc));
  write_file_atomically(out.markdown_path, report::markdown_summary(out.doc));
  return out;
}

}  // namespace assay::runner
