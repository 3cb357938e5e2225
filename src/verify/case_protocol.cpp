#include "verify/case_protocol.hpp"

#include <algorithm>
#include <cmath>
#include <cstdio>

#include "core/error.hpp"
#include "gpu/device_info.hpp"
#include "stats/summary.hpp"

namespace assay::verify {

namespace {

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
std::int64_t check_rows(const Problem& problem, const CheckPolicy& policy) {
  constexpr double kFullOracleFlops = 2e10;
  return problem.flops() > kFullOracleFlops ? policy.sampled_rows : 0;
}

// Checks `out` against the oracle `ref`, stores the record in `slot`, and on failure marks the
// case check-failed. Returns whether it passed.
bool record_check(CaseRecord& rec, std::optional<CheckRecord>& slot, const char* which, const HostTensor& out,
                  const Problem& problem, const Reference& ref, const CheckPolicy& policy, std::uint64_t seed) {
  slot = check_output(out, ref, policy.tolerance);
  slot->shape = problem.shape_string();
  slot->seed = seed;
  if (slot->passed) return true;
  rec.status = CaseStatus::check_failed;
  rec.reason = check_failure_reason(which, *slot);
  return false;
}

std::unique_ptr<Problem> make_problem(const ResolvedCase& rc, const Params& params, const Subject& subject) {
  auto problem = find_workload(rc.workload)->make(params, *parse_dtype(rc.dtype));
  subject.admit(*problem);
  return problem;
}

// The least time the device can take for `flops` of work: at its peak rate (GPUs: the tensor or
// FMA peak at the maximum SM clock; the host: every hardware thread at 5 GHz retiring 64 FLOP per
// clock, two AVX-512 FMA pipes, which no CPU of today exceeds). 0 when the peak is unknown. Only
// the arithmetic gives a hard floor: bytes may be served from L2 (writes absorbed by it, inputs
// still resident in hot mode), so the bandwidth gives none.
double floor_ns(double flops, const DeviceRecord& device, const std::string& dtype) {
  if (device.kind == "cpu") return device.cpu_threads > 0 ? flops / (device.cpu_threads * 5e9 * 64) * 1e9 : 0;
  const double peak_tflops = gpu::peak_tflops(device, dtype, nullptr);
  return peak_tflops > 0 ? flops / peak_tflops / 1e3 : 0;
}

// The work of one call and the device's peak for it; the rates come with a time.
DerivedRecord work_of(const Problem& problem, const DeviceRecord& device, const std::string& dtype) {
  DerivedRecord d;
  d.flops = problem.flops();
  d.min_bytes = problem.min_bytes();
  d.peak_tflops = gpu::peak_tflops(device, dtype, &d.peak_source);
  return d;
}

}  // namespace

void summarize_ok(CaseRecord& rec, DerivedRecord d) {
  rec.summary = stats::summarize(rec.measurement->samples_ns);
  d.tflops = d.flops / rec.summary->median / 1e3;
  d.gbs = d.min_bytes / rec.summary->median;
  if (d.peak_tflops > 0) d.pct_of_peak = 100.0 * d.tflops / d.peak_tflops;
  const auto& m = *rec.measurement;
  // NVML's energy counter moves in steps of about 100 ms of the board's energy: over a short window
  // the mean power is quantisation (in the H100 records, 317 of the 336 windows under 0.5 s gave
  // 0 W or more than the board's 700 W; none of the 78 longer ones did). The energy stays recorded.
  if (m.energy_j && m.energy_window_s >= kMinPowerWindowS) d.mean_power_w = *m.energy_j / m.energy_window_s;
  rec.derived = d;
  rec.status = CaseStatus::ok;
}

void run_case_protocol(const ResolvedCase& rc, Subject& subject, const DeviceRecord& device, CaseRecord& rec) {
  if (!rc.check.enabled && rc.check_only) {
    rec.status = CaseStatus::skipped;
    rec.reason = "check disabled in the suite (check.enabled = false)";
    return;
  }
  if (rc.check.enabled && rc.first_round()) {
    const auto problem = make_problem(rc, rc.check_params, subject);
    if (const std::string oracle = problem->oracle_backend(); !oracle.empty() && oracle == rc.runner_backend())
      throw InputError("backend '" + oracle + "' is the oracle of workload '" + problem->workload() +
                       "' (its reference_backend): its check would compare it with itself; give the workload a "
                       "reference function to measure it");
    const auto inputs = problem->make_inputs(rc.check_seed);
    const std::vector<HostTensor> outs = subject.check(*problem, inputs, rc.check_seed);
    rec.variant = subject.variant();
    if (outs.empty()) throw InternalError("the check made no call");
    // Every call's output must pass: a kernel whose output changes from call to call (a race,
    // state kept between calls) fails on the call where it is wrong, named as such.
    const Reference ref = problem->oracle(inputs, rc.check_seed, check_rows(*problem, rc.check));
    for (std::size_t i = 0; i < outs.size(); ++i) {
      const std::string which = i == 0 ? std::string("check")
                                       : "check (call " + std::to_string(i + 1) + " of " + std::to_string(outs.size()) +
                                             ", the earlier passed: the output changes between calls)";
      const bool passed = record_check(rec, rec.check, which.c_str(), outs[i], *problem, ref, rc.check, rc.check_seed);
      rec.check->calls = outs.size();
      if (!passed) return;
    }
    if (outs.size() > 1) {
      bool same = true;
      for (std::size_t i = 1; i < outs.size(); ++i) same = same && outs[i].data == outs[0].data;
      rec.check->bitwise_repeatable = same;
    }
  }
  if (rc.check_only) {
    rec.status = CaseStatus::ok;
    return;
  }

  const auto problem = make_problem(rc, rc.params, subject);
  const auto inputs = problem->make_inputs(rc.measure_seed);
  if (rc.profile_calls > 0) {
    // assay profile: the profiled calls' output is checked like a timed one; the profile itself
    // (the profiler's log) is read by the process that started the profiler.
    const HostTensor out = subject.profile(*problem, inputs, rc.measure_seed, rc.profile_calls);
    rec.variant = subject.variant();
    const bool ok = record_check(rec, rec.recheck, "check of the profiled calls' output", out, *problem,
                                 problem->oracle(inputs, rc.measure_seed, rc.check.sampled_rows), rc.check,
                                 rc.measure_seed);
    rec.recheck->inputs = "profiled";
    if (!ok) return;
    rec.derived = work_of(*problem, device, rec.dtype);
    rec.status = CaseStatus::ok;
    return;
  }
  const bool recheck = rc.check.enabled && rc.check.recheck && rc.last_round();
  // The recheck runs on inputs the timed calls never saw, so that an output kept from an
  // earlier call (a cache keyed on nothing, a stale buffer) cannot pass it.
  const std::uint64_t fresh_seed = rc.measure_seed ^ 0x5eedf00dULL;
  std::vector<HostTensor> fresh;
  if (recheck) fresh = problem->make_inputs(fresh_seed);
  Subject::Measured m =
      subject.measure(*problem, inputs, rc.measure_seed, rc.method, rc.criterion, recheck ? &fresh : nullptr);
  rec.variant = subject.variant();
  rec.adapter = std::move(m.adapter);
  rec.measurement = std::move(m.measurement);
  if (recheck) {
    const bool ok = m.fresh_inputs_used
                        ? record_check(rec, rec.recheck, "recheck on fresh inputs after the timed calls", *m.last_output,
                                       *problem, problem->oracle(fresh, fresh_seed, rc.check.sampled_rows), rc.check, fresh_seed)
                        : record_check(rec, rec.recheck, "recheck of the last timed call", *m.last_output, *problem,
                                       problem->oracle(inputs, rc.measure_seed, rc.check.sampled_rows), rc.check,
                                       rc.measure_seed);
    // Fresh inputs equal to the timed ones (a workload whose inputs ignore the seed) catch nothing
    // more than the timed inputs do: recorded as such.
    // Compared only where fresh inputs were used (whole tensors: not for every case).
    const bool fresh_differ =
        m.fresh_inputs_used && !std::equal(fresh.begin(), fresh.end(), inputs.begin(), inputs.end(),
                                           [](const HostTensor& a, const HostTensor& b) { return a.data == b.data; });
    rec.recheck->inputs = fresh_differ ? "fresh" : "timed";
    if (!ok) return;  // no time is reported for an output that failed
  }
  if (rec.measurement->samples_ns.empty()) {
    rec.status = CaseStatus::error;
    rec.reason = "no sample kept: every sample was taken while the GPU was throttled";
    return;
  }
  const DerivedRecord d = work_of(*problem, device, rec.dtype);
  summarize_ok(rec, d);
  // Timed out before min_samples: the samples are real and checked, but fewer than the stopping
  // rule asks for. Said in the reason; without a 95% CI of its median no speedup is formed from
  // it (runner attach_baseline_ratios), and compare calls it AMBIGUOUS.
  if (const std::size_t n = rec.measurement->samples_ns.size();
      rec.measurement->stop_reason == "timeout" && n < rc.criterion.min_samples)
    rec.reason = "timed out (timeout_s) with " + std::to_string(n) + " of the " +
                 std::to_string(rc.criterion.min_samples) + " samples min_samples asks for" +
                 (std::isfinite(rec.summary->median_ci_rel_halfwidth) ? "" : ": too few for a 95% CI of the median");
  // A median below what the device can do at all: the timing (a clock, an adapter's own
  // report) is wrong, and the case is reported as such, never with a speedup.
  if (const double floor = floor_ns(d.flops, device, rec.dtype); rec.summary->median < 0.99 * floor) {
    char buf[256];
    std::snprintf(buf, sizeof buf,
                  "median %.4g ns is below the physical floor of %.4g ns (%.4g FLOP at the peak rate of %s)",
                  rec.summary->median, floor, d.flops, device.name.c_str());
    rec.status = CaseStatus::implausible;
    rec.reason = buf;
  }
}

}  // namespace assay::verify
