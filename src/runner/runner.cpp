#include "runner/runner.hpp"

#include <fmt/format.h>
#include <string.h>

#include <atomic>
#include <cmath>
#include <exception>
#include <mutex>
#include <optional>
#include <set>
#include <thread>

#include "backends/backend.hpp"
#include "gpu/doctor.hpp"
#include "gpu/nvml.hpp"
#include "report/markdown.hpp"
#include "runner/devices.hpp"
#include "runner/execute.hpp"
#include "runner/plan.hpp"
#include "runner/resolve.hpp"
#include "runner/results_file.hpp"
#include "runner/rounds.hpp"
#include "runner/run_metadata.hpp"
#include "runner/run_record.hpp"
#include "runner/worker.hpp"
#include "stats/summary.hpp"
#include "suite/suite.hpp"
#include "core/atomic_file.hpp"
#include "core/interrupt.hpp"
#include "runner/profile.hpp"
#include "verify/case_protocol.hpp"

namespace assay::runner {

// No speedup from a case that timed out before its median had a 95% CI (2 samples had been given
// one as if measured). A case that stopped where its suite said (max_samples = 5) keeps it.
void attach_baseline_ratios(std::vector<CaseRecord>& cases) {
  const auto has_ci = [](const CaseRecord& r) {
    const bool timed_out = r.measurement && r.measurement->stop_reason.find("timeout") != std::string::npos;
    return r.status == CaseStatus::ok && r.summary &&
           !(timed_out && !std::isfinite(r.summary->median_ci_rel_halfwidth));
  };
  for (auto& c : cases) {
    if (c.baseline.empty() || !has_ci(c)) continue;
    for (const auto& base : cases) {
      if (base.bench == c.bench && base.backend == c.baseline && base.dtype == c.dtype &&
          base.params == c.params && has_ci(base)) {
        c.baseline_median_ns = base.summary->median;
        c.speedup_vs_baseline = base.summary->median / c.summary->median;
        const auto cycles = c.measurement ? cycle_samples(*c.measurement) : std::vector<double>{};
        const auto base_cycles = base.measurement ? cycle_samples(*base.measurement) : std::vector<double>{};
        c.cycles_speedup_vs_baseline.reset();
        if (!cycles.empty() && !base_cycles.empty())
          c.cycles_speedup_vs_baseline = stats::median_of(base_cycles) / stats::median_of(cycles);
      }
    }
  }
}

ExitCode exit_code_for(const std::vector<CaseRecord>& cases) {
  bool failed = false, errored = false, ran = false;
  for (const auto& c : cases) {
    // A faulting or hanging kernel, or a time no device could reach, is as wrong as a failed check.
    failed = failed || c.status == CaseStatus::check_failed || c.status == CaseStatus::crashed ||
             c.status == CaseStatus::timeout || c.status == CaseStatus::implausible;
    errored = errored || c.status == CaseStatus::error;
    ran = ran || c.status != CaseStatus::skipped;
  }
  if (failed) return ExitCode::check_failed;
  if (errored) return ExitCode::internal;
  if (!ran) return ExitCode::skipped;
  return ExitCode::ok;
}

RunOutcome run_suite(const RunOptions& opt, const std::function<void(const std::string&)>& progress) {
  std::optional<ExitAtOnceOnInterrupt> planning(std::in_place);  // until the results file exists
  const suite::Suite s = suite::load_suite(opt.suite_path);
  use_suite_python_path(s);
  const auto all_planned = plan_cases(s, opt.filter);
  // A table that can re-route no case is a mistake (another suite's table, or a filter that left
  // its cases out), not a run of the heuristics under a misleading `tuning` entry. Judged before
  // sharding: a shard may hold none of the table's cases.
  if (opt.tuning && std::none_of(all_planned.begin(), all_planned.end(), [&](const PlannedCase& pc) {
        return pc.backend == opt.tuning->applies_to && pc.bench->workload == opt.tuning->workload;
      }))
    throw InputError("--tuning " + opt.tuning_path + ": it re-routes cases of backend '" + opt.tuning->applies_to +
                     "' on workload '" + opt.tuning->workload + "', and this run has none");
  const auto planned = shard_cases(all_planned, opt.shard_index, opt.shard_count);
  if (planned.empty())
    throw InputError(opt.suite_path + ": no case to run" +
                     (opt.filter ? " matches --filter '" + *opt.filter + "'" : std::string()) +
                     (opt.shard_count > 1 ? " in shard " + std::to_string(opt.shard_index) + "/" +
                                                std::to_string(opt.shard_count)
                                          : ""));

  // Every case resolved once before the first one runs, so that a setting that cannot be
  // resolved (a derived axis negative at the check shape) is bad input, not a half-run suite.
  std::vector<std::string> backends;
  for (const auto& pc : planned) {
    resolve_case(pc, opt, CaseRound{0, rounds_of(pc, opt)}, opt.device);
    backends.push_back(pc.backend);
  }
  // Likewise an adapter's command that cannot be read (TVM_BENCH_CMD='"unbalanced'): bad input
  // before any case runs and before the results file exists, not an error after the cases before
  // it ran. (Unavailable, e.g. unset, is a per-case skip, as before.)
  for (const auto& name : std::set<std::string>(backends.begin(), backends.end()))
    if (const Backend* b = find_backend(name)) (void)b->unavailable_reason();
  Executors ex = make_executors(opt.device, !opt.isolate, needs_cuda(backends));
  const std::vector<std::string> devices = resolve_devices(opt, ex);
  // With --devices, the run's GPU (run.device, its driver and NVML state, the doctor's line) is
  // the first listed one, not --device's (which runs nothing then); the others are the same kind.
  if (ex.cuda_ok && devices.front() != opt.device) ex = make_executors(devices.front(), !opt.isolate, true);
  RunOutcome out;
  out.doc.run = describe_run(opt, s, ex, devices);
  if (opt.profile) {  // no timing in this document: its cases carry profiles
    out.doc.run.mode = "profile";
    out.doc.run.environment["profiler"] = opt.profile->tool;
    out.doc.run.environment["profiler.clock_control"] = opt.profile->clock_control;
    out.doc.run.environment["profiler.metric_table"] = opt.profile->metrics->name;
  }
  if (opt.tuning) {
    out.doc.run.environment["tuning"] = opt.tuning_path;
    for (const auto& e : opt.tuning->entries)
      if (!e.env.empty() && !opt.isolate)
        throw InputError("--tuning " + opt.tuning_path + ": class " + e.shape_class +
                         " sets environment variables for its workers, which --no-isolate does not start");
  }
  if (ex.cuda_ok && opt.doctor) progress(gpu::doctor_summary_line(ex.device, gpu::nvml::system_library()));

  ResultsFile file(opt.out_dir, s.name + "-" + (opt.tag.empty() ? "untagged" : opt.tag) + "-" + utc_now_compact(),
                   planned.size(), out.doc.run);
  planning.reset();
  std::mutex lock;  // progress lines and the results file, when devices run in parallel
  const auto label = [&](std::size_t i, const std::string& device) {
    return fmt::format("[{}/{}] {}{}", i + 1, planned.size(), planned[i].id,
                       devices.size() > 1 ? " (GPU " + device + ")" : "");
  };
  // A CUDA case on a run without CUDA: skipped, and one line for the whole run says why.
  const auto no_cuda = [&](std::size_t i) { return find_backend(planned[i].backend)->target() == Target::cuda && !ex.cuda_ok; };
  // One run of case i: all of it, or one round.
  const auto run_part = [&](std::size_t i, const std::string& device, const CaseRound& round) {
    const PlannedCase& pc = planned[i];
    const verify::ResolvedCase rc = resolve_case(pc, opt, round, device);
    const Backend& backend = *find_backend(rc.runner_backend());
    const TuningEntry* tuned = tuning_entry(pc, opt);
    CaseRecord rec = verify::planned_record(rc);
    if (const int sig = interrupt_signal()) {
      rec.status = CaseStatus::interrupted;
      rec.reason = std::string("not run: assay was interrupted (") + signal_name(sig) + ")";
      return rec;
    }
    if (no_cuda(i)) {
      rec.status = CaseStatus::skipped;
      rec.reason = ex.cuda_skip;
      return rec;
    }
    if (opt.profile && backend.target() == Target::cpu) {
      rec.status = CaseStatus::skipped;
      rec.reason = "a cpu backend runs no GPU kernel for Nsight Compute to profile";
      return rec;
    }
    if (const auto why = backend.unavailable_reason(); !why.empty()) {
      rec.status = CaseStatus::skipped;
      rec.reason = why;
      return rec;
    }
    {
      std::lock_guard<std::mutex> g(lock);
      progress(label(i, device) +
               (round.count > 1 ? " (round " + std::to_string(round.index + 1) + "/" + std::to_string(round.count) + ")"
                                : "") +
               " ...");
    }
    if (opt.profile) rec = profile_case(rc, *opt.profile, ex.device);
    else if (opt.isolate)
      rec = run_case_in_worker(rc, case_timeout_s(pc), opt.sanitize, WorkerProgram{"", tuned ? tuned->env : std::vector<std::string>{}, {}});
    else
      rec = execute_case(rc, ex);
    if (tuned) rec.variant += " (tuning table: " + tuned->shape_class + " -> " + tuned->variant + ")";
    // A case that the interruption cut short: what it recorded stays, under the true status.
    if (const int sig = interrupt_signal(); sig && rec.status != CaseStatus::ok) {
      rec.status = CaseStatus::interrupted;
      rec.reason = std::string("assay was interrupted (") + signal_name(sig) + ") while the case ran";
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
    std::lock_guard<std::mutex> g(lock);
    if (!no_cuda(i)) progress(line);
    file.finish(i, std::move(rec), out.doc.run);
  };
  // A point's cases one after another; in rounds (suite `rounds`), round by round with the order
  // reversed each round (runner/rounds.hpp). A case that is not ok after a round runs no more;
  // each case is finished in the last round, at its place in that round's order.
  const auto run_point = [&](std::size_t first, std::size_t last, const std::string& device) {
    const std::uint64_t rounds = rounds_of(planned[first], opt);
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
          finish(first + j, device, rounds == 1 ? std::move(parts[j].front()) : finish_case_rounds(parts[j]));
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
    // An error on one device's thread (an unwritable results file, a scratch folder that cannot
    // be made) must not terminate the process: the first is kept, no thread takes another point,
    // the others finish the points they hold, and it is thrown here as with one device.
    std::exception_ptr first_error;
    std::mutex error_lock;
    {
      std::vector<std::jthread> threads;
      for (const auto& d : devices)
        threads.emplace_back([&, d] {
          try {
            device_loop(d);
          } catch (...) {
            next_point = points.size();
            std::lock_guard<std::mutex> g(error_lock);
            if (!first_error) first_error = std::current_exception();
          }
        });
    }
    if (first_error) std::rethrow_exception(first_error);
  }
  out.doc.run.finished_utc = utc_now_iso8601();
  out.interrupted_by = interrupt_signal();
  out.doc.cases = std::move(file.cases());
  attach_baseline_ratios(out.doc.cases);
  out.code = exit_code_for(out.doc.cases);

  if (out.code == ExitCode::skipped && !out.interrupted_by) {
    out.skipped_reason = out.doc.cases.front().reason;  // a CUDA case's is ex.cuda_skip; an adapter's its own
    file.discard();  // nothing ran: no results file is left
    return out;
  }
  out.results_path = file.json_path();
  out.markdown_path = file.markdown_path();
  write_file_atomically(out.results_path, to_json_text(out.doc));
  write_file_atomically(out.markdown_path, report::markdown_summary(out.doc));
  return out;
}

}  // namespace assay::runner
