#pragma once
#include "backends/backend.hpp"
#include "core/error.hpp"

namespace assay {

// In a CPU-only build the CUDA backends still exist by name, so that a GPU suite parses and
// its cases are reported as skipped (not as an unknown backend).
class UnbuiltBackend final : public Backend {
 public:
  UnbuiltBackend(std::string name, std::string description)
      : name_(std::move(name)), description_(std::move(description)) {}
  std::string name() const override { return name_; }
  std::string description() const override { return description_; }
  Target target() const override { return Target::cuda; }
  bool supports(const std::string& workload, DType) const override { return workload == "gemm"; }
  std::string unavailable_reason() const override { return "this assay was built without CUDA"; }
  std::unique_ptr<Instance> instantiate(const Problem&, const std::vector<HostTensor>&) const override {
    throw SkipError(unavailable_reason());
  }

 private:
  std::string name_, description_;
};

}  // namespace assay
