#include "runner/resolve.hpp"

#include "backends/backend.hpp"
#include "core/error.hpp"
#include "core/ids.hpp"
#include "workloads/workload.hpp"

namespace assay::runner {

measure::Method method_of(const suite::MeasureConfig& m) {
  measure::Method r;
  const auto mode = measure::parse_mode(m.mode);
  if (!mode) throw InternalError("measure.mode '" + m.mode + "' passed the suite parser but is no mode");
  r.mode = *mode;
  r.warmup = {m.warmup_calls, m.warmup_min_s};
  r.throttle = {m.throttle_threshold, m.throttle_backoff_s};
  r.gap_us = m.gap_us;
  const auto flush = measure::parse_l2_flush(m.l2_flush);
  if (!flush) throw InternalError("measure.l2_flush '" + m.l2_flush + "' passed the suite parser but is no flush");
  r.l2_flush = *flush;
  r.cooldown_s = m.cooldown_s;
  r.graph_calls = m.graph_calls;
  return r;
}

measure::Criterion criterion_of(const suite::MeasureConfig& m) {
  return {m.min_samples, m.max_samples, m.min_time_s, m.target_rel_ci, m.timeout_s};
}

std::uint64_t rounds_of(const PlannedCase& pc, const RunOptions& opt) {
  return opt.check_only || opt.profile ? 1 : opt.rounds.value_or(pc.bench->measure.rounds);
}

verify::ResolvedCase resolve_case(const PlannedCase& pc, const RunOptions& opt, const CaseRound& round,
                                  const std::string& device) {
  const suite::Bench& b = *pc.bench;
  verify::ResolvedCase rc;
  rc.id = pc.id;
  rc.bench = b.name;
  rc.workload = b.workload;
  rc.backend = pc.backend;
  rc.dtype = pc.point.dtype;
  rc.baseline = b.baseline;
  rc.params = pc.point.params;
  rc.check_params = check_params(b, pc.point.params);
  rc.check = {b.check.enabled, b.check.recheck, {b.check.atol, b.check.rtol}, b.check.sampled_rows};
  rc.method = method_of(b.measure);
  if (opt.mode) {
    const auto mode = measure::parse_mode(*opt.mode);
    if (!mode) throw InputError("--mode '" + *opt.mode + "': must be cold, hot, graph or host");
    rc.method.mode = *mode;
  }
  if (opt.gap_us) rc.method.gap_us = *opt.gap_us;
  if (opt.l2_flush) {
    const auto flush = measure::parse_l2_flush(*opt.l2_flush);
    if (!flush) throw InputError("--l2-flush '" + *opt.l2_flush + "': must be memset or clean");
    rc.method.l2_flush = *flush;
  }
  // Each round keeps at least one sample: no more rounds than max_samples.
  if (round.count > b.measure.max_samples)
    throw InputError(b.pos.str() + ": bench '" + b.name + "': " + std::to_string(round.count) + " rounds, more than its max_samples (" +
                     std::to_string(b.measure.max_samples) + "): each round keeps at least one sample");
  rc.criterion = round_criterion(criterion_of(b.measure), round);
  // Seeded by the point, not the backend: every backend of a point gets the same input bytes;
  // parameters that transform the same values (Workload::param_keeps_values) are left out.
  Params seeded = pc.point.params;
  if (const Workload* w = find_workload(b.workload))
    std::erase_if(seeded, [w](const auto& kv) { return w->param_keeps_values(kv.first); });
  const std::uint64_t point_seed = opt.seed ^ fnv1a64(b.name + "/" + pc.point.dtype + "/" + params_string(seeded));
  rc.check_seed = point_seed + 1;
  rc.measure_seed = point_seed + 2;
  rc.round = round.index;
  rc.rounds = round.count;
  rc.check_only = opt.check_only;
  if (opt.profile) rc.profile_calls = opt.profile->calls;
  if (const TuningEntry* e = tuning_entry(pc, opt); e && e->backend != pc.backend) rc.run_as = e->backend;
  rc.device = device;
  rc.adapter_timeout_s = b.measure.adapter_timeout_s;
  return rc;
}

const TuningEntry* tuning_entry(const PlannedCase& pc, const RunOptions& opt) {
  return opt.tuning ? opt.tuning->find(pc.backend, pc.bench->workload, pc.point.dtype, pc.point.params) : nullptr;
}

double case_timeout_s(const PlannedCase& pc) {
  const auto& m = pc.bench->measure;
  if (m.case_timeout_s > 0) return m.case_timeout_s;
  if (find_backend(pc.backend)->target() == Target::external) return 2 * m.adapter_timeout_s + 30;
  return 3 * m.timeout_s + 60;
}

}  // namespace assay::runner
