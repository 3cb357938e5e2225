#include "backends/gpu_instance.hpp"

#include "gpu/cuda_check.hpp"

namespace assay {

GpuInstance::GpuInstance(const Problem& p, const std::vector<HostTensor>& inputs) : out_template_(p.output_like()) {
  try {
    std::vector<const void*> set;
    for (const auto& t : inputs) {
      void* d = alloc(t.bytes());
      ASSAY_CUDA(cudaMemcpy(d, t.data.data(), t.bytes(), cudaMemcpyHostToDevice));
      input_bytes_.push_back(t.bytes());
      set.push_back(d);
    }
    sets_.push_back(std::move(set));
    out_ = alloc(out_template_.bytes());
  } catch (...) {
    for (void* x : owned_) cudaFree(x);
    throw;
  }
}

GpuInstance::~GpuInstance() {
  cudaDeviceSynchronize();
  for (void* x : owned_) cudaFree(x);
}

void* GpuInstance::alloc(std::size_t bytes) {
  void* p = nullptr;
  const cudaError_t e = cudaMalloc(&p, std::max<std::size_t>(bytes, 1));
  if (e != cudaSuccess) {
    cudaGetLastError();
    throw InternalError("cannot allocate " + std::to_string(bytes) + " bytes of device memory: " +
                        cudaGetErrorString(e));
  }
  owned_.push_back(p);
  return p;
}

void* GpuInstance::scratch(std::size_t bytes) { return alloc(bytes); }

void GpuInstance::call(void* stream) {
  launch(static_cast<cudaStream_t>(stream), sets_[next_], out_);
  next_ = (next_ + 1) % static_cast<unsigned>(sets_.size());
}

void GpuInstance::poison_output() {
  // The legacy stream does not order with the non-blocking stream the samplers use.
  ASSAY_CUDA(cudaDeviceSynchronize());
  ASSAY_CUDA(cudaMemset(out_, 0xff, out_template_.bytes()));
  poison_own_output();
  ASSAY_CUDA(cudaDeviceSynchronize());
}

HostTensor GpuInstance::read_output() {
  ASSAY_CUDA(cudaDeviceSynchronize());
  finish_output(out_);
  HostTensor out = out_template_;
  ASSAY_CUDA(cudaMemcpy(out.data.data(), out_, out.bytes(), cudaMemcpyDeviceToHost));
  return out;
}

bool GpuInstance::replace_inputs(const std::vector<HostTensor>& inputs) {
  if (inputs.size() != input_bytes_.size()) return false;
  for (std::size_t i = 0; i < inputs.size(); ++i)
    if (inputs[i].bytes() != input_bytes_[i]) return false;
  ASSAY_CUDA(cudaDeviceSynchronize());
  for (const auto& set : sets_)
    for (std::size_t i = 0; i < inputs.size(); ++i)
      ASSAY_CUDA(cudaMemcpy(const_cast<void*>(set[i]), inputs[i].data.data(), input_bytes_[i], cudaMemcpyHostToDevice));
  inputs_replaced(inputs);
  return true;
}

unsigned GpuInstance::rotate_inputs(unsigned sets) {
  ASSAY_CUDA(cudaDeviceSynchronize());
  while (sets_.size() < sets) {
    std::vector<const void*> set;
    try {
      for (std::size_t i = 0; i < input_bytes_.size(); ++i) {
        void* d = alloc(input_bytes_[i]);
        ASSAY_CUDA(cudaMemcpy(d, sets_[0][i], input_bytes_[i], cudaMemcpyDeviceToDevice));
        set.push_back(d);
      }
    } catch (const InternalError&) {
      break;  // out of memory: fewer sets than asked; the sampler records how many are in use
    }
    sets_.push_back(std::move(set));
  }
  next_ = 0;
  return static_cast<unsigned>(sets_.size());
}

}  // namespace assay
