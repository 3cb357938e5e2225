#include "measure/measure_loop.hpp"

#include <chrono>
#include <thread>



namespace assay::measure {

MeasurementRecord run_measurement(Sampler& sampler, const Method& method, const Criterion& criterion) {
  using Clock = std::chrono::steady_clock;
  // Idle first, outside every budget: a power-capped GPU that just ran another case is hotter,
  // and the case would start at a lower clock for it.
  if (method.cooldown_s > 0) std::this_thread::sleep_for(std::chrono::duration<double>(method.cooldown_s));
  const auto start = Clock::now();
  const auto elapsed = [&] { return std::chrono::duration<double>(Clock::now() - start).count(); };

  MeasurementRecord rec;
  rec.mode = sampler.mode();
  // Warm-up: module loading, handle creation and clock ramp-up stay out of the samples.
  while (rec.warmup_calls < method.warmup.calls || elapsed() < method.warmup.min_s) {
    sampler.warmup_call();
    ++rec.warmup_calls;
    if (elapsed() >= criterion.timeout_s / 2) break;  // a very slow call keeps its budget for samples
  }

  const double reference_mhz = sampler.reference_sm_clock_mhz();
  const std::optional<double> energy_start = sampler.energy_counter_j();
  const double energy_t0 = elapsed();
  StoppingRule rule(criterion);
  for (;;) {
    const Sample s = sampler.sample();
    const bool throttled = reference_mhz > 0 && s.sm_clock_mhz > 0 &&
                           s.sm_clock_mhz < method.throttle.threshold * reference_mhz;
    if (throttled) {
      ++rec.dropped_throttled;
      std::this_thread::sleep_for(std::chrono::duration<double>(method.throttle.backoff_s));
    } else {
      rec.samples_ns.push_back(s.ns);
      if (reference_mhz > 0) rec.sm_clock_mhz.push_back(s.sm_clock_mhz);  // aligned with samples_ns; 0: no tick seen
      rule.add(s.ns);
    }
    if (auto reason = rule.stop_reason(elapsed())) {
      rec.stop_reason = *reason;
      break;
    }
  }
  rec.elapsed_s = elapsed();
  rec.calls_per_sample = sampler.calls_per_sample();
  if (energy_start) {
    if (const auto energy_end = sampler.energy_counter_j()) {
      rec.energy_j = *energy_end - *energy_start;
      rec.energy_window_s = rec.elapsed_s - energy_t0;
      for (double ns : rec.samples_ns) rec.energy_timed_s += ns * 1e-9 * static_cast<double>(rec.calls_per_sample);
    }
  }
  rec.input_sets = sampler.input_sets();
  rec.l2_flush_bytes = sampler.l2_flush_bytes();
  rec.l2_flush = sampler.l2_flush();
  rec.gap_us = sampler.sample_gap_us();
  rec.gap_overruns = sampler.gap_overruns();
  return rec;
}

}  // namespace assay::measure
