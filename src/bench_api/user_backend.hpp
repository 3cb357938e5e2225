#pragma once
// A kernel a program registered through include/assay/bench.hpp, as a backend: its launch
// function called on assay's buffers (host ones for a cpu kernel, device ones for a cuda kernel).
#include <assay/bench.hpp>

#include "backends/backend.hpp"

namespace assay::bench_api {

class UserBackend final : public Backend {
 public:
  // Throws InputError naming what is wrong with the registration.
  explicit UserBackend(bench::Kernel kernel);
  std::string name() const override { return k_.name; }
  std::string description() const override;
  Target target() const override { return k_.device == bench::Device::cpu ? Target::cpu : Target::cuda; }
  bool supports(const std::string& workload, DType dtype) const override;
  std::string unavailable_reason() const override;
  std::unique_ptr<Instance> instantiate(const Problem& problem, const std::vector<HostTensor>& inputs) const override;

 private:
  bench::Kernel k_;
};

// One call of the user's launch: exceptions become InternalError naming the kernel.
void call_user_launch(const bench::Kernel& k, const bench::Call& call);
// A call's description (parameters, dtypes, shapes) with no addresses yet: built once per
// instance, so that a timed launch only sets the pointers and allocates nothing.
bench::Call describe_call(const Problem& problem, const std::vector<HostTensor>& inputs);

#ifdef ASSAY_HAVE_CUDA
std::unique_ptr<Instance> make_cuda_instance(const bench::Kernel& k, const Problem& problem,
                                             const std::vector<HostTensor>& inputs);
#endif

}  // namespace assay::bench_api
