// A cuda user kernel on assay's device buffers (GpuInstance: rotation, poison, read-back).
#include "backends/gpu_instance.hpp"
#include "bench_api/user_backend.hpp"

namespace assay::bench_api {

namespace {

class UserCudaInstance final : public GpuInstance {
 public:
  UserCudaInstance(const bench::Kernel& k, const Problem& p, const std::vector<HostTensor>& inputs)
      : GpuInstance(p, inputs), k_(k), call_(describe_call(p, inputs)) {}
  std::string variant() const override { return "user"; }

 protected:
  // The timed path: the current input set's and the output's addresses, nothing allocated.
  void launch(cudaStream_t stream, const std::vector<const void*>& in, void* out) override {
    for (std::size_t i = 0; i < in.size(); ++i) call_.inputs[i].data = const_cast<void*>(in[i]);
    call_.output.data = out;
    call_.stream = stream;
    call_user_launch(k_, call_);
  }

 private:
  const bench::Kernel& k_;
  bench::Call call_;
};

}  // namespace

std::unique_ptr<Instance> make_cuda_instance(const bench::Kernel& k, const Problem& problem,
                                             const std::vector<HostTensor>& inputs) {
  return std::make_unique<UserCudaInstance>(k, problem, inputs);
}

}  // namespace assay::bench_api
