#pragma once
// The subject of an adapter program (docs/adapters.md): it checks, warms up and times itself
// under the method and criterion it is sent; assay gives it the same inputs as every other
// backend of the point and checks what it wrote.
#include <string>

#include "backends/external_backend.hpp"
#include "verify/subject.hpp"

namespace assay::verify {

class AdapterSubject final : public Subject {
 public:
  // `timed`: the case will be measured (not check-only, not profiled), under `method`.
  AdapterSubject(const ExternalBackend& backend, std::string device, double call_timeout_s,
                 const measure::Method& method, const measure::Criterion& criterion, bool timed);
  // Skips a timed cold case under the clean L2 flush, before its inputs are made: an adapter
  // flushes with a write (torch's zero_, JAX's x + 1), and its times would not compare with
  // those that had the clean flush.
  void admit(const Problem& problem) const override;
  std::vector<HostTensor> check(const Problem& problem, const std::vector<HostTensor>& inputs,
                                std::uint64_t seed) override;
  Measured measure(const Problem& problem, const std::vector<HostTensor>& inputs, std::uint64_t seed,
                   const measure::Method& method, const measure::Criterion& criterion,
                   const std::vector<HostTensor>* recheck_inputs) override;
  HostTensor profile(const Problem& problem, const std::vector<HostTensor>& inputs, std::uint64_t seed,
                     std::uint64_t calls) override;
  std::string variant() const override { return backend_.variant(); }

 private:
  const ExternalBackend& backend_;
  std::string device_;
  double call_timeout_s_;
  adapter::MeasureRequest check_request_;  // the case's method and criterion, sent with a check too
  bool needs_clean_flush_;                 // timed, cold, l2_flush = "clean"
};

}  // namespace assay::verify
