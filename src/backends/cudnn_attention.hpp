#pragma once
#include "backends/backend.hpp"

namespace assay {

// The attention workload on cuDNN 9's fused flash-attention engines, through the graph
// (backend) API: the graph cudnn-frontend builds for SDPA forward (cudnn_sdpa_graph.hpp),
// planned once per instance, executed per call. cuDNN is loaded at run time (cudnn_api.hpp:
// libcudnn.so.9, then ASSAY_CUDNN_LIBRARY_DIR, then PyTorch's nvidia/cudnn/lib), so that assay
// starts where it is missing and the cases say why they were skipped. f16 and bf16 only: cuDNN
// has no fused fp32 attention.
class CudnnAttentionBackend final : public Backend {
 public:
  std::string name() const override { return "cudnn"; }
  std::string description() const override {
    return "cuDNN 9 SDPA forward (graph API, fused flash attention; f16/bf16, fp32 softmax and accumulation)";
  }
  Target target() const override { return Target::cuda; }
  bool supports(const std::string& workload, DType dtype) const override {
    return workload == "attention" && (dtype == DType::f16 || dtype == DType::bf16 || dtype == DType::f8e4m3);
  }
  std::string unavailable_reason() const override;
  std::string library_version() const override;
  std::unique_ptr<Instance> instantiate(const Problem& problem, const std::vector<HostTensor>& inputs) const override;
};

}  // namespace assay
