#include <map>
#include <memory>
#include <mutex>

#include "backends/cpu_gemm.hpp"
#include "backends/external_backend.hpp"
#include "backends/lazy_graph.hpp"
#include "core/text_syntax.hpp"
#ifdef ASSAY_HAVE_CUDA
#include "backends/assay_backend.hpp"
#include "backends/cublaslt_mlp.hpp"
#include "backends/cublas_gemm.hpp"
#include "backends/cudnn_attention.hpp"
#include "backends/lazy_graph_gpu.hpp"
#else
#include "backends/unbuilt_backend.hpp"
#include "kernels/attention/attention_configs.hpp"
#include "kernels/gemm/gemm_configs.hpp"
#endif

namespace assay {

namespace {
std::vector<const Backend*> with_external(std::vector<const Backend*> native) {
  static const std::vector<ExternalBackend> external = [] {
    std::vector<ExternalBackend> v;
    for (const auto& spec : external_backend_specs()) v.emplace_back(spec);
    return v;
  }();
  for (const auto& b : external) native.push_back(&b);
  return native;
}

std::vector<const Backend*>& added_backends() {
  static std::vector<const Backend*> added;
  return added;
}
}  // namespace

void add_backends(const std::vector<const Backend*>& backends) {
  for (const Backend* b : backends) added_backends().push_back(b);
}

std::vector<const Backend*> all_backends() {
  std::vector<const Backend*> v;
  const auto added_named = [](const std::string& name) {
    for (const Backend* a : added_backends())
      if (a->name() == name) return a;
    return static_cast<const Backend*>(nullptr);
  };
  for (const Backend* b : built_backends()) v.push_back(added_named(b->name()) ? added_named(b->name()) : b);
  for (const Backend* a : added_backends()) {
    bool replaces = false;
    for (const Backend* b : built_backends()) replaces = replaces || b->name() == a->name();
    if (!replaces) v.push_back(a);
  }
  return v;
}

std::vector<const Backend*> built_backends() {
  static const CpuGemmBackend cpu;
  static const LazyCpuBackend lazy_cpu;
#ifdef ASSAY_HAVE_CUDA
  static const AssayBackend assay_kernels;
  static const CublasGemmBackend cublas;
  static const CublasLtMlpBackend cublaslt;
  static const CudnnAttentionBackend cudnn;
  static const LazyGpuBackend lazy;
  static const auto all = [&] {
    std::vector<const Backend*> v = {&assay_kernels, &cublas, &cublaslt, &cudnn, &cpu, &lazy, &lazy_cpu};
    for (const auto& b : assay_variants()) v.push_back(&b);
    return with_external(v);
  }();
  return all;
#else
  static const UnbuiltBackend assay_kernels("assay", "assay's own CUDA kernels (not built)", {"gemm", "attention"});
  static const UnbuiltBackend cublas("cublas", "cuBLAS cublasGemmEx (not built)", {"gemm"});
  static const UnbuiltBackend cublaslt("cublaslt", "cuBLASLt MLP with fused epilogues (not built)", {"mlp"});
  static const UnbuiltBackend cudnn("cudnn", "cuDNN 9 SDPA forward (not built)", {"attention"});
  static const UnbuiltBackend lazy("assay-lazy", "assay's lazy-tensor engine on its GPU executor (not built)",
                                   {"gemm", "mlp", "attention", "block"});
  static const std::vector<UnbuiltBackend> variants = [] {
    std::vector<UnbuiltBackend> v;
    for (std::string_view c : kernels::kGemmConfigNames)
      if (c != "auto")
        v.emplace_back("assay@" + std::string(c), "assay's GEMM pinned to " + std::string(c) + " (not built)",
                       std::vector<std::string>{"gemm"});
    for (std::string_view c : kernels::kAttentionConfigNames)
      v.emplace_back("assay@" + std::string(c), "assay's attention pinned to " + std::string(c) + " (not built)",
                     std::vector<std::string>{"attention"});
    return v;
  }();
  static const auto all = [&] {
    std::vector<const Backend*> v = {&assay_kernels, &cublas, &cublaslt, &cudnn, &cpu, &lazy, &lazy_cpu};
    for (const auto& b : variants) v.push_back(&b);
    return with_external(v);
  }();
  return all;
#endif
}

bool is_python_callable_name(const std::string& name) { return name.rfind("py:", 0) == 0; }

std::string python_callable_name_error(const std::string& name) {
  // Dotted Python identifiers: the module as `import` takes it, the attribute path in it.
  const std::string rest = name.substr(3);
  const auto colon = rest.find(':');
  if (colon == std::string::npos || rest.find(':', colon + 1) != std::string::npos)
    return "a Python callable backend is py:MODULE:FUNCTION (e.g. py:my_pkg.kernels:sdpa)";
  if (!is_dotted_identifier(rest.substr(0, colon))) return "'" + rest.substr(0, colon) + "' is not a module name";
  if (!is_dotted_identifier(rest.substr(colon + 1)))
    return "'" + rest.substr(colon + 1) + "' is not a function name";
  return {};
}

namespace {
// A `py:MODULE:FUNCTION` backend: the torch adapter calls the user's function (docs/your-kernel.md).
// Made on first use and kept for the process, one per name.
const Backend* python_callable_backend(const std::string& name) {
  if (!python_callable_name_error(name).empty()) return nullptr;
  static std::mutex mutex;
  static std::map<std::string, std::unique_ptr<ExternalBackend>> made;
  const std::lock_guard<std::mutex> lock(mutex);
  auto& b = made[name];
  if (!b) {
    const std::string callable = name.substr(3);
    b = std::make_unique<ExternalBackend>(ExternalBackendSpec{
        name, "Python callable " + callable + " (torch tensors, through adapters/torch_adapter.py)", "TORCH_BENCH_CMD",
        name, {"python3", "@adapters/torch_adapter.py"}, {"gemm", "mlp", "attention", "block"}});
  }
  return b.get();
}
}  // namespace

const Backend* find_backend(const std::string& name) {
  for (const Backend* b : all_backends())
    if (b->name() == name) return b;
  if (is_python_callable_name(name)) return python_callable_backend(name);
  return nullptr;
}

}  // namespace assay
