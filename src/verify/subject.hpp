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

  // Throws when `problem` cannot be held here (memory), before its inputs are made.
  virtual void admit(const Problem& problem) const { (void)problem; }

  // One call on `inputs` into a poisoned output; returns that output.
  virtual HostTensor check(const Problem& problem, const std::vector<HostTensor>& inputs, std::uint64_t seed) = 0;

  struct Measured {
    MeasurementRecord measurement;
    std::optional<HostTensor> last_output;  // with keep_output: the output of a timed call
    std::optional<AdapterRecord> adapter;   // what an adapter reported about itself
  };
  // Samples under `method` until `criterion` stops; with keep_output, also the output of a
  // call made as the timed ones were (into a poisoned output), whose time is not a sample.
  virtual Measured measure(const Problem& problem, const std::vector<HostTensor>& inputs, std::uint64_t seed,
                           const measure::Method& method, const measure::Criterion& criterion,
                           bool keep_output) = 0;

  // The configuration the backend chose, once it has been checked or measured.
  virtual std::string variant() const = 0;
};

}  // namespace assay::verify
