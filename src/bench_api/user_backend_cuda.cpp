// A cuda user kernel on assay's device buffers (GpuInstance: rotation, poison, read-back).
#include "backends/gpu_instance.hpp"
#include "bench_api/user_backend.hpp"

namespace assay::bench_api {

namespace {

class UserCudaInstance final : public GpuInstance {
 public:
  UserCudaInstance(const bench::Kernel& k, const Problem& p, const std::vector<HostTensor>& inputs)
      : GpuInstance(p, inputs), k_(k), p_(p), like_(inputs) {
    for (auto& t : like_) t.data.clear();  // only the dtypes and shapes are kept
  }
  std::string variant() const override { return "user"; }

 protected:
  void launch(cudaStream_t stream, const std::vector<const void*>& in, void* out) override {
    std::vector<void*> ptrs;
    for (const void* x : in) ptrs.push_back(const_cast<void*>(x));
    call_user_launch(k_, make_call(p_, ptrs, like_, out, stream));
  }

 private:
  const bench::Kernel& k_;
  const Problem& p_;
  std::vector<HostTensor> like_;
};

}  // namespace

std::unique_ptr<Instance> make_cuda_instance(const bench::Kernel& k, const Problem& problem,
                                             const std::vector<HostTensor>& inputs) {
  return std::make_unique<UserCudaInstance>(k, problem, inputs);
}

}  // namespace assay::bench_api
