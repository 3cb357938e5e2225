#include "verify/adapter_subject.hpp"

#include "core/error.hpp"

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
                               const measure::Method& method, const measure::Criterion& criterion, bool timed)
    : backend_(backend), device_(std::move(device)), call_timeout_s_(call_timeout_s),
      check_request_(request_of(method, criterion)),
      needs_clean_flush_(timed && method.mode == measure::Mode::cold && method.l2_flush == measure::L2Flush::clean) {}

void AdapterSubject::admit(const Problem& problem) const {
  (void)problem;
  if (needs_clean_flush_)
    throw SkipError("l2_flush = \"clean\" is in-process only: the adapter flushes L2 with a write "
                    "(docs/suite-format.md, l2_flush)");
}

std::vector<HostTensor> AdapterSubject::check(const Problem& problem, const std::vector<HostTensor>& inputs,
                                              std::uint64_t seed) {
  std::vector<HostTensor> outputs;
  outputs.push_back(backend_.run(problem, inputs, "check", device_, check_request_, call_timeout_s_, seed).output);
  return outputs;
}

Subject::Measured AdapterSubject::measure(const Problem& problem, const std::vector<HostTensor>& inputs,
                                          std::uint64_t seed, const measure::Method& method,
                                          const measure::Criterion& criterion,
                                          const std::vector<HostTensor>* recheck_inputs) {
  auto result = backend_.run(problem, inputs, "measure", device_, request_of(method, criterion), call_timeout_s_, seed,
                             recheck_inputs);
  // The reply must be a measurement that the request could have produced: no more samples than
  // the criterion allows, and together (they follow each other) no longer than the call took.
  const auto& samples = result.reply.samples_ms;
  if (samples.size() > criterion.max_samples)
    throw InternalError("adapter reply: " + std::to_string(samples.size()) + " samples where the criterion allows " +
                        std::to_string(criterion.max_samples) + " (max_samples)");
  double total_s = 0;
  for (double ms : samples) total_s += ms * 1e-3;
  if (result.wall_s > 0 && total_s > result.wall_s)
    throw InternalError("adapter reply: samples add up to " + std::to_string(total_s) + " s, more than the call took");
  Measured m;
  m.measurement.mode = "adapter:" + result.reply.mode;
  for (double ms : result.reply.samples_ms) m.measurement.samples_ns.push_back(ms * 1e6);
  m.measurement.stop_reason = "adapter";
  m.adapter = std::move(result.record);
  // The adapter writes the output of its last timed call, or of a call on the fresh inputs
  // when it says it made one (adapters that predate them ignore the fresh inputs).
  if (recheck_inputs) {
    m.last_output = std::move(result.output);
    m.fresh_inputs_used = result.reply.fresh_inputs;
  }
  return m;
}

HostTensor AdapterSubject::profile(const Problem& problem, const std::vector<HostTensor>& inputs, std::uint64_t seed,
                                   std::uint64_t calls) {
  adapter::MeasureRequest req = check_request_;
  req.profile_calls = calls;
  return backend_.run(problem, inputs, "profile", device_, req, call_timeout_s_, seed).output;
}

}  // namespace assay::verify
