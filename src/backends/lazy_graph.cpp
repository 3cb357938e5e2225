#include "backends/lazy_graph.hpp"

#include <cstring>

#include "core/error.hpp"
#include "graph/executor.hpp"
#include "graph/tensor.hpp"
#include "workloads/gemm.hpp"

namespace assay {

namespace {

using namespace graph;

ElemType elem_of(DType t) {
  switch (t) {
    case DType::f32: return ElemType::f32;
    case DType::f16: return ElemType::f16;
    case DType::bf16: return ElemType::bf16;
    default: throw InternalError("assay-lazy: no graph dtype for " + std::string(dtype_name(t)));
  }
}

LazyTensor constant(Graph& g, const HostTensor& t) {
  Shape s;
  for (auto d : t.shape) s.push_back(d);
  return from_host(g, s, to_floats(t), {elem_of(t.dtype)});
}

}  // namespace

Program record_lazy_workload(const Problem& p, const std::vector<HostTensor>& in) {
  Program prog;
  Graph& g = prog.graph;
  std::vector<LazyTensor> x;
  for (const auto& t : in) x.push_back(constant(g, t));
  const auto param = [&](const char* name) { return p.params().at(name); };
  LazyTensor out;
  if (p.workload() == "gemm") {
    out = matmul(x[0], x[1]);
  } else if (p.workload() == "mlp") {
    // GELU's erf form, as the workload defines it. (cuBLASLt's GELU_BIAS epilogue computes the
    // tanh form, so the engine does not hand this one to an epilogue: it is a generated kernel.)
    out = add(matmul(gelu(add(matmul(x[0], x[1]), x[2])), x[3]), x[4]);
  } else if (p.workload() == "attention") {
    out = scaled_dot_product_attention(x[0], x[1], x[2], param("causal") != 0);
  } else if (p.workload() == "block") {
    const std::int64_t b = param("batch"), l = param("seq"), h = param("hidden"), nh = param("heads"), d = h / nh;
    const auto heads = [&](LazyTensor y) { return permute(reshape(y, {b, l, nh, d}), {0, 2, 1, 3}); };
    const LazyTensor a = layer_norm(x[0], {h}, x[1], x[2]);
    const LazyTensor att = scaled_dot_product_attention(heads(matmul(a, x[3])), heads(matmul(a, x[4])),
                                                        heads(matmul(a, x[5])), param("causal") != 0);
    const LazyTensor r = add(x[0], matmul(reshape(permute(att, {0, 2, 1, 3}), {b, l, h}), x[6]));
    const LazyTensor n2 = layer_norm(r, {h}, x[7], x[8]);
    out = add(r, add(matmul(gelu(add(matmul(n2, x[9]), x[10])), x[11]), x[12]));
  } else {
    throw InternalError("assay-lazy: no graph for workload " + p.workload());
  }
  prog.outputs = {out.id};
  return prog;
}

namespace {

class LazyGraphInstance final : public Instance {
 public:
  LazyGraphInstance(const Problem& p, const std::vector<HostTensor>& inputs)
      : p_(p), prog_(record_lazy_workload(p, inputs)), out_(p.output_like()) {}
  std::string variant() const override { return "cpu-reference-executor"; }
  void call(void*) override {
    const HostValue v = CpuExecutor().run(prog_.graph, prog_.outputs).front();
    if (v.values.size() != out_.numel()) throw InternalError("assay-lazy: the graph's output has the wrong size");
    for (std::size_t i = 0; i < v.values.size(); ++i) store_from_float(out_.dtype, out_.data.data(), i, v.values[i]);
  }
  void poison_output() override { std::memset(out_.data.data(), 0xff, out_.data.size()); }
  HostTensor read_output() override { return out_; }
  bool replace_inputs(const std::vector<HostTensor>& inputs) override {
    prog_ = record_lazy_workload(p_, inputs);
    return true;
  }

 private:
  const Problem& p_;
  Program prog_;
  HostTensor out_;
};

}  // namespace

bool lazy_supports(const std::string& workload, DType dtype) {
  if (dtype != DType::f32 && dtype != DType::f16 && dtype != DType::bf16) return false;
  return workload == "gemm" || workload == "mlp" || workload == "attention" || workload == "block";
}

std::unique_ptr<Instance> LazyCpuBackend::instantiate(const Problem& problem,
                                                        const std::vector<HostTensor>& inputs) const {
  return std::make_unique<LazyGraphInstance>(problem, inputs);
}

}  // namespace assay
