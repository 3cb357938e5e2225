#include "backends/gpu_gemm_instance.hpp"

#include "gpu/cuda_check.hpp"

namespace assay {

GpuGemmInstance::GpuGemmInstance(const GemmProblem& p, const std::vector<HostTensor>& inputs)
    : problem_(p), a_bytes_(inputs.at(0).bytes()), b_bytes_(inputs.at(1).bytes()),
      c_bytes_(p.output_like().bytes()) {
  try {
    a_.push_back(alloc(a_bytes_));
    b_.push_back(alloc(b_bytes_));
    c_ = alloc(c_bytes_);
  } catch (...) {
    for (void* x : a_) cudaFree(x);
    for (void* x : b_) cudaFree(x);
    throw;
  }
  ASSAY_CUDA(cudaMemcpy(a_[0], inputs[0].data.data(), a_bytes_, cudaMemcpyHostToDevice));
  ASSAY_CUDA(cudaMemcpy(b_[0], inputs[1].data.data(), b_bytes_, cudaMemcpyHostToDevice));
}

GpuGemmInstance::~GpuGemmInstance() {
  cudaDeviceSynchronize();
  for (void* x : a_) cudaFree(x);
  for (void* x : b_) cudaFree(x);
  cudaFree(c_);
}

void* GpuGemmInstance::alloc(std::size_t bytes) {
  void* p = nullptr;
  const cudaError_t e = cudaMalloc(&p, bytes);
  if (e != cudaSuccess) {
    cudaGetLastError();
    throw InternalError("cannot allocate " + std::to_string(bytes) + " bytes of device memory: " +
                        cudaGetErrorString(e));
  }
  return p;
}

void GpuGemmInstance::call(void* stream) {
  launch(static_cast<cudaStream_t>(stream), a_[next_], b_[next_], c_);
  next_ = (next_ + 1) % static_cast<unsigned>(a_.size());
}

void GpuGemmInstance::poison_output() {
  // The legacy stream does not order with the non-blocking stream the samplers use.
  ASSAY_CUDA(cudaDeviceSynchronize());
  ASSAY_CUDA(cudaMemset(c_, 0xff, c_bytes_));
  ASSAY_CUDA(cudaDeviceSynchronize());
}

HostTensor GpuGemmInstance::read_output() {
  ASSAY_CUDA(cudaDeviceSynchronize());
  HostTensor out = problem_.output_like();
  ASSAY_CUDA(cudaMemcpy(out.data.data(), c_, c_bytes_, cudaMemcpyDeviceToHost));
  return out;
}

unsigned GpuGemmInstance::rotate_inputs(unsigned sets) {
  ASSAY_CUDA(cudaDeviceSynchronize());
  while (a_.size() < sets) {
    void* a = alloc(a_bytes_);
    void* b = nullptr;
    try {
      b = alloc(b_bytes_);
    } catch (...) {
      cudaFree(a);
      break;  // fewer sets than asked; the sampler records how many are in use
    }
    ASSAY_CUDA(cudaMemcpy(a, a_[0], a_bytes_, cudaMemcpyDeviceToDevice));
    ASSAY_CUDA(cudaMemcpy(b, b_[0], b_bytes_, cudaMemcpyDeviceToDevice));
    a_.push_back(a);
    b_.push_back(b);
  }
  next_ = 0;
  return static_cast<unsigned>(a_.size());
}

}  // namespace assay
