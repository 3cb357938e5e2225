#include "verify/in_process_subject.hpp"

#include <cstdio>

#include "core/error.hpp"
#include "core/ids.hpp"
#include "measure/measure_loop.hpp"

namespace assay::verify {

namespace {
std::string gib(double bytes) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%.2f GiB", bytes / (1024.0 * 1024 * 1024));
  return buf;
}
}  // namespace

void InProcessSubject::admit(const Problem& problem) const {
  const double need = static_cast<double>(problem.device_bytes());
  const double free = static_cast<double>(ex_.free_memory());
  if (need > 0.95 * free)
    throw InternalError(params_string(problem.params()) + " needs " + gib(need) + " of memory; " + gib(free) +
                        " is free on " + ex_.device().name);
}

std::vector<HostTensor> InProcessSubject::check(const Problem& problem, const std::vector<HostTensor>& inputs,
                                                std::uint64_t) {
  auto inst = backend_.instantiate(problem, inputs);
  std::vector<HostTensor> outputs;
  for (int call = 0; call < 2; ++call) {
    inst->poison_output();
    inst->call(ex_.stream());
    ex_.synchronize();
    outputs.push_back(inst->read_output());
  }
  variant_ = inst->variant();
  return outputs;
}

Subject::Measured InProcessSubject::measure(const Problem& problem, const std::vector<HostTensor>& inputs,
                                            std::uint64_t, const measure::Method& method,
                                            const measure::Criterion& criterion,
                                            const std::vector<HostTensor>* recheck_inputs) {
  auto inst = backend_.instantiate(problem, inputs);
  auto sampler = ex_.sampler(method, *inst, problem.device_bytes());
  Measured m;
  m.measurement = measure::run_measurement(*sampler, method, criterion);
  variant_ = inst->variant();
  if (recheck_inputs) {
    // One more call through the same sampler, into a poisoned output. Its time is not added
    // to the samples the criterion accepted.
    m.fresh_inputs_used = inst->replace_inputs(*recheck_inputs);
    inst->poison_output();
    sampler->sample();
    ex_.synchronize();
    m.last_output = inst->read_output();
  }
  return m;
}

HostTensor InProcessSubject::profile(const Problem& problem, const std::vector<HostTensor>& inputs, std::uint64_t,
                                     std::uint64_t calls) {
  auto inst = backend_.instantiate(problem, inputs);
  inst->call(ex_.stream());  // outside the window: first-call set-up is not the kernel's cost
  ex_.synchronize();
  inst->poison_output();
  ex_.synchronize();  // the poison's memset stays outside the window too
  ex_.profiler_window(true);
  for (std::uint64_t i = 0; i < calls; ++i) inst->call(ex_.stream());
  ex_.synchronize();
  ex_.profiler_window(false);
  variant_ = inst->variant();
  return inst->read_output();
}

}  // namespace assay::verify
