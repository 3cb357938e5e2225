#pragma once
// Device buffers of one GEMM problem, shared by the CUDA backends: inputs (with copies for
// rotation), the output, poisoning and read-back. Subclasses only launch.
#include <cuda_runtime.h>

#include <vector>

#include "backends/backend.hpp"
#include "workloads/gemm.hpp"

namespace assay {

class GpuGemmInstance : public Instance {
 public:
  GpuGemmInstance(const GemmProblem& p, const std::vector<HostTensor>& inputs);
  ~GpuGemmInstance() override;
  void call(void* stream) final;
  void poison_output() final;
  HostTensor read_output() final;
  unsigned rotate_inputs(unsigned sets) final;

 protected:
  virtual void launch(cudaStream_t stream, const void* a, const void* b, void* c) = 0;
  GemmProblem problem_;

 private:
  void* alloc(std::size_t bytes);
  std::vector<void*> a_, b_;
  void* c_ = nullptr;
  std::size_t a_bytes_, b_bytes_, c_bytes_;
  unsigned next_ = 0;
};

}  // namespace assay
