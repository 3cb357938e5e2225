#include "runner/rounds.hpp"

#include "verify/case_protocol.hpp"

#include <algorithm>

#include "core/error.hpp"

namespace assay::runner {

namespace {

// Round `index`'s share of a count: total / rounds, the remainder to the first rounds, so that the
// rounds together hold exactly the total (at least 1 each). Rounding every share up had let R
// rounds keep R x ceil(max_samples / R), past max_samples and the results reader's cap.
std::uint64_t share(std::uint64_t total, std::uint64_t rounds, std::uint64_t index) {
  return std::max<std::uint64_t>(1, total / rounds + (index < total % rounds ? 1 : 0));
}

void append_unique(std::vector<std::string>& to, const std::vector<std::string>& from) {
  for (const auto& x : from)
    if (std::find(to.begin(), to.end(), x) == to.end()) to.push_back(x);
}

// The least clock NVML reported, 0 meaning "none seen".
int least_clock(int a, int b) { return a == 0 ? b : b == 0 ? a : std::min(a, b); }

TelemetryRecord merge_telemetry(const TelemetryRecord& a, const TelemetryRecord& b) {
  TelemetryRecord t = a;
  t.sm_clock_end_mhz = b.sm_clock_end_mhz;
  t.mem_clock_end_mhz = b.mem_clock_end_mhz;
  t.sm_clock_min_mhz = least_clock(a.sm_clock_min_mhz, b.sm_clock_min_mhz);
  t.mem_clock_min_mhz = least_clock(a.mem_clock_min_mhz, b.mem_clock_min_mhz);
  t.temperature_max_c = std::max(a.temperature_max_c, b.temperature_max_c);
  t.power_max_w = std::max(a.power_max_w, b.power_max_w);
  t.power_limit_w = std::max(a.power_limit_w, b.power_limit_w);
  append_unique(t.clock_event_reasons, b.clock_event_reasons);
  append_unique(t.other_processes, b.other_processes);
  t.polls += b.polls;
  t.unstable = a.unstable || b.unstable;
  append_unique(t.unstable_reasons, b.unstable_reasons);
  return t;
}

MeasurementRecord merge_measurements(const std::vector<const MeasurementRecord*>& ms) {
  MeasurementRecord m = *ms.front();
  m.samples_ns.clear();
  m.sm_clock_mhz.clear();
  m.warmup_calls = m.dropped_throttled = 0;
  m.elapsed_s = 0;
  m.round_samples.clear();
  m.gap_overruns = 0;
  // The clocks stay only if every round has one per sample (the same sampler always does).
  bool clocks = true, energy = true;
  double joules = 0, window_s = 0, timed_s = 0;
  std::vector<std::string> reasons;  // each round stops by its own rule: the distinct reasons, in order
  for (const MeasurementRecord* r : ms) {
    m.samples_ns.insert(m.samples_ns.end(), r->samples_ns.begin(), r->samples_ns.end());
    clocks = clocks && r->sm_clock_mhz.size() == r->samples_ns.size();
    if (clocks) m.sm_clock_mhz.insert(m.sm_clock_mhz.end(), r->sm_clock_mhz.begin(), r->sm_clock_mhz.end());
    m.round_samples.push_back(r->samples_ns.size());
    m.warmup_calls += r->warmup_calls;
    m.dropped_throttled += r->dropped_throttled;
    m.gap_overruns += r->gap_overruns;
    m.elapsed_s += r->elapsed_s;
    m.l2_flush_bytes = std::max(m.l2_flush_bytes, r->l2_flush_bytes);
    if (m.l2_flush.empty()) m.l2_flush = r->l2_flush;  // one method for every round of a case
    append_unique(reasons, {r->stop_reason});
    energy = energy && r->energy_j.has_value();
    if (energy) {
      joules += *r->energy_j;
      window_s += r->energy_window_s;
      timed_s += r->energy_timed_s;
    }
  }
  // Energy only when every round read it: a sum with holes would understate the window.
  m.energy_j.reset();
  m.energy_window_s = m.energy_timed_s = 0;
  if (energy) {
    m.energy_j = joules;
    m.energy_window_s = window_s;
    m.energy_timed_s = timed_s;
  }
  if (!clocks) m.sm_clock_mhz.clear();
  m.stop_reason.clear();
  for (const auto& r : reasons) m.stop_reason += (m.stop_reason.empty() ? "" : "+") + r;
  return m;
}

}  // namespace

measure::Criterion round_criterion(const measure::Criterion& m, const CaseRound& round) {
  measure::Criterion r = m;
  const std::uint64_t rounds = round.count;
  if (rounds <= 1) return r;
  r.min_samples = share(m.min_samples, rounds, round.index);
  r.max_samples = std::max(r.min_samples, share(m.max_samples, rounds, round.index));
  r.min_samples = std::max(r.min_samples, std::min(round.min_samples, r.max_samples));
  r.min_time_s = m.min_time_s / static_cast<double>(rounds);
  r.timeout_s = m.timeout_s / static_cast<double>(rounds);
  return r;
}

std::vector<std::size_t> round_order(std::size_t n, std::uint64_t round) {
  std::vector<std::size_t> order(n);
  for (std::size_t i = 0; i < n; ++i) order[i] = round % 2 == 0 ? i : n - 1 - i;
  return order;
}

CaseRecord merge_rounds(const std::vector<CaseRecord>& parts) {
  if (parts.empty()) throw InternalError("merge_rounds: no round to merge");
  std::size_t first_failed = 0;
  while (first_failed < parts.size() && parts[first_failed].status == CaseStatus::ok) ++first_failed;
  CaseRecord rec = first_failed < parts.size() ? parts[first_failed] : parts.back();
  // A round skipped after others ran (a skip that the first round did not meet) leaves the case
  // half measured: an error, not a skip that would read as "did not run".
  if (first_failed > 0 && first_failed < parts.size() && rec.status == CaseStatus::skipped) {
    rec.status = CaseStatus::error;
    rec.reason = "round " + std::to_string(first_failed + 1) + " was skipped after earlier rounds ran: " + rec.reason;
  }
  rec.check = parts.front().check;
  rec.summary.reset();
  rec.derived.reset();
  rec.speedup_vs_baseline.reset();
  rec.baseline_median_ns.reset();
  rec.cycles_speedup_vs_baseline.reset();
  double wall = 0;
  for (const auto& p : parts) wall += p.worker_wall_s;
  rec.worker_wall_s = wall;
  // Every round's measurement up to the first failure, that one's included (an empty one too:
  // its dropped samples and time are part of why it failed).
  std::vector<const MeasurementRecord*> ms;
  for (std::size_t i = 0; i < parts.size() && i <= first_failed; ++i)
    if (parts[i].measurement) ms.push_back(&*parts[i].measurement);
  if (!ms.empty()) rec.measurement = merge_measurements(ms);
  std::optional<TelemetryRecord> tel;
  for (std::size_t i = 0; i < parts.size() && i <= first_failed; ++i)
    if (parts[i].telemetry) tel = tel ? merge_telemetry(*tel, *parts[i].telemetry) : *parts[i].telemetry;
  rec.telemetry = tel;
  return rec;
}

// A case measured in rounds: one record from its rounds' (merge_rounds), summarised over every
// round's samples when each round was ok.
CaseRecord finish_case_rounds(const std::vector<CaseRecord>& parts) {
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
  verify::summarize_ok(rec, d);
  return rec;
}


}  // namespace assay::runner
