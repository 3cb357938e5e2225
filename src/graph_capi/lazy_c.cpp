// The C API of the lazy-tensor graph (include/assay/lazy_c.h): handles, node ids and float
// buffers across the boundary, every C++ exception caught and turned into -1 plus a message.
#include <assay/lazy_c.h>

#include <cmath>
#include <cstdio>
#include <cstring>
#include <mutex>
#include <new>
#include <string>
#include <unordered_set>
#include <vector>

#include "graph/dump.hpp"
#include "graph/error.hpp"
#include "graph/executor.hpp"
#include "graph/tensor.hpp"
#ifdef ASSAY_LAZY_GPU
#include <cuda_runtime.h>

#include "gpu/cublas_api.hpp"
#include "graph_gpu/gpu_executor.hpp"
#include "graph_gpu/kernel_cache.hpp"
#endif

struct assay_lazy_graph {
  assay::graph::Graph graph;
  std::uint32_t serial = 0;  // in the upper half of every id it hands out (at())
  std::int64_t executions = 0;
  std::int64_t evaluated = 0;
};

namespace {

using namespace assay::graph;

thread_local std::string last_error;

// One lock for the whole API: ctypes releases the GIL around each call, so two Python threads
// recording into one graph (or materialising on the process's one GPU executor) would race.
std::mutex api_mutex;
// The graphs made and not yet freed: a freed, foreign or garbage handle is refused by name, not
// dereferenced. Serials tell one graph's node ids from another's.
std::unordered_set<const assay_lazy_graph*> live_graphs;
std::uint32_t next_serial = 1;

// Runs `f` under the API's lock, returning its result, or `fail` with the message kept when it throws.
template <class F, class R>
R guarded(F&& f, R fail) {
  const std::lock_guard lock(api_mutex);
  last_error.clear();
  try {
    return f();
  } catch (const std::bad_alloc&) {
    last_error = "out of host memory (std::bad_alloc)";
  } catch (const std::exception& e) {
    last_error = e.what();
  } catch (...) {
    last_error = "an unknown error";
  }
  return fail;
}

void check_live(const assay_lazy_graph* g) {
  if (!g) throw std::invalid_argument("no graph");
  if (!live_graphs.contains(g)) {
    char text[32];
    std::snprintf(text, sizeof text, "%p", static_cast<const void*>(g));
    throw std::invalid_argument(std::string("graph handle ") + text +
                                " is not live (freed, or not made by assay_lazy_graph_new)");
  }
}

// The process's executor: "cpu" (the reference), "gpu", or "auto" (the GPU where this library
// has the GPU executor and a CUDA device is present, else the CPU).
std::string executor_choice = "auto";

#ifdef ASSAY_LAZY_GPU
bool have_device() {
  int n = 0;
  return cudaGetDeviceCount(&n) == cudaSuccess && n > 0;
}
// Why the GPU executor cannot run here (no device, or a library it opens at run time is
// missing), or empty.
std::string gpu_unavailable() {
  if (!have_device()) return "no CUDA device was found";
  if (!assay::cublas::api().error.empty()) return assay::cublas::api().error;
  if (!assay::cublas::lt_api().error.empty()) return assay::cublas::lt_api().error;
  return gpu::nvrtc_unavailable();
}
GpuExecutor& gpu_executor() {
  static GpuExecutor ex;  // one per process: its kernel cache and captured graphs are shared
  return ex;
}
#endif

bool use_gpu() {
#ifdef ASSAY_LAZY_GPU
  if (executor_choice == "gpu") return true;
  static const bool runnable = gpu_unavailable().empty();
  return executor_choice == "auto" && runnable;
#else
  return false;
#endif
}

HostValue execute(const LazyTensor& t) {
#ifdef ASSAY_LAZY_GPU
  if (use_gpu()) return gpu_executor().run(*t.graph, {t.id}).front();
#endif
  return materialize(t);
}

ElemType elem(int code) {
  switch (code) {
    case 0: return ElemType::f32;
    case 1: return ElemType::f16;
    case 2: return ElemType::bf16;
    case 3: return ElemType::i64;
    case 4: return ElemType::boolean;
  }
  throw std::invalid_argument("dtype code " + std::to_string(code) + " (0 f32, 1 f16, 2 bf16, 3 i64, 4 bool)");
}

int code_of(ElemType t) { return static_cast<int>(t); }

// The engine holds i64 values as float32 (docs/lazy.md): exact only up to 2^24 in magnitude.
void check_i64_value(ElemType t, double v, const char* what) {
  if (t == ElemType::i64 && !(std::fabs(v) <= 16777216.0))
    throw std::invalid_argument(std::string(what) + ": the i64 value " + std::to_string(v) +
                                " is beyond 2^24, which the engine's float32 values hold exactly");
}

Shape shape_of(const std::int64_t* dims, int rank) {
  if (rank < 0 || rank > kMaxRank) throw std::invalid_argument("rank " + std::to_string(rank) + " (at most 8)");
  if (rank > 0 && !dims) throw std::invalid_argument("no shape given");
  Shape s;
  for (int i = 0; i < rank; ++i) s.push_back(dims[i]);
  return s;
}

Dims dims_of(const int* d, int n) {
  if (n < 0 || n > kMaxRank) throw std::invalid_argument("dims count " + std::to_string(n) + " (at most 8)");
  if (n > 0 && !d) throw std::invalid_argument("no dims given");
  return Dims(std::vector<int>(d, d + n));
}

// A node id is the graph's serial << 32 | the node's index, so that an id of another graph (whose
// index may exist here too) is refused instead of read as this graph's node.
LazyTensor at(const assay_lazy_graph* g, std::int64_t id) {
  check_live(g);
  const auto index = static_cast<std::uint64_t>(id) & 0xffffffffu;
  if (id < 0 || static_cast<std::uint64_t>(id) >> 32 != g->serial || index >= g->graph.size())
    throw std::invalid_argument("node " + std::to_string(id) + " is not in this graph");
  return {const_cast<Graph*>(&g->graph), static_cast<NodeId>(index)};
}
std::int64_t id_of(const assay_lazy_graph* g, NodeId node) {
  return static_cast<std::int64_t>(g->serial) << 32 | static_cast<std::int64_t>(node);
}
std::int64_t id_of(const assay_lazy_graph* g, LazyTensor t) { return id_of(g, t.id); }

Site site_of(assay_lazy_graph* g, const char* site) { return g->graph.site(site ? site : "?"); }
std::string_view text(const char* s) { return s ? s : ""; }

// A count of a live graph (`of` reads it), or -1 with the error set.
template <class F>
int64_t count_of(const assay_lazy_graph* g, F&& of) {
  return guarded(
      [&] {
        check_live(g);
        return static_cast<int64_t>(of(*g));
      },
      int64_t{-1});
}

template <class T>
T* output_buffer(T* p, bool needed) {
  if (!p && needed) throw std::invalid_argument("no output buffer given");
  return p;
}

}  // namespace

extern "C" {

int assay_lazy_abi_version(void) { return 2; }
const char* assay_lazy_last_error(void) { return last_error.c_str(); }

assay_lazy_graph* assay_lazy_graph_new(void) {
  return guarded(
      [] {
        auto* g = new assay_lazy_graph();
        g->serial = next_serial;
        next_serial = next_serial == 0x7fffffffu ? 1 : next_serial + 1;  // ids stay >= 0
        live_graphs.insert(g);
        return g;
      },
      static_cast<assay_lazy_graph*>(nullptr));
}
void assay_lazy_graph_free(assay_lazy_graph* g) {
  guarded(
      [&] {
        if (!g) return 0;
        check_live(g);  // a second free, or a handle never made here: refused (the message is kept)
        live_graphs.erase(g);
        delete g;
        return 0;
      },
      -1);
}
int64_t assay_lazy_node_count(const assay_lazy_graph* g) {
  return count_of(g, [](const assay_lazy_graph& l) { return l.graph.size(); });
}

int64_t assay_lazy_factory(assay_lazy_graph* g, const char* kind, const int64_t* shape, int rank, int dtype,
                           double value, const char* device, const char* site) {
  return guarded(
      [&] {
        check_live(g);
        const Shape s = shape_of(shape, rank);
        const Options o{elem(dtype), text(device).empty() ? "cpu" : text(device)};
        const Site where = site_of(g, site);
        const std::string_view k = text(kind);
        if (k == "randn") {
          // The seed travels as a double: exact up to 2^53, and a cast of NaN or 1e300 is undefined.
          if (!(value >= 0 && value <= 9007199254740992.0 && value == std::floor(value)))
            throw std::invalid_argument("randn: the seed " + std::to_string(value) + " is not an integer in [0, 2^53]");
          return id_of(g, randn(g->graph, s, static_cast<std::uint64_t>(value), o, where));
        }
        if (k == "zeros") return id_of(g, zeros(g->graph, s, o, where));
        if (k == "ones") return id_of(g, ones(g->graph, s, o, where));
        if (k == "full") {
          check_i64_value(o.dtype, value, "full");
          return id_of(g, full(g->graph, s, value, o, where));
        }
        throw std::invalid_argument("unknown factory '" + std::string(k) + "'");
      },
      int64_t{-1});
}

int64_t assay_lazy_from_host(assay_lazy_graph* g, const int64_t* shape, int rank, int dtype, const double* values,
                             const char* device, const char* site) {
  return guarded(
      [&] {
        check_live(g);
        for (int i = 0; i < rank && shape; ++i)  // before numel() sizes a buffer by them
          if (shape[i] < 0 || shape[i] > (std::int64_t{1} << 40))
            throw std::invalid_argument("from_host: size " + std::to_string(shape[i]) + " of dim " + std::to_string(i) +
                                        " is negative or over 2^40");
        const Shape s = shape_of(shape, rank);
        if (s.numel() > 0 && !values) throw std::invalid_argument("no values given");
        const ElemType type = elem(dtype);
        std::vector<float> v(static_cast<std::size_t>(s.numel()));
        for (std::size_t i = 0; i < v.size(); ++i) {
          check_i64_value(type, values[i], "from_host");
          v[i] = static_cast<float>(values[i]);
        }
        return id_of(g, from_host(g->graph, s, std::move(v), {elem(dtype), text(device).empty() ? "cpu" : text(device)},
                               site_of(g, site)));
      },
      int64_t{-1});
}

int64_t assay_lazy_elementwise(assay_lazy_graph* g, const char* op, int64_t a, int64_t b, const char* site) {
  return guarded(
      [&] {
        const LazyTensor x = at(g, a);
        const Site s = site_of(g, site);
        const std::string_view o = text(op);
        if (o == "add") return id_of(g, add(x, at(g, b), s));
        if (o == "sub") return id_of(g, sub(x, at(g, b), s));
        if (o == "mul") return id_of(g, mul(x, at(g, b), s));
        if (o == "div") return id_of(g, div(x, at(g, b), s));
        if (o == "neg") return id_of(g, neg(x, s));
        if (o == "exp") return id_of(g, exp(x, s));
        if (o == "log") return id_of(g, log(x, s));
        if (o == "sqrt") return id_of(g, sqrt(x, s));
        if (o == "relu") return id_of(g, relu(x, s));
        if (o == "sigmoid") return id_of(g, sigmoid(x, s));
        if (o == "tanh") return id_of(g, tanh(x, s));
        if (o == "gelu") return id_of(g, gelu(x, false, s));
        if (o == "gelu_tanh") return id_of(g, gelu(x, true, s));
        throw std::invalid_argument("unknown elementwise op '" + std::string(o) + "'");
      },
      int64_t{-1});
}

int64_t assay_lazy_where(assay_lazy_graph* g, int64_t cond, int64_t a, int64_t b, const char* site) {
  return guarded([&] { return id_of(g, where(at(g, cond), at(g, a), at(g, b), site_of(g, site))); }, int64_t{-1});
}

int64_t assay_lazy_cast(assay_lazy_graph* g, int64_t a, int dtype, const char* site) {
  return guarded([&] { return id_of(g, cast(at(g, a), elem(dtype), site_of(g, site))); }, int64_t{-1});
}

int64_t assay_lazy_matmul(assay_lazy_graph* g, int64_t a, int64_t b, const char* site) {
  return guarded([&] { return id_of(g, matmul(at(g, a), at(g, b), site_of(g, site))); }, int64_t{-1});
}

int64_t assay_lazy_linear(assay_lazy_graph* g, int64_t x, int64_t weight, int64_t bias, const char* site) {
  return guarded(
      [&] {
        std::optional<LazyTensor> b;
        if (bias >= 0) b = at(g, bias);
        return id_of(g, linear(at(g, x), at(g, weight), b, site_of(g, site)));
      },
      int64_t{-1});
}

int64_t assay_lazy_attention(assay_lazy_graph* g, int64_t q, int64_t k, int64_t v, int causal, double scale,
                             const char* site) {
  return guarded(
      [&] {
        std::optional<double> sc;
        if (!std::isnan(scale)) sc = scale;
        return id_of(g, scaled_dot_product_attention(at(g, q), at(g, k), at(g, v), causal != 0, sc, site_of(g, site)));
      },
      int64_t{-1});
}

int64_t assay_lazy_reduce(assay_lazy_graph* g, const char* op, int64_t a, const int* dims, int ndims, int keepdim,
                          const char* site) {
  return guarded(
      [&] {
        const LazyTensor x = at(g, a);
        const Dims d = dims_of(dims, ndims);
        const Site s = site_of(g, site);
        const std::string_view o = text(op);
        if (o == "sum") return id_of(g, sum(x, d, keepdim != 0, s));
        if (o == "mean") return id_of(g, mean(x, d, keepdim != 0, s));
        if (o == "max") return id_of(g, max(x, d, keepdim != 0, s));
        throw std::invalid_argument("unknown reduction '" + std::string(o) + "'");
      },
      int64_t{-1});
}

int64_t assay_lazy_softmax(assay_lazy_graph* g, const char* op, int64_t a, int dim, const char* site) {
  return guarded(
      [&] {
        const std::string_view o = text(op);
        if (o == "softmax") return id_of(g, softmax(at(g, a), dim, site_of(g, site)));
        if (o == "log_softmax") return id_of(g, log_softmax(at(g, a), dim, site_of(g, site)));
        throw std::invalid_argument("unknown op '" + std::string(o) + "'");
      },
      int64_t{-1});
}

int64_t assay_lazy_layer_norm(assay_lazy_graph* g, int64_t a, const int64_t* normalized_shape, int rank,
                              int64_t weight, int64_t bias, double eps, const char* site) {
  return guarded(
      [&] {
        std::optional<LazyTensor> w, b;
        if (weight >= 0) w = at(g, weight);
        if (bias >= 0) b = at(g, bias);
        return id_of(g, layer_norm(at(g, a), shape_of(normalized_shape, rank), w, b, eps, site_of(g, site)));
      },
      int64_t{-1});
}

int64_t assay_lazy_reshape(assay_lazy_graph* g, int64_t a, const int64_t* shape, int rank, const char* site) {
  return guarded([&] { return id_of(g, reshape(at(g, a), shape_of(shape, rank), site_of(g, site))); }, int64_t{-1});
}

int64_t assay_lazy_permute(assay_lazy_graph* g, int64_t a, const int* perm, int rank, const char* site) {
  return guarded([&] { return id_of(g, permute(at(g, a), dims_of(perm, rank), site_of(g, site))); }, int64_t{-1});
}

int64_t assay_lazy_slice(assay_lazy_graph* g, int64_t a, int dim, int64_t start, int64_t end, int64_t step,
                         const char* site) {
  return guarded([&] { return id_of(g, slice(at(g, a), dim, start, end, step, site_of(g, site))); }, int64_t{-1});
}

int64_t assay_lazy_expand(assay_lazy_graph* g, int64_t a, const int64_t* shape, int rank, const char* site) {
  return guarded([&] { return id_of(g, expand(at(g, a), shape_of(shape, rank), site_of(g, site))); }, int64_t{-1});
}

int assay_lazy_shape(const assay_lazy_graph* g, int64_t node, int64_t* shape) {
  return guarded(
      [&] {
        const Shape& s = at(g, node).shape();
        output_buffer(shape, s.rank > 0);
        for (int i = 0; i < s.rank; ++i) shape[i] = s[i];
        return s.rank;
      },
      -1);
}

int assay_lazy_dtype(const assay_lazy_graph* g, int64_t node) {
  return guarded([&] { return code_of(at(g, node).dtype()); }, -1);
}

const char* assay_lazy_op(const assay_lazy_graph* g, int64_t node) {
  return guarded([&] { return op_name(at(g, node).node().op).data(); },
                 static_cast<const char*>(nullptr));
}

int assay_lazy_inputs(const assay_lazy_graph* g, int64_t node, int64_t* inputs) {
  return guarded(
      [&] {
        const Node& n = at(g, node).node();
        output_buffer(inputs, n.n_inputs > 0);
        for (int i = 0; i < n.n_inputs; ++i) inputs[i] = id_of(g, n.inputs[static_cast<std::size_t>(i)]);
        return static_cast<int>(n.n_inputs);
      },
      -1);
}

int assay_lazy_materialize(assay_lazy_graph* g, int64_t node, float* out, int64_t numel) {
  return guarded(
      [&] {
        const LazyTensor t = at(g, node);
        if (numel != t.shape().numel())
          throw std::invalid_argument("room for " + std::to_string(numel) + " values; the node has " +
                                      std::to_string(t.shape().numel()));
        output_buffer(out, numel > 0);
        HostValue v;
        try {
          v = execute(t);
        } catch (const std::bad_alloc&) {
          throw std::runtime_error("materialising node " + std::to_string(node) + " (" +
                                   std::string(op_name(t.node().op)) + ", " + to_string(t.shape()) + ", recorded at " +
                                   to_string(t.node().site) + "): out of host memory");
        }
        std::memcpy(out, v.values.data(), v.values.size() * sizeof(float));
        // What the run evaluated: the node and everything it depends on.
        std::vector<char> needed(static_cast<std::size_t>(t.id) + 1, 0);
        needed[static_cast<std::size_t>(t.id)] = 1;
        for (std::int64_t i = t.id; i >= 0; --i) {
          if (!needed[static_cast<std::size_t>(i)]) continue;
          ++g->evaluated;
          const Node& n = g->graph.node(static_cast<NodeId>(i));
          for (int j = 0; j < n.n_inputs; ++j) needed[n.inputs[static_cast<std::size_t>(j)]] = 1;
        }
        ++g->executions;
        return 0;
      },
      -1);
}

int64_t assay_lazy_executions(const assay_lazy_graph* g) {
  return count_of(g, [](const assay_lazy_graph& l) { return l.executions; });
}
int64_t assay_lazy_evaluated_nodes(const assay_lazy_graph* g) {
  return count_of(g, [](const assay_lazy_graph& l) { return l.evaluated; });
}

int64_t assay_lazy_dump(const assay_lazy_graph* g, int64_t node, char* buf, int64_t size) {
  return guarded(
      [&] {
        const LazyTensor t = at(g, node);
        const std::string s = dump_with_passes(Program{g->graph, {t.id}}, "recorded");
        if (buf && size > 0) {
          const std::size_t n = std::min<std::size_t>(s.size(), static_cast<std::size_t>(size - 1));
          std::memcpy(buf, s.data(), n);
          buf[n] = '\0';
        }
        return static_cast<int64_t>(s.size());
      },
      int64_t{-1});
}

}  // extern "C"

int assay_lazy_set_executor(const char* name) {
  return guarded(
      [&] {
        const std::string n = name ? name : "";
        if (n != "cpu" && n != "gpu" && n != "auto")
          throw std::invalid_argument("executor '" + n + "' (cpu, gpu or auto)");
#ifdef ASSAY_LAZY_GPU
        if (n == "gpu")
          if (const std::string why = gpu_unavailable(); !why.empty())
            throw std::runtime_error("the gpu executor cannot run here: " + why);
#else
        if (n == "gpu") throw std::runtime_error("this libassay_lazy was built without CUDA: only the cpu executor exists");
#endif
        executor_choice = n;
        return 0;
      },
      -1);
}

const char* assay_lazy_executor(void) {
  const std::lock_guard lock(api_mutex);
  return use_gpu() ? "gpu" : "cpu";
}

int assay_lazy_gpu_stats(int64_t* out, int n) {
  return guarded(
      [&]() -> int {  // -> int: in a CPU-only build the body only throws
#ifdef ASSAY_LAZY_GPU
        if (!use_gpu()) throw std::runtime_error("the gpu executor is not in use");
        output_buffer(out, n > 0);
        const GpuStats st = gpu_executor().stats();
        const std::int64_t v[] = {st.runs, st.graph_replays, st.captures, st.generated_launches, st.fixed_launches,
                                  st.assay_gemm, st.assay_attention, st.cublas, st.cublaslt, st.kernels_compiled,
                                  st.l2_prefetch_bytes};
        const int count = static_cast<int>(sizeof v / sizeof v[0]);
        for (int i = 0; i < n && i < count; ++i) out[i] = v[i];
        return count;
#else
        (void)out;
        (void)n;
        throw std::runtime_error("this libassay_lazy was built without CUDA");
#endif
      },
      -1);
}
