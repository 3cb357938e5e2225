#include "backends/cudnn_sdpa_graph.hpp"

#include <array>
#include <utility>
#include <vector>

#include "core/error.hpp"

// Attribute name and its spelling, for the error of a failed cudnnBackendSetAttribute.
#define ASSAY_ATTR(name) name, #name

namespace assay::cudnn {

namespace {

using Dims = std::array<std::int64_t, 4>;

// The operations of one graph and every descriptor they refer to. cuDNN may hold on to the
// handles it is given, so all of them live as long as the plan made from them (as
// cudnn-frontend keeps them); a deque, so that what `own` returns stays put as more are added.
class GraphBuilder {
 public:
  explicit GraphBuilder(std::deque<Descriptor>& keep) : keep_(keep) {}

  cudnnBackendDescriptor_t tensor(std::int64_t uid, cudnnDataType_t type, const Dims& dims, const Dims& strides,
                                  bool is_virtual, bool by_value = false) {
    Descriptor& t = own(CUDNN_BACKEND_TENSOR_DESCRIPTOR, "tensor " + std::to_string(uid));
    // 16-byte alignment is what the tensor-core engines need; the buffers are cudaMalloc'd.
    const std::int64_t alignment = 16;
    t.set(ASSAY_ATTR(CUDNN_ATTR_TENSOR_DATA_TYPE), CUDNN_TYPE_DATA_TYPE, 1, &type);
    t.set(ASSAY_ATTR(CUDNN_ATTR_TENSOR_DIMENSIONS), CUDNN_TYPE_INT64, 4, dims.data());
    t.set(ASSAY_ATTR(CUDNN_ATTR_TENSOR_STRIDES), CUDNN_TYPE_INT64, 4, strides.data());
    t.set(ASSAY_ATTR(CUDNN_ATTR_TENSOR_UNIQUE_ID), CUDNN_TYPE_INT64, 1, &uid);
    t.set(ASSAY_ATTR(CUDNN_ATTR_TENSOR_BYTE_ALIGNMENT), CUDNN_TYPE_INT64, 1, &alignment);
    if (is_virtual) t.set(ASSAY_ATTR(CUDNN_ATTR_TENSOR_IS_VIRTUAL), CUDNN_TYPE_BOOLEAN, 1, &is_virtual);
    if (by_value) t.set(ASSAY_ATTR(CUDNN_ATTR_TENSOR_IS_BY_VALUE), CUDNN_TYPE_BOOLEAN, 1, &by_value);
    t.finalize();
    return t.get();
  }

  cudnnBackendDescriptor_t virtual_tensor(cudnnDataType_t type, const Dims& dims, const Dims& strides) {
    return tensor(next_uid_++, type, dims, strides, true);
  }

  // c = a·b over the last two dimensions, batched over the first two; fp32 accumulation.
  void matmul(cudnnBackendDescriptor_t a, cudnnBackendDescriptor_t b, cudnnBackendDescriptor_t c) {
    Descriptor& desc = own(CUDNN_BACKEND_MATMUL_DESCRIPTOR, "matmul");
    const cudnnDataType_t compute = CUDNN_DATA_FLOAT;
    desc.set(ASSAY_ATTR(CUDNN_ATTR_MATMUL_COMP_TYPE), CUDNN_TYPE_DATA_TYPE, 1, &compute);
    desc.finalize();
    Descriptor& op = own(CUDNN_BACKEND_OPERATION_MATMUL_DESCRIPTOR, "matmul operation");
    set_tensor(op, ASSAY_ATTR(CUDNN_ATTR_OPERATION_MATMUL_ADESC), a);
    set_tensor(op, ASSAY_ATTR(CUDNN_ATTR_OPERATION_MATMUL_BDESC), b);
    set_tensor(op, ASSAY_ATTR(CUDNN_ATTR_OPERATION_MATMUL_CDESC), c);
    op.set_descriptor(ASSAY_ATTR(CUDNN_ATTR_OPERATION_MATMUL_DESC), desc);
    add(op);
  }

  // y = mode(x[, b[, t]]); `axis` only for GEN_INDEX. Scalars broadcast by their dimensions.
  void pointwise(cudnnPointwiseMode_t mode, cudnnDataType_t math, cudnnBackendDescriptor_t x,
                 cudnnBackendDescriptor_t b, cudnnBackendDescriptor_t t, cudnnBackendDescriptor_t y,
                 std::int64_t axis = -1) {
    const std::string name = "pointwise mode " + std::to_string(static_cast<int>(mode));
    Descriptor& desc = own(CUDNN_BACKEND_POINTWISE_DESCRIPTOR, name);
    desc.set(ASSAY_ATTR(CUDNN_ATTR_POINTWISE_MODE), CUDNN_TYPE_POINTWISE_MODE, 1, &mode);
    desc.set(ASSAY_ATTR(CUDNN_ATTR_POINTWISE_MATH_PREC), CUDNN_TYPE_DATA_TYPE, 1, &math);
    if (mode == CUDNN_POINTWISE_GEN_INDEX) desc.set(ASSAY_ATTR(CUDNN_ATTR_POINTWISE_AXIS), CUDNN_TYPE_INT64, 1, &axis);
    desc.finalize();
    Descriptor& op = own(CUDNN_BACKEND_OPERATION_POINTWISE_DESCRIPTOR, name + " operation");
    op.set_descriptor(ASSAY_ATTR(CUDNN_ATTR_OPERATION_POINTWISE_PW_DESCRIPTOR), desc);
    set_tensor(op, ASSAY_ATTR(CUDNN_ATTR_OPERATION_POINTWISE_XDESC), x);
    if (b) set_tensor(op, ASSAY_ATTR(CUDNN_ATTR_OPERATION_POINTWISE_BDESC), b);
    if (t) set_tensor(op, ASSAY_ATTR(CUDNN_ATTR_OPERATION_POINTWISE_TDESC), t);
    set_tensor(op, ASSAY_ATTR(CUDNN_ATTR_OPERATION_POINTWISE_YDESC), y);
    const float one = 1.0f;  // y = op(1·x, 1·b), as cudnn-frontend sets them
    op.set(ASSAY_ATTR(CUDNN_ATTR_OPERATION_POINTWISE_ALPHA1), CUDNN_TYPE_FLOAT, 1, &one);
    op.set(ASSAY_ATTR(CUDNN_ATTR_OPERATION_POINTWISE_ALPHA2), CUDNN_TYPE_FLOAT, 1, &one);
    add(op);
  }

  void unary(cudnnPointwiseMode_t mode, cudnnBackendDescriptor_t x, cudnnBackendDescriptor_t y) {
    pointwise(mode, CUDNN_DATA_FLOAT, x, nullptr, nullptr, y);
  }
  void binary(cudnnPointwiseMode_t mode, cudnnBackendDescriptor_t x, cudnnBackendDescriptor_t b,
              cudnnBackendDescriptor_t y) {
    pointwise(mode, CUDNN_DATA_FLOAT, x, b, nullptr, y);
  }

  // y = reduce(x) over the dimensions where y has extent 1; fp32.
  void reduction(cudnnReduceTensorOp_t reduce, cudnnBackendDescriptor_t x, cudnnBackendDescriptor_t y) {
    Descriptor& desc = own(CUDNN_BACKEND_REDUCTION_DESCRIPTOR, "reduction");
    const cudnnDataType_t compute = CUDNN_DATA_FLOAT;
    desc.set(ASSAY_ATTR(CUDNN_ATTR_REDUCTION_COMP_TYPE), CUDNN_TYPE_DATA_TYPE, 1, &compute);
    desc.set(ASSAY_ATTR(CUDNN_ATTR_REDUCTION_OPERATOR), CUDNN_TYPE_REDUCTION_OPERATOR_TYPE, 1, &reduce);
    if (api().version >= 91100) {  // the attribute exists from 9.11; cudnn-frontend sets it there
      const bool deterministic = false;
      desc.set(ASSAY_ATTR(CUDNN_ATTR_REDUCTION_IS_DETERMINISTIC), CUDNN_TYPE_BOOLEAN, 1, &deterministic);
    }
    desc.finalize();
    Descriptor& op = own(CUDNN_BACKEND_OPERATION_REDUCTION_DESCRIPTOR, "reduction operation");
    op.set_descriptor(ASSAY_ATTR(CUDNN_ATTR_OPERATION_REDUCTION_DESC), desc);
    set_tensor(op, ASSAY_ATTR(CUDNN_ATTR_OPERATION_REDUCTION_XDESC), x);
    set_tensor(op, ASSAY_ATTR(CUDNN_ATTR_OPERATION_REDUCTION_YDESC), y);
    add(op);
  }

  // The operation graph on `handle`; a status of the not-supported family is returned, not thrown.
  cudnnStatus_t finalize_graph(cudnnHandle_t handle, Descriptor*& graph) {
    Descriptor& g = own(CUDNN_BACKEND_OPERATIONGRAPH_DESCRIPTOR, "operation graph");
    g.set(ASSAY_ATTR(CUDNN_ATTR_OPERATIONGRAPH_OPS), CUDNN_TYPE_BACKEND_DESCRIPTOR,
          static_cast<std::int64_t>(ops_.size()), ops_.data());
    g.set(ASSAY_ATTR(CUDNN_ATTR_OPERATIONGRAPH_HANDLE), CUDNN_TYPE_HANDLE, 1, &handle);
    graph = &g;
    return g.try_finalize();
  }

 private:
  Descriptor& own(cudnnBackendDescriptorType_t type, std::string name) {
    keep_.emplace_back(type, std::move(name));
    return keep_.back();
  }
  static void set_tensor(Descriptor& op, cudnnBackendAttributeName_t name, const char* attr,
                         cudnnBackendDescriptor_t t) {
    op.set(name, attr, CUDNN_TYPE_BACKEND_DESCRIPTOR, 1, &t);
  }
  void add(Descriptor& op) {
    op.finalize();
    ops_.push_back(op.get());
  }

  std::deque<Descriptor>& keep_;
  std::vector<cudnnBackendDescriptor_t> ops_;
  std::int64_t next_uid_ = 100;
};

// The composite SDPA forward of cudnn-frontend (CompositeSDPANode with the causal mask of its
// CompositeDiagonalBandMaskNode and the softmax of its CompositeSoftmaxNode), which is what
// cuDNN before 9.21 receives for a causal mask and what every cuDNN 9 matches to its fused
// flash engines. Returns the finalized operation graph.
Descriptor* build_graph(GraphBuilder& g, cudnnHandle_t handle, const SdpaShape& x, cudnnStatus_t& status) {
  const std::int64_t b = x.b, h = x.h, s = x.s, d = x.d;
  const Dims qkvo_dims{b, h, s, d}, qkvo_strides{h * s * d, s * d, d, 1};
  const Dims scores{b, h, s, s}, scores_strides{h * s * s, s * s, s, 1};
  const Dims rows{b, h, s, 1}, rows_strides{h * s, s, 1, 1};
  const Dims scalar{1, 1, 1, 1};
  constexpr auto f32 = CUDNN_DATA_FLOAT;

  const auto q = g.tensor(kUidQ, x.io_type, qkvo_dims, qkvo_strides, false);
  // K [b, h, s, d] read as Kᵀ [b, h, d, s]: the last two extents and strides swapped, no copy.
  const auto kt = g.tensor(kUidK, x.io_type, {b, h, d, s}, {h * s * d, s * d, 1, d}, false);
  const auto v = g.tensor(kUidV, x.io_type, qkvo_dims, qkvo_strides, false);
  const auto o = g.tensor(kUidO, x.io_type, qkvo_dims, qkvo_strides, false);
  const auto scale = g.tensor(kUidScale, f32, scalar, scalar, false, true);
  // y = x * scalar, in fp32
  const auto times = [&](cudnnBackendDescriptor_t in, cudnnBackendDescriptor_t by, const Dims& dims, const Dims& strides) {
    const auto out = g.virtual_tensor(f32, dims, strides);
    g.binary(CUDNN_POINTWISE_MUL, in, by, out);
    return out;
  };

  const auto qk = g.virtual_tensor(f32, scores, scores_strides);
  g.matmul(q, kt, qk);
  auto scaled = times(qk, scale, scores, scores_strides);
  if (x.fp8()) {
    scaled = times(scaled, g.tensor(kUidDescaleQ, f32, scalar, scalar, false), scores, scores_strides);
    scaled = times(scaled, g.tensor(kUidDescaleK, f32, scalar, scalar, false), scores, scores_strides);
  }

  if (x.causal) {
    // keep = row >= column (int32 indices, boolean compare); masked = keep ? score : -inf.
    const auto row = g.virtual_tensor(CUDNN_DATA_INT32, scores, scores_strides);
    g.pointwise(CUDNN_POINTWISE_GEN_INDEX, f32, scaled, nullptr, nullptr, row, 2);
    const auto col = g.virtual_tensor(CUDNN_DATA_INT32, scores, scores_strides);
    g.pointwise(CUDNN_POINTWISE_GEN_INDEX, f32, scaled, nullptr, nullptr, col, 3);
    const auto keep = g.virtual_tensor(CUDNN_DATA_BOOLEAN, scores, scores_strides);
    g.pointwise(CUDNN_POINTWISE_CMP_GE, CUDNN_DATA_BOOLEAN, row, col, nullptr, keep);
    const auto neg_inf = g.tensor(kUidNegInf, f32, scalar, scalar, false, true);
    const auto masked = g.virtual_tensor(f32, scores, scores_strides);
    g.pointwise(CUDNN_POINTWISE_BINARY_SELECT, f32, scaled, neg_inf, keep, masked);
    scaled = masked;
  }

  // softmax = exp(x - max) / sum(exp(x - max)). The statistics max + log(sum) are built as a
  // virtual output, as cudnn-frontend does for inference: the fused engines match this form.
  const auto row_max = g.virtual_tensor(f32, rows, rows_strides);
  g.reduction(CUDNN_REDUCE_TENSOR_MAX, scaled, row_max);
  const auto centered = g.virtual_tensor(f32, scores, scores_strides);
  g.binary(CUDNN_POINTWISE_SUB, scaled, row_max, centered);
  const auto exps = g.virtual_tensor(f32, scores, scores_strides);
  g.unary(CUDNN_POINTWISE_EXP, centered, exps);
  const auto row_sum = g.virtual_tensor(f32, rows, rows_strides);
  g.reduction(CUDNN_REDUCE_TENSOR_ADD, exps, row_sum);
  const auto log_sum = g.virtual_tensor(f32, rows, rows_strides);
  g.unary(CUDNN_POINTWISE_LOG, row_sum, log_sum);
  const auto stats = g.virtual_tensor(f32, rows, rows_strides);
  g.binary(CUDNN_POINTWISE_ADD, row_max, log_sum, stats);
  if (!x.fp8()) {
    // The probabilities enter the second matmul in the input type (its A operand's type).
    const auto probs = g.virtual_tensor(x.io_type, scores, scores_strides);
    g.binary(CUDNN_POINTWISE_DIV, exps, row_sum, probs);
    g.matmul(probs, v, o);
  } else {
    const auto probs = g.virtual_tensor(f32, scores, scores_strides);
    g.binary(CUDNN_POINTWISE_DIV, exps, row_sum, probs);
    g.reduction(CUDNN_REDUCE_TENSOR_AMAX, probs, g.tensor(kUidAmaxS, f32, scalar, scalar, false));
    const auto probs8 = g.virtual_tensor(x.io_type, scores, scores_strides);
    g.binary(CUDNN_POINTWISE_MUL, probs, g.tensor(kUidScaleS, f32, scalar, scalar, false), probs8);
    const auto pv = g.virtual_tensor(f32, qkvo_dims, qkvo_strides);
    g.matmul(probs8, v, pv);
    auto descaled = times(pv, g.tensor(kUidDescaleS, f32, scalar, scalar, false), qkvo_dims, qkvo_strides);
    descaled = times(descaled, g.tensor(kUidDescaleV, f32, scalar, scalar, false), qkvo_dims, qkvo_strides);
    g.binary(CUDNN_POINTWISE_MUL, descaled, g.tensor(kUidScaleO, f32, scalar, scalar, false), o);
    g.reduction(CUDNN_REDUCE_TENSOR_AMAX, descaled, g.tensor(kUidAmaxO, f32, scalar, scalar, false));
  }

  Descriptor* graph = nullptr;
  status = g.finalize_graph(handle, graph);
  return graph;
}

std::int64_t get_int64(cudnnBackendDescriptor_t d, cudnnBackendAttributeName_t name, cudnnStatus_t& status) {
  std::int64_t value = -1, count = 0;
  status = api().get_attribute(d, name, CUDNN_TYPE_INT64, 1, &count, &value);
  return value;
}

// "eng<global index>_k<type>=<choice>...", cudnn-frontend's plan tag; "eng?" where the
// engine cannot be read back (it names the plan, it does not decide anything).
std::string engine_tag(const Descriptor& config) {
  const auto& a = api();
  Descriptor engine(CUDNN_BACKEND_ENGINE_DESCRIPTOR, "engine");
  cudnnBackendDescriptor_t e = engine.get();
  std::int64_t n = 0;
  if (a.get_attribute(config.get(), CUDNN_ATTR_ENGINECFG_ENGINE, CUDNN_TYPE_BACKEND_DESCRIPTOR, 1, &n, &e) !=
      CUDNN_STATUS_SUCCESS)
    return "eng?";
  cudnnStatus_t st = CUDNN_STATUS_SUCCESS;
  const std::int64_t index = get_int64(e, CUDNN_ATTR_ENGINE_GLOBAL_INDEX, st);
  std::string tag = st == CUDNN_STATUS_SUCCESS ? "eng" + std::to_string(index) : "eng?";
  std::vector<Descriptor> knobs;
  std::vector<cudnnBackendDescriptor_t> raw;
  for (int i = 0; i < CUDNN_KNOB_TYPE_COUNTS; ++i) {
    knobs.emplace_back(CUDNN_BACKEND_KNOB_CHOICE_DESCRIPTOR, "knob choice");
    raw.push_back(knobs.back().get());
  }
  if (a.get_attribute(config.get(), CUDNN_ATTR_ENGINECFG_KNOB_CHOICES, CUDNN_TYPE_BACKEND_DESCRIPTOR,
                      CUDNN_KNOB_TYPE_COUNTS, &n, raw.data()) != CUDNN_STATUS_SUCCESS)
    return tag;
  for (std::int64_t i = 0; i < n && i < CUDNN_KNOB_TYPE_COUNTS; ++i) {
    cudnnBackendKnobType_t type = CUDNN_KNOB_TYPE_COUNTS;
    std::int64_t count = 0;
    if (a.get_attribute(raw[i], CUDNN_ATTR_KNOB_CHOICE_KNOB_TYPE, CUDNN_TYPE_KNOB_TYPE, 1, &count, &type) !=
        CUDNN_STATUS_SUCCESS)
      continue;
    const std::int64_t choice = get_int64(raw[i], CUDNN_ATTR_KNOB_CHOICE_KNOB_VALUE, st);
    if (st == CUDNN_STATUS_SUCCESS) tag += "_k" + std::to_string(static_cast<int>(type)) + "=" + std::to_string(choice);
  }
  return tag;
}

std::string shape_note(const SdpaShape& x, const std::string& shape_string) {
  return shape_string + " " + (x.fp8() ? "f8e4m3" : x.io_type == CUDNN_DATA_BFLOAT16 ? "bf16" : "f16") +
         (x.causal ? " causal" : "");
}

}  // namespace

SdpaPlan build_sdpa_plan(cudnnHandle_t handle, const SdpaShape& x, const std::string& shape_string) {
  const auto& a = api();
  SdpaPlan out;
  GraphBuilder builder(out.keep);
  cudnnStatus_t st = CUDNN_STATUS_SUCCESS;
  const Descriptor* graph = build_graph(builder, handle, x, st);
  if (not_supported(st))
    throw SkipError("cuDNN takes no attention graph for " + shape_note(x, shape_string) + ": " + describe(st));
  check(st, "cudnnBackendFinalize (SDPA operation graph)");
  const cudnnBackendDescriptor_t graph_handle = graph->get();

  // Heuristics mode A first (what cudnn-frontend's SDPA samples ask for), then the fallback
  // list; the first configuration that finalizes into a plan is taken.
  std::string last_failure = "the heuristics returned no engine configuration";
  for (cudnnBackendHeurMode_t mode : {CUDNN_HEUR_MODE_A, CUDNN_HEUR_MODE_FALLBACK}) {
    Descriptor heur(CUDNN_BACKEND_ENGINEHEUR_DESCRIPTOR, "engine heuristics");
    heur.set(ASSAY_ATTR(CUDNN_ATTR_ENGINEHEUR_OPERATION_GRAPH), CUDNN_TYPE_BACKEND_DESCRIPTOR, 1, &graph_handle);
    heur.set(ASSAY_ATTR(CUDNN_ATTR_ENGINEHEUR_MODE), CUDNN_TYPE_HEUR_MODE, 1, &mode);
    if (st = heur.try_finalize(); st != CUDNN_STATUS_SUCCESS) {
      last_failure = "heuristics mode " + std::to_string(static_cast<int>(mode)) + ": " + describe(st);
      continue;
    }
    std::int64_t count = 0;
    check(a.get_attribute(heur.get(), CUDNN_ATTR_ENGINEHEUR_RESULTS, CUDNN_TYPE_BACKEND_DESCRIPTOR, 0, &count, nullptr),
          "cudnnBackendGetAttribute(CUDNN_ATTR_ENGINEHEUR_RESULTS count)");
    std::vector<Descriptor> configs;
    std::vector<cudnnBackendDescriptor_t> raw;
    for (std::int64_t i = 0; i < count; ++i) {
      configs.emplace_back(CUDNN_BACKEND_ENGINECFG_DESCRIPTOR, "engine config");
      raw.push_back(configs.back().get());
    }
    std::int64_t returned = 0;
    if (count > 0)
      check(a.get_attribute(heur.get(), CUDNN_ATTR_ENGINEHEUR_RESULTS, CUDNN_TYPE_BACKEND_DESCRIPTOR, count, &returned,
                            raw.data()),
            "cudnnBackendGetAttribute(CUDNN_ATTR_ENGINEHEUR_RESULTS)");
    for (std::int64_t i = 0; i < returned && i < count; ++i) {
      Descriptor plan(CUDNN_BACKEND_EXECUTION_PLAN_DESCRIPTOR, "execution plan");
      plan.set(ASSAY_ATTR(CUDNN_ATTR_EXECUTION_PLAN_HANDLE), CUDNN_TYPE_HANDLE, 1, &handle);
      plan.set_descriptor(ASSAY_ATTR(CUDNN_ATTR_EXECUTION_PLAN_ENGINE_CONFIG), configs[i]);
      if (st = plan.try_finalize(); st != CUDNN_STATUS_SUCCESS) {
        last_failure = "engine configuration " + std::to_string(i) + " of heuristics mode " +
                       std::to_string(static_cast<int>(mode)) + ": " + describe(st);
        continue;
      }
      out.workspace_bytes = get_int64(plan.get(), CUDNN_ATTR_EXECUTION_PLAN_WORKSPACE_SIZE, st);
      check(st, "cudnnBackendGetAttribute(CUDNN_ATTR_EXECUTION_PLAN_WORKSPACE_SIZE)");
      out.engine = engine_tag(configs[i]);
      out.plan = std::move(plan);
      out.keep.push_back(std::move(configs[i]));
      return out;
    }
  }
  throw SkipError("no cuDNN engine runs attention " + shape_note(x, shape_string) + " here (" + last_failure + ")");
}

Descriptor make_sdpa_variant_pack(const SdpaShape& x, const SdpaPointers& p) {
  std::vector<std::int64_t> uids = {kUidQ, kUidK, kUidV, kUidO, kUidScale};
  std::vector<void*> ptrs = {const_cast<void*>(p.q), const_cast<void*>(p.k), const_cast<void*>(p.v), p.o,
                             const_cast<float*>(p.scale)};
  if (x.causal) {
    uids.push_back(kUidNegInf);
    ptrs.push_back(const_cast<float*>(p.neg_inf));
  }
  if (x.fp8()) {
    for (const auto& [uid, ptr] : {std::pair<std::int64_t, const float*>{kUidDescaleQ, p.descale_q},
                                   {kUidDescaleK, p.descale_k}, {kUidDescaleV, p.descale_v}, {kUidDescaleS, p.descale_s},
                                   {kUidScaleS, p.scale_s}, {kUidScaleO, p.scale_o}, {kUidAmaxS, p.amax_s},
                                   {kUidAmaxO, p.amax_o}}) {
      uids.push_back(uid);
      ptrs.push_back(const_cast<float*>(ptr));
    }
  }
  Descriptor pack(CUDNN_BACKEND_VARIANT_PACK_DESCRIPTOR, "variant pack");
  const auto n = static_cast<std::int64_t>(uids.size());
  pack.set(ASSAY_ATTR(CUDNN_ATTR_VARIANT_PACK_UNIQUE_IDS), CUDNN_TYPE_INT64, n, uids.data());
  pack.set(ASSAY_ATTR(CUDNN_ATTR_VARIANT_PACK_DATA_POINTERS), CUDNN_TYPE_VOID_PTR, n, ptrs.data());
  pack.set(ASSAY_ATTR(CUDNN_ATTR_VARIANT_PACK_WORKSPACE), CUDNN_TYPE_VOID_PTR, 1, &p.workspace);
  pack.finalize();
  return pack;
}

}  // namespace assay::cudnn

#undef ASSAY_ATTR
