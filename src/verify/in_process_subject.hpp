#pragma once
// The subject of an in-process backend (assay's kernels, cuBLAS, the CPU reference): an
// instance of it on an executor, timed by the executor's sampler for the method.
#include <string>

#include "backends/backend.hpp"
#include "measure/executor.hpp"
#include "verify/subject.hpp"

namespace assay::verify {

class InProcessSubject final : public Subject {
 public:
  InProcessSubject(const Backend& backend, measure::Executor& executor) : backend_(backend), ex_(executor) {}
  // A problem whose instance would take more than 95% of the executor's free memory is refused.
  void admit(const Problem& problem) const override;
  std::vector<HostTensor> check(const Problem& problem, const std::vector<HostTensor>& inputs,
                                std::uint64_t seed) override;
  Measured measure(const Problem& problem, const std::vector<HostTensor>& inputs, std::uint64_t seed,
                   const measure::Method& method, const measure::Criterion& criterion,
                   const std::vector<HostTensor>* recheck_inputs) override;
  HostTensor profile(const Problem& problem, const std::vector<HostTensor>& inputs, std::uint64_t seed,
                     std::uint64_t calls) override;
  std::string variant() const override { return variant_; }

 private:
  const Backend& backend_;
  measure::Executor& ex_;
  std::string variant_;
};

}  // namespace assay::verify
