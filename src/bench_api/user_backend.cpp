#include "bench_api/user_backend.hpp"

#include <cctype>
#include <cstring>

#include "bench_api/conversions.hpp"
#include "core/error.hpp"

namespace assay::bench_api {

namespace {

// Host copies of the inputs and the output; each call hands their addresses to the kernel.
class UserCpuInstance final : public Instance {
 public:
  UserCpuInstance(const bench::Kernel& k, const Problem& p, const std::vector<HostTensor>& inputs)
      : k_(k), inputs_(inputs), out_(p.output_like()), call_(describe_call(p, inputs)) {
    // The buffers keep their addresses (replace_inputs copies into them).
    for (std::size_t i = 0; i < inputs_.size(); ++i) call_.inputs[i].data = inputs_[i].data.data();
    call_.output.data = out_.data.data();
  }
  std::string variant() const override { return "user"; }
  void call(void*) override { call_user_launch(k_, call_); }
  void poison_output() override { std::memset(out_.data.data(), 0xff, out_.data.size()); }
  HostTensor read_output() override { return out_; }
  bool replace_inputs(const std::vector<HostTensor>& inputs) override {
    if (inputs.size() != inputs_.size()) return false;
    for (std::size_t i = 0; i < inputs.size(); ++i) {
      if (inputs[i].bytes() != inputs_[i].bytes()) return false;
      std::memcpy(inputs_[i].data.data(), inputs[i].data.data(), inputs[i].bytes());  // same addresses
    }
    return true;
  }

 private:
  const bench::Kernel& k_;
  std::vector<HostTensor> inputs_;
  HostTensor out_;
  bench::Call call_;
};

}  // namespace

void call_user_launch(const bench::Kernel& k, const bench::Call& call) {
  try {
    k.launch(call);
  } catch (const Error&) {
    throw;
  } catch (const std::exception& e) {
    throw InternalError("kernel '" + k.name + "' threw: " + e.what());
  } catch (...) {
    throw InternalError("kernel '" + k.name + "' threw an exception that is not a std::exception");
  }
}

bench::Call describe_call(const Problem& problem, const std::vector<HostTensor>& inputs) {
  bench::Call c;
  c.params = &problem.params();
  c.dtype = to_public(problem.dtype());
  for (const auto& t : inputs) c.inputs.push_back({nullptr, to_public(t.dtype), t.shape});
  c.output = {nullptr, to_public(problem.dtype()), problem.output_like().shape};
  return c;
}

UserBackend::UserBackend(bench::Kernel kernel) : k_(std::move(kernel)) {
  const std::string at = "kernel '" + k_.name + "': ";
  if (k_.name.empty()) throw InputError("a kernel without a name");
  for (char c : k_.name)
    if (!(std::islower(static_cast<unsigned char>(c)) || std::isdigit(static_cast<unsigned char>(c)) ||
          std::strchr("-_.@", c)))
      throw InputError(at + "a kernel name uses only lowercase letters, digits, '-', '_', '.' and '@'");
  if (k_.workload.empty()) throw InputError(at + "no workload");
  if (k_.dtypes.empty()) throw InputError(at + "no dtype");
  if (!k_.launch) throw InputError(at + "no launch function");
}

std::string UserBackend::description() const {
  if (!k_.description.empty()) return k_.description;
  return std::string("user kernel (") + (k_.device == bench::Device::cpu ? "cpu" : "cuda") + ")";
}

bool UserBackend::supports(const std::string& workload, DType dtype) const {
  if (workload != k_.workload) return false;
  for (auto t : k_.dtypes)
    if (to_dtype(t) == dtype) return true;
  return false;
}

std::string UserBackend::unavailable_reason() const {
#ifndef ASSAY_HAVE_CUDA
  if (k_.device == bench::Device::cuda) return "assay was built without CUDA";
#endif
  return {};
}

std::unique_ptr<Instance> UserBackend::instantiate(const Problem& problem, const std::vector<HostTensor>& inputs) const {
  if (k_.device == bench::Device::cpu) return std::make_unique<UserCpuInstance>(k_, problem, inputs);
#ifdef ASSAY_HAVE_CUDA
  return make_cuda_instance(k_, problem, inputs);
#else
  throw SkipError("kernel '" + k_.name + "': assay was built without CUDA");
#endif
}

}  // namespace assay::bench_api
