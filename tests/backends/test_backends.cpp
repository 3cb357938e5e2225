#include "test_backends.hpp"

#include <csignal>
#include <cstdlib>
#include <cstring>
#include <thread>

#include "core/error.hpp"
#ifdef ASSAY_HAVE_CUDA
#include "gpu/cuda_check.hpp"
#endif

namespace assay {

namespace {

enum class Fault { abort, segv, hang, gpu_oob, gpu_trap, gpu_hang };

class FaultyInstance final : public Instance {
 public:
  FaultyInstance(Fault f, HostTensor out) : fault_(f), out_(std::move(out)) {}
  std::string variant() const override { return "planted-fault"; }
  void call(void* stream) override {
    (void)stream;
    switch (fault_) {
      case Fault::abort: std::abort();
      case Fault::segv: std::raise(SIGSEGV); break;
      case Fault::hang:
        for (;;) std::this_thread::sleep_for(std::chrono::seconds(1));
#ifdef ASSAY_HAVE_CUDA
      case Fault::gpu_oob: ASSAY_CUDA(launch_faulty_kernel(GpuFault::out_of_bounds, stream)); break;
      case Fault::gpu_trap: ASSAY_CUDA(launch_faulty_kernel(GpuFault::trap, stream)); break;
      case Fault::gpu_hang: ASSAY_CUDA(launch_faulty_kernel(GpuFault::hang, stream)); break;
#else
      default: throw InternalError("GPU faults need a CUDA build");
#endif
    }
  }
  void poison_output() override { std::memset(out_.data.data(), 0xff, out_.bytes()); }
  HostTensor read_output() override { return out_; }

 private:
  Fault fault_;
  HostTensor out_;
};

class FaultyBackend final : public Backend {
 public:
  FaultyBackend(std::string name, Fault f, Target t) : name_(std::move(name)), fault_(f), target_(t) {}
  std::string name() const override { return name_; }
  std::string description() const override { return "fails on purpose (tests of crash isolation)"; }
  Target target() const override { return target_; }
  bool supports(const std::string& workload, DType) const override { return workload == "gemm"; }
  std::unique_ptr<Instance> instantiate(const Problem& p, const std::vector<HostTensor>&) const override {
    return std::make_unique<FaultyInstance>(fault_, p.output_like());
  }

 private:
  std::string name_;
  Fault fault_;
  Target target_;
};

}  // namespace

std::vector<const Backend*> test_backends() {
  const char* on = std::getenv("ASSAY_TEST_BACKENDS");
  if (!on || std::string(on) != "1") return {};
  static const FaultyBackend abort_b("test-abort", Fault::abort, Target::cpu);
  static const FaultyBackend segv_b("test-segv", Fault::segv, Target::cpu);
  static const FaultyBackend hang_b("test-hang", Fault::hang, Target::cpu);
#ifdef ASSAY_HAVE_CUDA
  static const FaultyBackend oob_b("test-gpu-oob", Fault::gpu_oob, Target::cuda);
  static const FaultyBackend trap_b("test-gpu-trap", Fault::gpu_trap, Target::cuda);
  static const FaultyBackend ghang_b("test-gpu-hang", Fault::gpu_hang, Target::cuda);
  return {&abort_b, &segv_b, &hang_b, &oob_b, &trap_b, &ghang_b};
#else
  return {&abort_b, &segv_b, &hang_b};
#endif
}

}  // namespace assay
