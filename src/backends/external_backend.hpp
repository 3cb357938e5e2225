#pragma once
// A backend that is an external program speaking the adapter protocol (docs/adapters.md):
// PyTorch, JAX, Triton adapters shipped in adapters/, or any command named by an
// environment variable (TORCH_BENCH_CMD, XLA_BENCH_CMD, TVM_BENCH_CMD, ...).
#include "backends/adapter_protocol.hpp"
#include "backends/backend.hpp"
#include "backends/subprocess.hpp"
#include "core/results.hpp"

namespace assay {

struct ExternalBackendSpec {
  std::string name;
  std::string description;
  std::string env_var;                       // replaces the command when set
  std::string variant;                       // told to the adapter in the case
  std::vector<std::string> default_command;  // "@adapters/x.py" is found in the adapters folder; empty: env only
  std::vector<std::string> workloads;
};

class ExternalBackend final : public Backend {
 public:
  explicit ExternalBackend(ExternalBackendSpec spec) : spec_(std::move(spec)) {}
  std::string name() const override { return spec_.name; }
  std::string description() const override { return spec_.description; }
  Target target() const override { return Target::external; }
  bool supports(const std::string& workload, DType) const override;
  std::string unavailable_reason() const override;
  std::unique_ptr<Instance> instantiate(const Problem&, const std::vector<HostTensor>&) const override;

  struct Result {
    adapter::Reply reply;
    HostTensor output;
    AdapterRecord record;
    double wall_s = 0;  // the adapter process's whole life, start to exit
  };
  // One adapter call for `purpose` ("check" or "measure"), killed after timeout_s. Throws
  // SkipError when the adapter reports its stack unavailable, InternalError with the reason for
  // every other failure.
  Result run(const Problem& problem, const std::vector<HostTensor>& inputs, const std::string& purpose,
             const std::string& device, const adapter::MeasureRequest& measure, double timeout_s,
             std::uint64_t seed, const std::vector<HostTensor>* fresh_inputs = nullptr) const;

  std::vector<std::string> command() const;  // resolved; throws SkipError when there is none
  const std::string& variant() const { return spec_.variant; }

 private:
  ExternalBackendSpec spec_;
};

const std::vector<ExternalBackendSpec>& external_backend_specs();

}  // namespace assay
