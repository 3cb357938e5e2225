#include "verify/resolved_case.hpp"

#include <nlohmann/json.hpp>

#include "core/error.hpp"

namespace assay::verify {

using nlohmann::json;

// The parent and its worker are the same binary: this form is internal, read back field by
// field so that a mismatch is one error naming the field, never a default silently taken.
std::string to_json_text(const ResolvedCase& rc) {
  const auto& m = rc.method;
  const auto& c = rc.criterion;
  const json j = {
      {"id", rc.id},
      {"bench", rc.bench},
      {"workload", rc.workload},
      {"backend", rc.backend},
      {"dtype", rc.dtype},
      {"baseline", rc.baseline},
      {"params", rc.params},
      {"check_params", rc.check_params},
      {"check",
       {{"enabled", rc.check.enabled}, {"recheck", rc.check.recheck}, {"atol", rc.check.tolerance.atol},
        {"rtol", rc.check.tolerance.rtol}, {"sampled_rows", rc.check.sampled_rows}}},
      {"method",
       {{"mode", std::string(measure::mode_name(m.mode))}, {"warmup_calls", m.warmup.calls},
        {"warmup_min_s", m.warmup.min_s}, {"throttle_threshold", m.throttle.threshold},
        {"throttle_backoff_s", m.throttle.backoff_s}, {"gap_us", m.gap_us},
        {"l2_flush", std::string(measure::l2_flush_name(m.l2_flush))}, {"cooldown_s", m.cooldown_s},
        {"graph_calls", m.graph_calls}}},
      {"criterion",
       {{"min_samples", c.min_samples}, {"max_samples", c.max_samples}, {"min_time_s", c.min_time_s},
        {"target_rel_ci", c.target_rel_ci}, {"timeout_s", c.timeout_s}}},
      {"check_seed", rc.check_seed},
      {"measure_seed", rc.measure_seed},
      {"round", rc.round},
      {"rounds", rc.rounds},
      {"check_only", rc.check_only},
      {"profile_calls", rc.profile_calls},
      {"run_as", rc.run_as},
      {"device", rc.device},
      {"adapter_timeout_s", rc.adapter_timeout_s},
  };
  return j.dump();
}

ResolvedCase parse_resolved_case(const std::string& text, const std::string& origin) {
  ResolvedCase rc;
  std::string field;
  try {
    const json j = json::parse(text);
    const auto get = [&](const json& obj, const char* key, auto& out) {
      field = key;
      obj.at(key).get_to(out);
    };
    get(j, "id", rc.id);
    get(j, "bench", rc.bench);
    get(j, "workload", rc.workload);
    get(j, "backend", rc.backend);
    get(j, "dtype", rc.dtype);
    get(j, "baseline", rc.baseline);
    get(j, "params", rc.params);
    get(j, "check_params", rc.check_params);
    const json& ch = j.at("check");
    get(ch, "enabled", rc.check.enabled);
    get(ch, "recheck", rc.check.recheck);
    get(ch, "atol", rc.check.tolerance.atol);
    get(ch, "rtol", rc.check.tolerance.rtol);
    get(ch, "sampled_rows", rc.check.sampled_rows);
    const json& m = j.at("method");
    std::string mode;
    get(m, "mode", mode);
    const auto parsed = measure::parse_mode(mode);
    if (!parsed) throw InputError(origin + ": method.mode: unknown mode '" + mode + "'");
    rc.method.mode = *parsed;
    get(m, "warmup_calls", rc.method.warmup.calls);
    get(m, "warmup_min_s", rc.method.warmup.min_s);
    get(m, "throttle_threshold", rc.method.throttle.threshold);
    get(m, "throttle_backoff_s", rc.method.throttle.backoff_s);
    get(m, "gap_us", rc.method.gap_us);
    if (m.contains("l2_flush")) {  // absent from an older parent's case: its flush, memset
      std::string flush;
      get(m, "l2_flush", flush);
      const auto f = measure::parse_l2_flush(flush);
      if (!f) throw InputError(origin + ": method.l2_flush: unknown flush '" + flush + "'");
      rc.method.l2_flush = *f;
    }
    get(m, "cooldown_s", rc.method.cooldown_s);
    get(m, "graph_calls", rc.method.graph_calls);
    const json& c = j.at("criterion");
    get(c, "min_samples", rc.criterion.min_samples);
    get(c, "max_samples", rc.criterion.max_samples);
    get(c, "min_time_s", rc.criterion.min_time_s);
    get(c, "target_rel_ci", rc.criterion.target_rel_ci);
    get(c, "timeout_s", rc.criterion.timeout_s);
    get(j, "check_seed", rc.check_seed);
    get(j, "measure_seed", rc.measure_seed);
    get(j, "round", rc.round);
    get(j, "rounds", rc.rounds);
    get(j, "check_only", rc.check_only);
    if (j.contains("profile_calls")) get(j, "profile_calls", rc.profile_calls);
    if (j.contains("run_as")) get(j, "run_as", rc.run_as);
    get(j, "device", rc.device);
    get(j, "adapter_timeout_s", rc.adapter_timeout_s);
  } catch (const json::exception& e) {
    throw InputError(origin + ": resolved case, field '" + field + "': " + e.what());
  }
  return rc;
}

CaseRecord planned_record(const ResolvedCase& rc) {
  CaseRecord r;
  r.id = rc.id;
  r.bench = rc.bench;
  r.workload = rc.workload;
  r.backend = rc.backend;
  r.dtype = rc.dtype;
  r.params = rc.params;
  r.baseline = rc.baseline;
  return r;
}

}  // namespace assay::verify
