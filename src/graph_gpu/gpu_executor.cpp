// The GPU executor (gpu_executor.hpp): lowering a planned program to steps, its buffers, and
// running the steps directly or from a captured CUDA graph.
#include "graph_gpu/gpu_executor.hpp"

#include <algorithm>
#include <cstdlib>
#include <cstring>
#include <map>
#include <unordered_map>

#include "core/dtype.hpp"
#include "core/error.hpp"
#include "core/ids.hpp"
#include "gpu/cublas_api.hpp"
#include "gpu/cuda_check.hpp"
#include "graph/codegen_cuda.hpp"
#include "graph/layout.hpp"
#include "graph/pipeline.hpp"
#include "graph/prefetch_slab.hpp"
#include "graph_gpu/device_kernels.hpp"
#include "graph_gpu/kernel_cache.hpp"
#include "kernels/attention/flash_attention.hpp"
#include "kernels/gemm/gemm_kernels.hpp"

namespace assay::graph {

namespace {

constexpr std::size_t kWorkspaceBytes = 32u << 20;

cudaDataType_t cuda_type(ElemType t) {
  switch (t) {
    case ElemType::f32: return CUDA_R_32F;
    case ElemType::f16: return CUDA_R_16F;
    case ElemType::bf16: return CUDA_R_16BF;
    default: throw InternalError("gpu executor: no matmul in " + std::string(elem_name(t)));
  }
}

// A matrix operand for cuBLAS: the trailing two dims [r, c] of a layout, row-major (ld = row
// stride) or transposed (stored column-major, ld = column stride), with one stride between the
// matrices of the flattened batch (0: broadcast).
struct Operand {
  int id = -1;  // layout index
  bool trans = false;
  std::int64_t ld = 0, batch_stride = 0;
};

// Whether dims [0, n) of `sizes`, read with `strides`, flatten to one index with one stride
// (`unit`; 0 when all are broadcast or all size 1): each dim's stride is the next inner one's
// times that dim's extent.
bool one_progression(const Shape& sizes, const std::array<std::int64_t, kMaxRank>& strides, int n, std::int64_t& unit) {
  std::int64_t first = -1, span = 1;
  for (int d = n - 1; d >= 0; --d) {
    if (sizes[d] == 1) continue;
    const std::int64_t st = strides[static_cast<std::size_t>(d)];
    if (first < 0) first = st;
    if (st != first * span) return false;
    span *= sizes[d];
  }
  unit = first < 0 ? 0 : first;
  return true;
}

bool describe_matrix(const Layout& l, const Shape& batch, Operand& op) {
  const int r = l.shape.rank;
  const std::int64_t rows = l.shape[r - 2], cols = l.shape[r - 1];
  const std::int64_t sr = l.strides[static_cast<std::size_t>(r - 2)], sc = l.strides[static_cast<std::size_t>(r - 1)];
  if ((cols == 1 || sc == 1) && (rows == 1 || sr >= cols)) {
    op.trans = false;
    op.ld = rows == 1 ? cols : sr;
  } else if ((rows == 1 || sr == 1) && (cols == 1 || sc >= rows)) {
    op.trans = true;
    op.ld = cols == 1 ? rows : sc;
  } else {
    return false;
  }
  if (op.ld < 1) op.ld = 1;
  // The batch dims, read with broadcast strides, must be one arithmetic progression (or all 0).
  Layout bl = l;
  bl.shape.rank = r - 2;
  const auto bs = broadcast_read_strides(bl, batch);
  return one_progression(batch, bs, batch.rank, op.batch_stride);
}

// A [..., s, d] tensor as the flash kernel's strided heads: rows `row` apart with d contiguous,
// the last batch dim the heads (heads_per_batch, `head` apart), the others one progression
// (`batch` apart). False when the layout is not of that form or not 16-byte aligned.
bool head_strides(const Layout& l, std::size_t elem, kernels::HeadStrides& h, int& heads_per_batch) {
  const int r = l.shape.rank;
  if (r < 2 || (l.shape[r - 1] > 1 && l.strides[static_cast<std::size_t>(r - 1)] != 1)) return false;
  h = kernels::HeadStrides{};
  h.row = l.strides[static_cast<std::size_t>(r - 2)];
  heads_per_batch = 1;
  if (r >= 3) {
    heads_per_batch = static_cast<int>(l.shape[r - 3]);
    h.head = l.strides[static_cast<std::size_t>(r - 3)];
    std::int64_t batch = 0;
    if (!one_progression(l.shape, l.strides, r - 3, batch)) return false;
    h.batch = batch;
  }
  if (h.row == 0) h.row = l.shape[r - 1];  // a single row: any pitch; 0 would mean dense
  const std::int64_t v = static_cast<std::int64_t>(16 / elem);
  return l.offset % v == 0 && h.row % v == 0 && h.head % v == 0 && h.batch % v == 0;
}

enum class StepKind { fill, randn, fused, copy, gemm, lt, flash, composite };

struct LtCall;

struct Step {
  StepKind kind{};
  int dst = -1;            // layout index written
  int src = -1;            // copy: layout index read
  NodeId node = kNoNode;   // the graph node it computes
  int group = -1;          // fused: the fusion group
  GeneratedKernel kernel;  // fused
  CUfunction fn = nullptr;
  std::vector<int> args;   // fused: the inputs' layout indices
  // fused: an L2 prefetch of the next step's operand (layout index; which lines of it)
  int prefetch = -1;
  PrefetchSlab pf;
  // gemm / lt
  Operand a, b;
  std::int64_t m = 0, n = 0, k = 0, batch = 1;
  ElemType dtype = ElemType::f32, out_dtype = ElemType::f32;
  bool use_assay = false;
  kernels::GemmPlan gemm_plan;
  std::shared_ptr<LtCall> lt;
  int bias = -1;
  // attention
  kernels::FlashConfig flash;
  kernels::FlashAttentionArgs fa;  // flash: everything but the pointers
  int q = -1, kk = -1, v = -1, scores = -1, probs = -1;
  std::int64_t L = 0, S = 0, E = 0, Ev = 0, batches = 0;
  float scale = 0;
  bool causal = false;
  std::string what;  // describe()'s text
};

// One cuBLASLt matmul with a bias (and activation) epilogue, in the column-major form
// Dᵀ(n x m) = Bᵀ(n x k) · Aᵀ(k x m), so that the bias runs along Dᵀ's rows as the epilogue wants.
struct LtCall {
  cublasLtMatmulDesc_t desc = nullptr;
  cublasLtMatrixLayout_t la = nullptr, lb = nullptr, lc = nullptr;
  cublasLtMatmulHeuristicResult_t algo{};
  ~LtCall() {
    const auto& a = cublas::lt_api();
    if (la) a.layout_destroy(la);
    if (lb) a.layout_destroy(lb);
    if (lc) a.layout_destroy(lc);
    if (desc) a.desc_destroy(desc);
  }
};

std::size_t esize(ElemType t) { return elem_size(t); }
gpu::Elem elem(ElemType t) { return static_cast<gpu::Elem>(static_cast<std::uint8_t>(t)); }
static_assert(static_cast<int>(ElemType::boolean) == static_cast<int>(gpu::Elem::boolean));

std::string structure_key(const Program& p, const std::vector<const std::vector<float>*>& external) {
  std::string s;
  const auto put = [&](const void* d, std::size_t n) { s.append(static_cast<const char*>(d), n); };
  for (const Node& n : p.graph.nodes()) {
    put(&n.op, sizeof n.op);
    put(&n.n_inputs, sizeof n.n_inputs);
    put(&n.dtype, sizeof n.dtype);
    put(n.inputs.data(), sizeof n.inputs);
    put(&n.shape.rank, sizeof n.shape.rank);
    put(n.shape.dims.data(), sizeof(std::int64_t) * static_cast<std::size_t>(n.shape.rank));
    put(n.attrs.ints.data(), sizeof n.attrs.ints);
    put(&n.attrs.dims, sizeof n.attrs.dims);
    put(&n.attrs.value, sizeof n.attrs.value);
    put(&n.attrs.seed, sizeof n.attrs.seed);
    put(&n.attrs.flags, sizeof n.attrs.flags);
    put(&n.attrs.to, sizeof n.attrs.to);
    int ext = -1;
    for (std::size_t k = 0; k < external.size(); ++k)
      if (n.data && n.data.get() == external[k]) ext = static_cast<int>(k);
    put(&ext, sizeof ext);
  }
  s += "|";
  for (NodeId o : p.outputs) put(&o, sizeof o);
  return s;
}

std::vector<unsigned char> to_bytes(ElemType t, const std::vector<float>& v) {
  std::vector<unsigned char> b(v.size() * esize(t));
  for (std::size_t i = 0; i < v.size(); ++i) {
    switch (t) {
      case ElemType::f32: std::memcpy(&b[i * 4], &v[i], 4); break;
      case ElemType::f16: {
        const std::uint16_t h = float_to_f16_bits(v[i]);
        std::memcpy(&b[i * 2], &h, 2);
        break;
      }
      case ElemType::bf16: {
        const std::uint16_t h = float_to_bf16_bits(v[i]);
        std::memcpy(&b[i * 2], &h, 2);
        break;
      }
      case ElemType::i64: {
        const long long x = static_cast<long long>(v[i]);
        std::memcpy(&b[i * 8], &x, 8);
        break;
      }
      case ElemType::boolean: b[i] = v[i] != 0.0f; break;
    }
  }
  return b;
}

}  // namespace

class GpuPlan {
 public:
  ~GpuPlan() {
    for (auto& [key, exec] : graphs) cudaGraphExecDestroy(exec);
    for (void* p : allocations) cudaFree(p);
    if (capture_stream) cudaStreamDestroy(capture_stream);
  }
  PipelineResult pr;
  std::vector<Layout> L;        // per layout index: graph nodes, then virtual buffers
  std::vector<ElemType> T;      // element type per layout index
  std::vector<char*> own;       // storage per layout index (nullptr: none, or bound at enqueue)
  std::vector<Step> steps;
  std::vector<int> external_node;  // per external input: its node (-1 when the passes removed it)
  std::vector<int> out_index;      // per program output: the layout index holding it, contiguous
  std::vector<std::shared_ptr<const std::vector<float>>> uploaded;  // per node: the constant values on the device
  std::vector<void*> allocations;
  std::map<std::vector<const void*>, cudaGraphExec_t> graphs;  // by the bound pointers
  std::vector<const void*> key;                                  // enqueue's lookup key, reused
  cudaStream_t capture_stream = nullptr;
  bool capture_failed = false;

  int add_virtual(Shape shape, ElemType t) {  // by value: callers pass shapes that live in L
    const int id = static_cast<int>(L.size());
    L.push_back(contiguous_layout(static_cast<NodeId>(id), shape));
    T.push_back(t);
    own.push_back(static_cast<char*>(alloc(static_cast<std::size_t>(shape.numel()) * esize(t))));
    return id;
  }
  void* alloc(std::size_t bytes) {
    void* p = nullptr;
    ASSAY_CUDA(cudaMalloc(&p, bytes < 256 ? 256 : bytes));
    allocations.push_back(p);
    return p;
  }
};

struct GpuExecutor::Impl {
  bool use_graphs = true;
  bool dependent_launches = false;
  int sm_count = 0, cc = 0;
  cudaStream_t stream = nullptr;
  cublasHandle_t blas = nullptr;
  cublasLtHandle_t lt = nullptr;
  void* workspace = nullptr;
  gpu::KernelCache kernels;
  // Prepared programs by structure key, the most recently used last; at most kMaxPlans are kept
  // (each holds device buffers), the least recently used is freed first.
  static constexpr std::size_t kMaxPlans = 32;
  std::unordered_map<std::uint64_t, std::unique_ptr<GpuPlan>> plans;
  std::vector<std::uint64_t> recent;
  void touch(std::uint64_t key) {
    recent.erase(std::remove(recent.begin(), recent.end(), key), recent.end());
    recent.push_back(key);
  }
  GpuStats stats;
  std::int64_t prefetch_window = 0;  // bytes DRAM moves while a short generated kernel runs

  // DRAM's peak bandwidth times 2 us, about what a generated kernel issued after a GEMM takes
  // beyond its own traffic (launch, ramp, drain; docs/lazy.md, "L2 prefetch across steps").
  // ASSAY_LAZY_L2_PREFETCH_MB sets another window; 0 turns the prefetch off.
  static std::int64_t prefetch_window_bytes(int dev) {
    const char* mb = std::getenv("ASSAY_LAZY_L2_PREFETCH_MB");
    if (mb && *mb) {
      char* end = nullptr;
      const double v = std::strtod(mb, &end);
      if (*end || !(v >= 0) || v > 1024)
        throw InputError("ASSAY_LAZY_L2_PREFETCH_MB: '" + std::string(mb) + "' is not a number of MiB in [0, 1024]");
      return static_cast<std::int64_t>(v * 1048576.0);
    }
    int khz = 0, bits = 0;
    ASSAY_CUDA(cudaDeviceGetAttribute(&khz, cudaDevAttrMemoryClockRate, dev));
    ASSAY_CUDA(cudaDeviceGetAttribute(&bits, cudaDevAttrGlobalMemoryBusWidth, dev));
    const double bytes_per_s = 2.0 * khz * 1e3 * bits / 8.0;  // double data rate
    return static_cast<std::int64_t>(bytes_per_s * 2e-6);
  }

  // Bytes from a layout's first element to one past its last (its span).
  static std::int64_t span_bytes(const GpuPlan& p, int id) {
    return p.L[static_cast<std::size_t>(id)].span() * static_cast<std::int64_t>(esize(p.T[static_cast<std::size_t>(id)]));
  }

  // A generated kernel after a GEMM is short and mostly latency: DRAM idles while it runs. When
  // the next step is a GEMM, the kernel prefetches into L2 what DRAM can bring in that time, less
  // its own traffic, of that GEMM's larger operand (a weight, at small batch the GEMM's cost):
  // its leading contraction slab (graph/prefetch_slab.hpp). Not an operand this kernel writes,
  // nor one the step before it writes (that step may still drain while the prefetch is issued).
  // Only with programmatic dependent launches (sm_90+), the configuration measured: the prefetch
  // then starts while the previous kernel drains.
  void plan_prefetches(GpuPlan& p) const {
    if (!dependent_launches) return;
    const auto base_of = [&](int id) { return p.L[static_cast<std::size_t>(id)].base; };
    for (std::size_t i = 0; i + 1 < p.steps.size(); ++i) {
      Step& s = p.steps[i];
      const Step& next = p.steps[i + 1];
      if (s.kind != StepKind::fused || (next.kind != StepKind::gemm && next.kind != StepKind::lt) || next.batch != 1) continue;
      std::int64_t own = span_bytes(p, s.dst);
      for (int a : s.args) own += span_bytes(p, a);
      const std::int64_t budget = prefetch_window - own;
      if (budget < (std::int64_t{1} << 20)) continue;
      std::int64_t best_bytes = 0;
      for (int side = 0; side < 2; ++side) {
        const int id = side == 0 ? next.a.id : next.b.id;
        if (id < 0 || base_of(id) == base_of(s.dst) || (i > 0 && p.steps[i - 1].dst >= 0 && base_of(id) == base_of(p.steps[i - 1].dst)))
          continue;
        const Layout& l = p.L[static_cast<std::size_t>(id)];
        const std::int64_t es = static_cast<std::int64_t>(esize(p.T[static_cast<std::size_t>(id)]));
        const PrefetchSlab slab = leading_contraction_slab(l, l.shape.rank - (side == 0 ? 1 : 2), es, budget);
        if (slab.rows == 0 || l.shape.numel() * es <= best_bytes) continue;
        best_bytes = l.shape.numel() * es;
        s.prefetch = id;
        s.pf = slab;
      }
      if (s.prefetch >= 0)
        s.what += ", prefetches " + std::to_string(s.pf.bytes() >> 10) + " KiB of the next step's operand into L2";
    }
  }

  Impl() {
    int dev = 0, major = 0, minor = 0;
    ASSAY_CUDA(cudaGetDevice(&dev));
    ASSAY_CUDA(cudaDeviceGetAttribute(&sm_count, cudaDevAttrMultiProcessorCount, dev));
    ASSAY_CUDA(cudaDeviceGetAttribute(&major, cudaDevAttrComputeCapabilityMajor, dev));
    ASSAY_CUDA(cudaDeviceGetAttribute(&minor, cudaDevAttrComputeCapabilityMinor, dev));
    cc = major * 10 + minor;
    // Programmatic dependent launches of the generated kernels (sm_90+); ASSAY_LAZY_PDL=0 turns
    // them off (the measurement of what they gain).
    const char* pdl = std::getenv("ASSAY_LAZY_PDL");
    dependent_launches = cc >= 90 && !(pdl && std::string(pdl) == "0");
    prefetch_window = prefetch_window_bytes(dev);
    ASSAY_CUDA(cudaStreamCreateWithFlags(&stream, cudaStreamNonBlocking));
    const auto& b = cublas::api();
    if (!b.error.empty()) throw InternalError("gpu executor: " + b.error);
    cublas::check(b.create(&blas), "cublasCreate");
    cublas::check(b.set_math_mode(blas, cublas::strict_math()), "cublasSetMathMode");
    ASSAY_CUDA(cudaMalloc(&workspace, kWorkspaceBytes));
    cublas::check(b.set_workspace(blas, workspace, kWorkspaceBytes), "cublasSetWorkspace");
  }
  ~Impl() {
    plans.clear();
    if (lt) cublas::lt_api().destroy(lt);
    if (blas) cublas::api().destroy(blas);
    if (workspace) cudaFree(workspace);
    if (stream) cudaStreamDestroy(stream);
  }

  char* addr(const GpuPlan& p, const std::vector<char*>& base, int id) const {
    const Layout& l = p.L[static_cast<std::size_t>(id)];
    return base[l.base] + l.offset * static_cast<std::int64_t>(esize(p.T[static_cast<std::size_t>(id)]));
  }

  // A copy step: `src`'s elements (any strides) written densely into `dst`.
  static void add_copy(GpuPlan& p, int src, int dst, const char* why) {
    Step s;
    s.kind = StepKind::copy;
    s.src = src;
    s.dst = dst;
    s.what = why;
    p.steps.push_back(std::move(s));
  }

  // A layout index holding `id`'s values contiguously (a copy step first when they are not, or,
  // with `aligned`, when they do not start on 16 bytes as the attention kernel's loads need).
  int contiguous(GpuPlan& p, int id, bool aligned = false) {
    const Layout& l = p.L[static_cast<std::size_t>(id)];
    if (l.contiguous() && (!aligned || (l.offset * static_cast<std::int64_t>(esize(p.T[static_cast<std::size_t>(id)]))) % 16 == 0))
      return id;
    const int v = p.add_virtual(p.L[static_cast<std::size_t>(id)].shape, p.T[static_cast<std::size_t>(id)]);
    add_copy(p, id, v, "copy (materialise a strided or unaligned view)");
    return v;
  }

  // A matrix operand of `id` for output batch `batch`: a copy when cuBLAS cannot read it.
  Operand operand(GpuPlan& p, int id, const Shape& batch) {
    Operand op;
    op.id = id;
    if (describe_matrix(p.L[static_cast<std::size_t>(id)], batch, op)) return op;
    // Copy the operand broadcast to the full batch, contiguous.
    Layout src = p.L[static_cast<std::size_t>(id)];
    Layout bl = src;
    bl.shape.rank -= 2;
    const auto bs = broadcast_read_strides(bl, batch);
    Layout full;
    full.base = src.base;
    full.offset = src.offset;
    full.shape = batch;
    for (int d = 0; d < batch.rank; ++d) full.strides[static_cast<std::size_t>(d)] = bs[static_cast<std::size_t>(d)];
    full.shape.push_back(src.shape[src.shape.rank - 2]);
    full.strides[static_cast<std::size_t>(full.shape.rank - 1)] = src.strides[static_cast<std::size_t>(src.shape.rank - 2)];
    full.shape.push_back(src.shape[src.shape.rank - 1]);
    full.strides[static_cast<std::size_t>(full.shape.rank - 1)] = src.strides[static_cast<std::size_t>(src.shape.rank - 1)];
    const int view = static_cast<int>(p.L.size());
    p.L.push_back(full);
    p.T.push_back(p.T[static_cast<std::size_t>(id)]);
    p.own.push_back(nullptr);
    const int v = contiguous(p, view);
    op = Operand{};
    op.id = v;
    if (!describe_matrix(p.L[static_cast<std::size_t>(v)], batch, op)) throw InternalError("gpu executor: operand copy");
    return op;
  }

  void lower_matmul(GpuPlan& p, NodeId i, const Node& n, Operand a, Operand b, std::int64_t m, std::int64_t nn,
                    std::int64_t k, std::int64_t batch, int bias, std::uint8_t act) {
    Step s;
    s.node = i;
    s.dst = static_cast<int>(i);
    s.a = a;
    s.b = b;
    s.m = m;
    s.n = nn;
    s.k = k;
    s.batch = batch;
    s.dtype = p.T[static_cast<std::size_t>(a.id)];
    s.out_dtype = n.dtype;
    // Fold the batch into the rows when B is shared and A's matrices are back to back.
    if (s.batch > 1 && b.batch_stride == 0 && !a.trans && a.ld == k && a.batch_stride == m * k) {
      s.m *= s.batch;
      s.batch = 1;
    }
    if (bias >= 0 || act) {
      if (s.batch != 1) throw InternalError("gpu executor: a batched linear epilogue");
      s.kind = StepKind::lt;
      s.bias = bias;
      s.lt = make_lt(s, act);
      s.what = std::string("cuBLASLt matmul ") + std::to_string(s.m) + "x" + std::to_string(s.n) + "x" + std::to_string(s.k) +
               " epilogue " + (act == kRelu ? "RELU_BIAS" : act ? "GELU_BIAS" : "BIAS");
      p.steps.push_back(std::move(s));
      return;
    }
    s.kind = StepKind::gemm;
    if ((s.dtype == ElemType::f16 || s.dtype == ElemType::bf16) && s.batch == 1 && !a.trans && !b.trans && a.ld == k &&
        b.ld == nn && s.m <= INT32_MAX && nn <= INT32_MAX && k <= INT32_MAX) {
      kernels::GemmCall call;
      call.dtype = s.dtype == ElemType::f16 ? kernels::GemmDtype::f16 : kernels::GemmDtype::bf16;
      call.m = static_cast<int>(s.m);
      call.n = static_cast<int>(nn);
      call.k = static_cast<int>(k);
      // Alignment as it will be: buffers are 256-byte aligned; only the layout offsets move them.
      const auto at = [&](int id) {
        return reinterpret_cast<void*>(256 + p.L[static_cast<std::size_t>(id)].offset * static_cast<std::int64_t>(esize(s.dtype)));
      };
      call.a = at(a.id);
      call.b = at(b.id);
      call.c = reinterpret_cast<void*>(256);
      s.gemm_plan = kernels::plan_gemm(call, "auto");
      s.use_assay = s.gemm_plan.kernel != kernels::GemmKernel::none;
    }
    s.what = (s.use_assay ? "assay GEMM " + s.gemm_plan.name + " " : std::string("cuBLAS gemm ")) + std::to_string(s.m) + "x" +
             std::to_string(s.n) + "x" + std::to_string(s.k) + (s.batch > 1 ? " batch " + std::to_string(s.batch) : "") +
             (a.trans ? " A^T" : "") + (b.trans ? " B^T" : "");
    p.steps.push_back(std::move(s));
  }

  std::shared_ptr<LtCall> make_lt(const Step& s, std::uint8_t act) {
    const auto& a = cublas::lt_api();
    if (!a.error.empty()) throw InternalError("gpu executor: " + a.error);
    if (!lt) cublas::check(a.create(&lt), "cublasLtCreate");
    auto c = std::make_shared<LtCall>();
    cublas::check(a.desc_create(&c->desc, CUBLAS_COMPUTE_32F, CUDA_R_32F), "cublasLtMatmulDescCreate");
    const cublasLtEpilogue_t epi = act == kRelu ? CUBLASLT_EPILOGUE_RELU_BIAS : act ? CUBLASLT_EPILOGUE_GELU_BIAS : CUBLASLT_EPILOGUE_BIAS;
    cublas::check(a.desc_set(c->desc, CUBLASLT_MATMUL_DESC_EPILOGUE, &epi, sizeof epi), "epilogue");
    const cublasOperation_t opa = s.b.trans ? CUBLAS_OP_T : CUBLAS_OP_N, opb = s.a.trans ? CUBLAS_OP_T : CUBLAS_OP_N;
    cublas::check(a.desc_set(c->desc, CUBLASLT_MATMUL_DESC_TRANSA, &opa, sizeof opa), "transa");
    cublas::check(a.desc_set(c->desc, CUBLASLT_MATMUL_DESC_TRANSB, &opb, sizeof opb), "transb");
    const auto t = cuda_type(s.dtype);
    // Lt's A is our B (n x k after op), its B our A (k x m after op), D is n x m.
    cublas::check(s.b.trans ? a.layout_create(&c->la, t, static_cast<std::uint64_t>(s.k), static_cast<std::uint64_t>(s.n), s.b.ld)
                            : a.layout_create(&c->la, t, static_cast<std::uint64_t>(s.n), static_cast<std::uint64_t>(s.k), s.b.ld),
                  "layout A");
    cublas::check(s.a.trans ? a.layout_create(&c->lb, t, static_cast<std::uint64_t>(s.m), static_cast<std::uint64_t>(s.k), s.a.ld)
                            : a.layout_create(&c->lb, t, static_cast<std::uint64_t>(s.k), static_cast<std::uint64_t>(s.m), s.a.ld),
                  "layout B");
    cublas::check(a.layout_create(&c->lc, cuda_type(s.out_dtype), static_cast<std::uint64_t>(s.n), static_cast<std::uint64_t>(s.m), s.n),
                  "layout D");
    int found = 0;
    cublas::check(cublas::lt_first_algorithm(lt, c->desc, c->la, c->lb, c->lc, kWorkspaceBytes, c->algo, found),
                  "cublasLtMatmulAlgoGetHeuristic");
    if (found == 0) throw InternalError("gpu executor: cuBLASLt found no algorithm for " + s.what);
    return c;
  }

  void lower_attention(GpuPlan& p, NodeId i, const Node& n) {
    const Node &q = p.pr.program.graph.node(n.inputs[0]), &k = p.pr.program.graph.node(n.inputs[1]),
               &v = p.pr.program.graph.node(n.inputs[2]);
    Step s;
    s.node = i;
    s.dst = static_cast<int>(i);
    const int r = q.shape.rank;
    s.L = q.shape[r - 2];
    s.E = q.shape[r - 1];
    s.S = k.shape[r - 2];
    s.Ev = v.shape[r - 1];
    s.batches = q.shape.outer(2);
    s.scale = static_cast<float>(n.attrs.value);
    s.causal = n.attrs.flags & kCausal;
    s.dtype = n.dtype;
    const bool sixteen = n.dtype == ElemType::f16 || n.dtype == ElemType::bf16;
    if (sixteen && s.L == s.S && s.E == s.Ev &&
        kernels::flash_attention_unsupported(n.dtype == ElemType::f16 ? DType::f16 : DType::bf16, s.batches, s.L, s.E,
                                             cc == 90)
            .empty()) {
      kernels::FlashAttentionArgs& args = s.fa;
      args.heads = static_cast<int>(s.batches);
      args.s = static_cast<int>(s.L);
      args.d = static_cast<int>(s.E);
      args.causal = s.causal;
      args.scale = s.scale;
      args.dtype = n.dtype == ElemType::f16 ? DType::f16 : DType::bf16;
      s.flash = kernels::choose_flash_config(args, sm_count, cc == 90, kernels::device_cluster_capacity(args));
      // The mma.sync kernel reads Q, K and V through their strides ([b, s, h, d] viewed as
      // [b, h, s, d] needs no copy); the wgmma kernel needs them dense, copied first.
      int nh[3] = {0, 0, 0};
      bool readable = true, dense = true;
      for (int t = 0; t < 3 && readable; ++t) {
        const Layout& l = p.L[n.inputs[static_cast<std::size_t>(t)]];
        readable = head_strides(l, esize(n.dtype), t == 0 ? args.q_strides : t == 1 ? args.k_strides : args.v_strides, nh[t]);
        dense = dense && l.contiguous();
      }
      readable = readable && nh[0] == nh[1] && nh[1] == nh[2];
      // At s <= 128 the two kernels differ by at most about 20% of a call of a few to some tens
      // of microseconds (docs/kernels/attention.md, short sequences), less than three copies of
      // Q, K and V cost: strided views stay on the mma.sync kernel there.
      // (d = 256 has no mma.sync instance: copied.)
      if (s.flash.wgmma && readable && !dense && s.L <= 128 && s.E != 256) s.flash = kernels::FlashConfig{false, 64};
      const bool strided = !s.flash.wgmma && readable;
      if (strided) {
        args.heads_per_batch = nh[0];
        s.q = static_cast<int>(n.inputs[0]);
        s.kk = static_cast<int>(n.inputs[1]);
        s.v = static_cast<int>(n.inputs[2]);
      } else {
        args.q_strides = args.k_strides = args.v_strides = kernels::HeadStrides{};
        s.q = contiguous(p, static_cast<int>(n.inputs[0]), true);
        s.kk = contiguous(p, static_cast<int>(n.inputs[1]), true);
        s.v = contiguous(p, static_cast<int>(n.inputs[2]), true);
      }
      s.kind = StepKind::flash;
      s.what = "assay flash attention " + s.flash.name(static_cast<int>(s.E)) + (strided ? " (strided Q, K, V)" : "");
    } else {
      s.q = contiguous(p, static_cast<int>(n.inputs[0]));
      s.kk = contiguous(p, static_cast<int>(n.inputs[1]));
      s.v = contiguous(p, static_cast<int>(n.inputs[2]));
      s.kind = StepKind::composite;
      Shape sc{s.batches, s.L, s.S};
      s.scores = p.add_virtual(sc, ElemType::f32);
      s.probs = p.add_virtual(sc, n.dtype);
      s.what = "attention as cuBLAS QK^T, softmax, cuBLAS PV (the flash kernel takes f16/bf16, L == S, d in {64, 128})";
    }
    p.steps.push_back(std::move(s));
  }

  void lower(GpuPlan& p, const std::vector<const std::vector<float>*>& external) {
    const Graph& g = p.pr.program.graph;
    const Layouts lay = plan_layouts(g);
    p.L = lay.of;
    for (const Node& n : g.nodes()) p.T.push_back(n.dtype);
    p.own.assign(g.size(), nullptr);
    p.uploaded.assign(g.size(), nullptr);
    char* arena = static_cast<char*>(p.alloc(static_cast<std::size_t>(p.pr.memory.planned_bytes)));
    p.external_node.assign(external.size(), -1);
    for (NodeId i = 0; i < g.size(); ++i) {
      const Node& n = g.node(i);
      const Slot& slot = p.pr.memory.slots[i];
      if (n.op == OpKind::constant) {
        int ext = -1;
        for (std::size_t k = 0; k < external.size(); ++k)
          if (n.data.get() == external[k]) ext = static_cast<int>(k);
        if (ext >= 0) p.external_node[static_cast<std::size_t>(ext)] = static_cast<int>(i);
        else p.own[i] = static_cast<char*>(p.alloc(static_cast<std::size_t>(n.shape.numel()) * esize(n.dtype)));
      } else if (lay.copied[i]) {
        p.own[i] = static_cast<char*>(p.alloc(static_cast<std::size_t>(n.shape.numel()) * esize(n.dtype)));
      } else if (slot.buffer >= 0) {
        p.own[i] = arena + slot.offset;
      }
    }
    for (NodeId i = 0; i < g.size(); ++i) {
      const Node& n = g.node(i);
      const int grp = p.pr.fusion.group_of[i];
      if (grp >= 0) {
        const FusionGroup& fg = p.pr.fusion.groups[static_cast<std::size_t>(grp)];
        if (fg.output() != i) continue;
        Step s;
        s.kind = StepKind::fused;
        s.node = i;
        s.dst = static_cast<int>(i);
        s.group = grp;
        std::vector<Layout> in;
        for (NodeId x : fg.inputs) {
          s.args.push_back(static_cast<int>(x));
          in.push_back(p.L[x]);
        }
        s.kernel = generate_kernel(g, fg, in);
        s.fn = kernels.get(s.kernel);
        s.what = s.kernel.name + " (" + std::to_string(fg.nodes.size()) + " nodes" + (s.kernel.reduction ? ", reduction)" : ")");
        p.steps.push_back(std::move(s));
        continue;
      }
      switch (op_class(n.op)) {
        case OpClass::factory:
          if (n.op != OpKind::constant) {
            Step s;
            s.kind = n.op == OpKind::randn ? StepKind::randn : StepKind::fill;
            s.node = i;
            s.dst = static_cast<int>(i);
            s.what = std::string(op_name(n.op)) + " kernel";
            p.steps.push_back(std::move(s));
          }
          break;
        case OpClass::view:
          if (lay.copied[i]) {
            add_copy(p, static_cast<int>(n.inputs[0]), static_cast<int>(i), "copy (reshape of a strided view)");
          }
          break;
        case OpClass::linalg:
          if (n.op == OpKind::attention) {
            lower_attention(p, i, n);
          } else if (n.op == OpKind::matmul) {
            const Shape& o = n.shape;
            Shape batch = o;
            batch.rank -= 2;
            const Operand a = operand(p, static_cast<int>(n.inputs[0]), batch), b = operand(p, static_cast<int>(n.inputs[1]), batch);
            lower_matmul(p, i, n, a, b, o[o.rank - 2], o[o.rank - 1], g.node(n.inputs[0]).shape[g.node(n.inputs[0]).shape.rank - 1],
                         batch.numel(), -1, 0);
          } else {  // linear: x [..., in] as rows x in, w [out, in] read transposed
            const Node& w = g.node(n.inputs[1]);
            const std::int64_t in_f = w.shape[1], out_f = w.shape[0];
            if (in_f == 0 && (n.attrs.flags & (kHasBias | kRelu | kGelu)))
              throw InternalError("gpu executor: a linear with 0 input features and a bias has no GPU step");
            // cuBLASLt's algorithms assume 16-byte aligned operands: offset views are copied.
            const int x = contiguous(p, static_cast<int>(n.inputs[0]), true);
            Layout xl = p.L[static_cast<std::size_t>(x)];
            xl.shape = Shape{xl.shape.outer(1), in_f};  // rows even where in_f = 0 (then zeros)
            xl.strides = contiguous_layout(xl.base, xl.shape).strides;
            const int xv = static_cast<int>(p.L.size());
            p.L.push_back(xl);
            p.T.push_back(n.dtype);
            p.own.push_back(nullptr);
            int w_id = static_cast<int>(n.inputs[1]);
            if ((p.L[static_cast<std::size_t>(w_id)].offset * static_cast<std::int64_t>(esize(n.dtype))) % 16 != 0) {
              const int dense = p.add_virtual(w.shape, n.dtype);  // an offset view: a dense copy first
              add_copy(p, w_id, dense, "copy (an unaligned weight)");
              w_id = dense;
            }
            Layout wt = p.L[static_cast<std::size_t>(w_id)];  // [in, out]: w's dims swapped
            std::swap(wt.shape[0], wt.shape[1]);
            std::swap(wt.strides[0], wt.strides[1]);
            const int wv = static_cast<int>(p.L.size());
            p.L.push_back(wt);
            p.T.push_back(n.dtype);
            p.own.push_back(nullptr);
            const Shape none;
            const Operand a = operand(p, xv, none), b = operand(p, wv, none);
            const int bias = (n.attrs.flags & kHasBias) ? contiguous(p, static_cast<int>(n.inputs[2]), true) : -1;
            const std::uint8_t act = n.attrs.flags & kRelu ? kRelu : (n.attrs.flags & kGelu) ? kGelu : 0;
            if (act == kGelu && !(n.attrs.flags & kTanh)) throw InternalError("gpu executor: linear with the erf gelu epilogue");
            lower_matmul(p, i, n, a, b, xl.shape[0], out_f, in_f, 1, bias, act);
          }
          break;
        default: throw InternalError("gpu executor: node " + std::to_string(i) + " (" + std::string(op_name(n.op)) + ") has no step");
      }
    }
    // Outputs: contiguous buffers of their own, written by a step (else a copy makes one).
    std::vector<char> taken(p.L.size(), 0);
    for (NodeId o : p.pr.program.outputs) {
      const Node& n = g.node(o);
      const bool own = p.L[o].base == o && p.L[o].contiguous() && n.op != OpKind::constant && !taken[o];
      int id = static_cast<int>(o);
      if (!own) {
        id = p.add_virtual(n.shape, n.dtype);
        add_copy(p, static_cast<int>(o), id, "copy (an output that is a view, a constant or repeated)");
        taken.resize(p.L.size(), 0);
      }
      taken[static_cast<std::size_t>(id)] = 1;
      p.out_index.push_back(id);
    }
    plan_prefetches(p);
  }

  // Equal bit for bit (-0.0 is not 0.0 here, and a NaN equals itself).
  static bool same_bits(const std::vector<float>* a, const std::vector<float>* b) {
    return a && b && a->size() == b->size() && std::memcmp(a->data(), b->data(), a->size() * sizeof(float)) == 0;
  }

  // Constants whose values the plan does not hold yet. The device is idle before (a run in
  // flight may read the old values) and after (the caller's streams do not wait for this copy).
  // Compared by value, not only by pointer: constant folding makes new data at every pipeline
  // run, and equal values need neither the copy nor the two synchronisations.
  void upload_constants(GpuPlan& p, const Program& prog) {
    const Graph& g = prog.graph;
    bool synced = false;
    for (NodeId i = 0; i < g.size(); ++i) {
      const Node& n = g.node(i);
      if (n.op != OpKind::constant || !p.own[i]) continue;
      if (p.uploaded[i] == n.data || same_bits(p.uploaded[i].get(), n.data.get())) {
        p.uploaded[i] = n.data;
        continue;
      }
      if (!synced) ASSAY_CUDA(cudaDeviceSynchronize());
      synced = true;
      const auto bytes = to_bytes(n.dtype, *n.data);
      ASSAY_CUDA(cudaMemcpy(p.own[i], bytes.data(), bytes.size(), cudaMemcpyHostToDevice));
      p.uploaded[i] = n.data;
      ++stats.constant_uploads;
    }
    if (synced) ASSAY_CUDA(cudaDeviceSynchronize());
  }

  void cublas_gemm(const std::vector<char*>& base, const GpuPlan& p, const Operand& a, const Operand& b, int dst,
                   ElemType in, ElemType out, std::int64_t m, std::int64_t n, std::int64_t k, std::int64_t batch,
                   std::int64_t out_stride, cudaStream_t st) {
    if (m == 0 || n == 0 || batch == 0) return;  // nothing to write (cuBLAS refuses ldc = 0)
    if (k == 0) {  // an empty sum: zeros
      ASSAY_CUDA(gpu::launch_fill(addr(p, base, dst), elem(out), m * n * batch, 0.0, st));
      return;
    }
    const auto& api = cublas::api();
    cublas::check(api.set_stream(blas, st), "cublasSetStream");
    const float one = 1.0f, zero = 0.0f;
    cublas::check(api.gemm_strided_batched_ex(blas, b.trans ? CUBLAS_OP_T : CUBLAS_OP_N, a.trans ? CUBLAS_OP_T : CUBLAS_OP_N,
                                              static_cast<int>(n), static_cast<int>(m), static_cast<int>(k), &one,
                                              addr(p, base, b.id), cuda_type(in), static_cast<int>(b.ld), b.batch_stride,
                                              addr(p, base, a.id), cuda_type(in), static_cast<int>(a.ld), a.batch_stride, &zero,
                                              addr(p, base, dst), cuda_type(out), static_cast<int>(n), out_stride,
                                              static_cast<int>(batch), CUBLAS_COMPUTE_32F, CUBLAS_GEMM_DEFAULT),
                  "cublasGemmStridedBatchedEx");
    ++stats.cublas;
  }

  void execute(GpuPlan& p, const std::vector<char*>& base, cudaStream_t st) {
    const Graph& g = p.pr.program.graph;
    for (Step& s : p.steps) {
      switch (s.kind) {
        case StepKind::fill: {
          const Node& n = g.node(s.node);
          const double v = n.op == OpKind::ones ? 1.0 : n.op == OpKind::full ? n.attrs.value : 0.0;
          ASSAY_CUDA(gpu::launch_fill(addr(p, base, s.dst), elem(n.dtype), n.shape.numel(), v, st));
          ++stats.fixed_launches;
          break;
        }
        case StepKind::randn: {
          const Node& n = g.node(s.node);
          ASSAY_CUDA(gpu::launch_randn(addr(p, base, s.dst), elem(n.dtype), n.shape.numel(), n.attrs.seed, st));
          ++stats.fixed_launches;
          break;
        }
        case StepKind::copy: {
          const Layout& src = p.L[static_cast<std::size_t>(s.src)];
          ASSAY_CUDA(gpu::launch_strided_copy(addr(p, base, s.src), addr(p, base, s.dst),
                                              static_cast<int>(esize(p.T[static_cast<std::size_t>(s.src)])), src.shape.rank,
                                              src.shape.dims.data(), src.strides.data(), st));
          ++stats.fixed_launches;
          break;
        }
        case StepKind::fused: {
          std::vector<void*> ptrs;
          for (int a : s.args) ptrs.push_back(addr(p, base, a));
          ptrs.push_back(addr(p, base, s.dst));
          ptrs.push_back(s.prefetch >= 0 ? addr(p, base, s.prefetch) : nullptr);
          unsigned long long pf[3] = {static_cast<unsigned long long>(s.pf.rows), static_cast<unsigned long long>(s.pf.row_lines),
                                      static_cast<unsigned long long>(s.pf.row_stride_bytes)};
          std::vector<void*> params;
          for (void*& x : ptrs) params.push_back(&x);
          for (unsigned long long& x : pf) params.push_back(&x);
          if (s.kernel.work > 0) stats.l2_prefetch_bytes += s.pf.bytes();
          gpu::launch_generated(s.fn, s.kernel, params.data(), sm_count, dependent_launches, st);
          ++stats.generated_launches;
          break;
        }
        case StepKind::gemm:
          if (s.use_assay && s.m > 0 && s.n > 0) {
            kernels::GemmCall call;
            call.dtype = s.dtype == ElemType::f16 ? kernels::GemmDtype::f16 : kernels::GemmDtype::bf16;
            call.m = static_cast<int>(s.m);
            call.n = static_cast<int>(s.n);
            call.k = static_cast<int>(s.k);
            call.a = addr(p, base, s.a.id);
            call.b = addr(p, base, s.b.id);
            call.c = addr(p, base, s.dst);
            ASSAY_CUDA(kernels::launch_gemm(s.gemm_plan, call, st));
            ++stats.assay_gemm;
          } else {
            cublas_gemm(base, p, s.a, s.b, s.dst, s.dtype, s.out_dtype, s.m, s.n, s.k, s.batch, s.m * s.n, st);
          }
          break;
        case StepKind::lt: {
          if (s.m == 0 || s.n == 0) break;
          const auto& a = cublas::lt_api();
          const void* bias = addr(p, base, s.bias);
          cublas::check(a.desc_set(s.lt->desc, CUBLASLT_MATMUL_DESC_BIAS_POINTER, &bias, sizeof bias), "bias pointer");
          const float one = 1.0f, zero = 0.0f;
          void* d = addr(p, base, s.dst);
          cublas::check(a.matmul(lt, s.lt->desc, &one, addr(p, base, s.b.id), s.lt->la, addr(p, base, s.a.id), s.lt->lb, &zero, d,
                                 s.lt->lc, d, s.lt->lc, &s.lt->algo.algo, workspace, kWorkspaceBytes, st),
                        "cublasLtMatmul");
          ++stats.cublaslt;
          break;
        }
        case StepKind::flash: {
          kernels::FlashAttentionArgs args = s.fa;
          args.q = addr(p, base, s.q);
          args.k = addr(p, base, s.kk);
          args.v = addr(p, base, s.v);
          args.o = addr(p, base, s.dst);
          ASSAY_CUDA(kernels::launch_flash_attention(args, s.flash, st));
          ++stats.assay_attention;
          break;
        }
        case StepKind::composite: {
          if (s.S == 0) {  // no keys: an empty sum of V rows, as torch's math path and the CPU executor give
            ASSAY_CUDA(gpu::launch_fill(addr(p, base, s.dst), elem(s.dtype), s.batches * s.L * s.Ev, 0.0, st));
            break;
          }
          // scores[L,S] = Q[L,E] · Kᵀ (K [S,E] read transposed), fp32 out
          Operand q{s.q, false, s.E, s.L * s.E}, kt{s.kk, true, s.E, s.S * s.E};
          cublas_gemm(base, p, q, kt, s.scores, s.dtype, ElemType::f32, s.L, s.S, s.E, s.batches, s.L * s.S, st);
          ASSAY_CUDA(gpu::launch_attention_softmax(reinterpret_cast<const float*>(addr(p, base, s.scores)), addr(p, base, s.probs),
                                                   elem(s.dtype), s.batches * s.L, s.L, s.S, s.scale, s.causal, st));
          ++stats.fixed_launches;
          Operand pr{s.probs, false, s.S, s.L * s.S}, vv{s.v, false, s.Ev, s.S * s.Ev};
          cublas_gemm(base, p, pr, vv, s.dst, s.dtype, s.dtype, s.L, s.Ev, s.S, s.batches, s.L * s.Ev, st);
          break;
        }
      }
    }
  }
};

GpuExecutor::GpuExecutor(bool use_cuda_graphs) : impl_(std::make_unique<Impl>()) { impl_->use_graphs = use_cuda_graphs; }
GpuExecutor::~GpuExecutor() = default;

GpuPlan& GpuExecutor::prepare(const Program& p, const std::vector<const std::vector<float>*>& external) {
  const std::vector<const void*> distinct(external.begin(), external.end());
  PipelineResult pr = run_pipeline(p, distinct);
  const std::uint64_t key = fnv1a64(structure_key(pr.program, external));
  auto it = impl_->plans.find(key);
  if (it != impl_->plans.end()) {
    ++impl_->stats.plan_hits;
    impl_->touch(key);
    impl_->upload_constants(*it->second, pr.program);
    return *it->second;
  }
  if (impl_->plans.size() >= Impl::kMaxPlans) {  // a plan handed out earlier may be freed here
    ASSAY_CUDA(cudaDeviceSynchronize());
    impl_->plans.erase(impl_->recent.front());
    impl_->recent.erase(impl_->recent.begin());
  }
  auto plan = std::make_unique<GpuPlan>();
  plan->pr = std::move(pr);
  impl_->lower(*plan, external);
  impl_->upload_constants(*plan, plan->pr.program);
  ++impl_->stats.plans;
  impl_->touch(key);
  return *impl_->plans.emplace(key, std::move(plan)).first->second;
}

void GpuExecutor::enqueue(GpuPlan& plan, cudaStream_t stream, const std::vector<const void*>& inputs,
                          const std::vector<void*>& outputs) {
  if (inputs.size() != plan.external_node.size())
    throw InternalError("gpu executor: " + std::to_string(inputs.size()) + " inputs given for " +
                        std::to_string(plan.external_node.size()) + " external constants");
  if (!outputs.empty() && outputs.size() != plan.out_index.size())
    throw InternalError("gpu executor: output pointers do not match the program's outputs");
  // The plan (vectorised generated kernels, GEMM plans built at its arena's alignment) assumes
  // every base at the arena's alignment, which cudaMalloc gives; an offset pointer would break it.
  for (std::size_t k = 0; k < inputs.size() + outputs.size(); ++k) {
    const void* ptr = k < inputs.size() ? inputs[k] : outputs[k - inputs.size()];
    if (reinterpret_cast<std::uintptr_t>(ptr) % kBufferAlignment != 0)
      throw InputError("gpu executor: " + std::string(k < inputs.size() ? "input " : "output ") +
                       std::to_string(k < inputs.size() ? k : k - inputs.size()) + " is not " +
                       std::to_string(kBufferAlignment) + "-byte aligned");
  }
  ++impl_->stats.runs;
  // The plan's buffers with the caller's bound in: needed only to record or run the steps, not
  // to replay (the timed path), which looks the graph up by the bound pointers alone.
  const auto bound = [&] {
    std::vector<char*> base = plan.own;
    for (std::size_t k = 0; k < inputs.size(); ++k)
      if (plan.external_node[k] >= 0)
        base[static_cast<std::size_t>(plan.external_node[k])] = const_cast<char*>(static_cast<const char*>(inputs[k]));
    for (std::size_t k = 0; k < outputs.size(); ++k) base[static_cast<std::size_t>(plan.out_index[k])] = static_cast<char*>(outputs[k]);
    return base;
  };
  const auto run_directly = [&] { impl_->execute(plan, bound(), stream); };
  if (!impl_->use_graphs || plan.capture_failed) return run_directly();
  std::vector<const void*>& key = plan.key;  // reused: no allocation per replay
  key.assign(inputs.begin(), inputs.end());
  key.insert(key.end(), outputs.begin(), outputs.end());
  auto it = plan.graphs.find(key);
  if (it == plan.graphs.end()) {
    if (!plan.capture_stream) ASSAY_CUDA(cudaStreamCreateWithFlags(&plan.capture_stream, cudaStreamNonBlocking));
    ASSAY_CUDA(cudaStreamBeginCapture(plan.capture_stream, cudaStreamCaptureModeThreadLocal));
    try {
      impl_->execute(plan, bound(), plan.capture_stream);
    } catch (...) {
      cudaGraph_t broken = nullptr;
      cudaStreamEndCapture(plan.capture_stream, &broken);
      if (broken) cudaGraphDestroy(broken);
      cudaGetLastError();
      plan.capture_failed = true;  // run it directly from now on
      return run_directly();
    }
    cudaGraph_t graph = nullptr;
    ASSAY_CUDA(cudaStreamEndCapture(plan.capture_stream, &graph));
    cudaGraphExec_t exec = nullptr;
    const cudaError_t e = cudaGraphInstantiate(&exec, graph, 0);
    cudaGraphDestroy(graph);
    if (e != cudaSuccess) {  // e.g. a driver that cannot instantiate what was captured: run directly
      cudaGetLastError();
      plan.capture_failed = true;
      return run_directly();
    }
    it = plan.graphs.emplace(key, exec).first;
    ++impl_->stats.captures;
  } else {
    ++impl_->stats.graph_replays;
  }
  ASSAY_CUDA(cudaGraphLaunch(it->second, stream));
}

HostValue GpuExecutor::download(GpuPlan& plan, std::size_t output, cudaStream_t stream) {
  const int id = plan.out_index.at(output);
  const NodeId node = plan.pr.program.outputs[output];
  const Node& n = plan.pr.program.graph.node(node);
  HostValue v;
  v.shape = n.shape;
  v.dtype = n.dtype;
  const std::size_t count = static_cast<std::size_t>(n.shape.numel());
  std::vector<unsigned char> bytes(count * esize(n.dtype));
  if (count)
    ASSAY_CUDA(cudaMemcpyAsync(bytes.data(), impl_->addr(plan, plan.own, id), bytes.size(), cudaMemcpyDeviceToHost, stream));
  ASSAY_CUDA(cudaStreamSynchronize(stream));
  v.values.resize(count);
  for (std::size_t i = 0; i < count; ++i) {
    switch (n.dtype) {
      case ElemType::f32: std::memcpy(&v.values[i], &bytes[i * 4], 4); break;
      case ElemType::f16:
      case ElemType::bf16: {
        std::uint16_t h = 0;
        std::memcpy(&h, &bytes[i * 2], 2);
        v.values[i] = n.dtype == ElemType::f16 ? f16_bits_to_float(h) : bf16_bits_to_float(h);
        break;
      }
      case ElemType::i64: {
        long long x = 0;
        std::memcpy(&x, &bytes[i * 8], 8);
        v.values[i] = static_cast<float>(x);
        break;
      }
      case ElemType::boolean: v.values[i] = bytes[i] ? 1.0f : 0.0f; break;
    }
  }
  return v;
}

std::vector<HostValue> GpuExecutor::run(const Graph& g, const std::vector<NodeId>& outputs) {
  GpuPlan& plan = prepare(Program{g, outputs});
  enqueue(plan, impl_->stream);
  std::vector<HostValue> out;
  for (std::size_t i = 0; i < outputs.size(); ++i) out.push_back(download(plan, i, impl_->stream));
  return out;
}

std::string GpuExecutor::describe(const GpuPlan& plan) const {
  std::string s;
  for (const Step& st : plan.steps) {
    s += st.node != kNoNode ? "%" + std::to_string(st.node) : std::string("  ");
    s += " " + st.what + "\n";
  }
  if (plan.capture_failed) s += "(CUDA graph capture failed: the steps run directly)\n";
  return s;
}

GpuStats GpuExecutor::stats() const {
  GpuStats s = impl_->stats;
  s.kernels_compiled = impl_->kernels.compiled();
  s.kernel_cache_hits = impl_->kernels.hits();
  return s;
}

}  // namespace assay::graph
