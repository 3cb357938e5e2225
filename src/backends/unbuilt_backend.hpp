#pragma once
#include "backends/backend.hpp"
#include "core/error.hpp"

namespace assay {

// In a CPU-only build the CUDA backends still exist by name, so that a GPU suite parses and
// its cases are reported as skipped (not as an unknown backend).
class UnbuiltBackend final : public Backend {
 public:
  UnbuiltBackend(std::string name, std::string description, std::vector<std::string> workloads)
      : name_(std::move(name)), description_(std::move(description)), workloads_(std::move(workloads)) {}
  std::string name() const override { return name_; }
  std::string description() const override { return description_; }
  Target target() const override { return Target::cuda; }
  bool supports(const std::string& workload, DType) const override {
    for (const auto& w : workloads_)
      if (w == workload) return true;
    return false;
  }
  std::string unavailable_reason() const override { return "this assay was built without CUDA"; }
  std::unique_ptr<Instance> instantiate(const Problem&, const std::vector<HostTensor>&) const override {
    throw SkipError(unavailable_reason());
  }

 private:
  std::string name_, description_;
  std::vector<std::string> workloads_;
};

}  // namespace assay
