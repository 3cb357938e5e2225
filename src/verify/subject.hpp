#pragma once
// A subject is what a case checks and measures (DESIGN.md "Core concepts"): an in-process
// backend's instance on an executor, or an adapter program. The case protocol
// (verify/case_protocol.hpp) drives both through this interface and nothing else.
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "core/results.hpp"
#include "measure/criterion.hpp"
#include "measure/method.hpp"
#include "workloads/workload.hpp"

namespace assay::verify {

class Subject {
 public:
  virtual ~Subject() = default;

  // Throws when `problem` cannot be run here (memory; a method the subject cannot give, SkipError),
  // before its inputs are made.
  virtual void admit(const Problem& problem) const { (void)problem; }

  // Calls on `inputs`, each into a poisoned output; returns their outputs in order. In-process
  // subjects make two calls (an output that changes from call to call is caught), adapters one.
  virtual std::vector<HostTensor> check(const Problem& problem, const std::vector<HostTensor>& inputs,
                                        std::uint64_t seed) = 0;

  struct Measured {
    MeasurementRecord measurement;
    std::optional<HostTensor> last_output;  // with a recheck: the output of the recheck call
    bool fresh_inputs_used = false;         // that call ran on the recheck's fresh inputs
    std::optional<AdapterRecord> adapter;   // what an adapter reported about itself
  };
  // Samples under `method` until `criterion` stops. With `recheck_inputs` (other values of the
  // same tensors), also the output of one more call made as the timed ones were, into a poisoned
  // output, its time not a sample: on those fresh inputs, put where the timed inputs were, when
  // the subject can (fresh_inputs_used; a kernel that returns a result cached from an earlier
  // call is then caught), else on the timed inputs.
  virtual Measured measure(const Problem& problem, const std::vector<HostTensor>& inputs, std::uint64_t seed,
                           const measure::Method& method, const measure::Criterion& criterion,
                           const std::vector<HostTensor>* recheck_inputs) = 0;

  // assay profile: one untimed call (module loading, lazy set-up), then `calls` calls inside the
  // profiler's window (Executor::profiler_window; an adapter opens it in its own process), the
  // first into a poisoned output; returns the output of the last, which the case checks. Throws
  // SkipError where nothing can be profiled.
  virtual HostTensor profile(const Problem& problem, const std::vector<HostTensor>& inputs, std::uint64_t seed,
                             std::uint64_t calls) = 0;

  // The configuration the backend chose, once it has been checked or measured.
  virtual std::string variant() const = 0;
};

}  // namespace assay::verify
