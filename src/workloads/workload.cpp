#include "workloads/workload.hpp"

#include "core/ids.hpp"

#include "workloads/attention.hpp"
#include "workloads/block.hpp"
#include "workloads/gemm.hpp"
#include "workloads/mlp.hpp"

namespace assay {

std::size_t HostTensor::numel() const {
  std::size_t n = 1;
  for (auto d : shape) n *= static_cast<std::size_t>(d);
  return n;
}

HostTensor HostTensor::zeros(DType dtype, std::vector<std::int64_t> shape) {
  HostTensor t{dtype, std::move(shape), {}};
  t.data.assign(t.numel() * dtype_size(dtype), std::byte{0});
  return t;
}

std::string Problem::shape_string() const { return params_string(params()); }

namespace {
std::vector<const Workload*>& added_workloads() {
  static std::vector<const Workload*> added;
  return added;
}
}  // namespace

void add_workloads(const std::vector<const Workload*>& workloads) {
  for (const Workload* w : workloads) added_workloads().push_back(w);
}

std::vector<const Workload*> all_workloads() {
  static const GemmWorkload gemm;
  static const MlpWorkload mlp;
  static const AttentionWorkload attention;
  static const BlockWorkload block;
  std::vector<const Workload*> v = {&gemm, &mlp, &attention, &block};
  v.insert(v.end(), added_workloads().begin(), added_workloads().end());
  return v;
}

const Workload* find_workload(const std::string& name) {
  for (const Workload* w : all_workloads())
    if (w->name() == name) return w;
  return nullptr;
}

}  // namespace assay
