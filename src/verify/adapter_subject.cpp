#include "verify/adapter_subject.hpp"

namespace assay::verify {

namespace {
// An adapter keeps no gap, drops no throttled sample and has no cool-down: it is told the
// mode, the warm-up and the criterion (adapters/assay_adapter/stopping.py is the same rule).
adapter::MeasureRequest request_of(const measure::Method& m, const measure::Criterion& c) {
  adapter::MeasureRequest r;
  r.mode = std::string(measure::mode_name(m.mode));
  r.warmup_calls = m.warmup.calls;
  r.warmup_min_s = m.warmup.min_s;
  r.min_samples = c.min_samples;
  r.max_samples = c.max_samples;
  r.min_time_s = c.min_time_s;
  r.target_rel_ci = c.target_rel_ci;
  r.timeout_s = c.timeout_s;
  return r;
}
}  // namespace

AdapterSubject::AdapterSubject(const ExternalBackend& backend, std::string device, double call_timeout_s,
                               const measure::Method& method, const measure::Criterion& criterion)
    : backend_(backend), device_(std::move(device)), call_timeout_s_(call_timeout_s),
      check_request_(request_of(method, criterion)) {}

HostTensor AdapterSubject::check(const Problem& problem, const std::vector<HostTensor>& inputs, std::uint64_t seed) {
  return backend_.run(problem, inputs, "check", device_, check_request_, call_timeout_s_, seed).output;
}

Subject::Measured AdapterSubject::measure(const Problem& problem, const std::vector<HostTensor>& inputs,
                                          std::uint64_t seed, const measure::Method& method,
                                          const measure::Criterion& criterion, bool keep_output) {
  auto result = backend_.run(problem, inputs, "measure", device_, request_of(method, criterion), call_timeout_s_, seed);
  Measured m;
  m.measurement.mode = "adapter:" + result.reply.mode;
  for (double ms : result.reply.samples_ms) m.measurement.samples_ns.push_back(ms * 1e6);
  m.measurement.stop_reason = "adapter";
  m.adapter = std::move(result.record);
  // The adapter writes the output of its last timed call.
  if (keep_output) m.last_output = std::move(result.output);
  return m;
}

}  // namespace assay::verify
