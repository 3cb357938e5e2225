#pragma once
// Device buffers of one problem, shared by the CUDA backends: the inputs (with copies for
// rotation), the output, poisoning and read-back. Subclasses only launch.
#include <cuda_runtime.h>

#include <vector>

#include "backends/backend.hpp"

namespace assay {

class GpuInstance : public Instance {
 public:
  GpuInstance(const Problem& p, const std::vector<HostTensor>& inputs);
  ~GpuInstance() override;
  void call(void* stream) final;
  void poison_output() final;
  HostTensor read_output() final;
  unsigned rotate_inputs(unsigned sets) final;
  bool replace_inputs(const std::vector<HostTensor>& inputs) final;

 protected:
  // One call on `stream` with the current input set (in make_inputs order) and the output.
  virtual void launch(cudaStream_t stream, const std::vector<const void*>& in, void* out) = 0;
  // Device scratch memory a subclass needs, freed with the instance.
  void* scratch(std::size_t bytes);
  // For a backend whose own output form differs from the problem's (cuDNN's FP8 attention
  // writes e4m3 on Hopper, the problem's output is bf16): poison that buffer too, and turn it
  // into `out` before the read-back. Neither is timed: launch() is.
  virtual void poison_own_output() {}
  virtual void finish_output(void* /*out*/) {}
  // After replace_inputs has uploaded new values (a backend that derives settings from them).
  virtual void inputs_replaced(const std::vector<HostTensor>& /*inputs*/) {}

 private:
  void* alloc(std::size_t bytes);
  std::vector<std::size_t> input_bytes_;
  std::vector<std::vector<const void*>> sets_;  // sets_[set][input]
  std::vector<void*> owned_;
  void* out_ = nullptr;
  HostTensor out_template_;
  unsigned next_ = 0;
};

}  // namespace assay
