#pragma once
// Scaled dot-product attention (forward, inference) as a cuDNN graph, in the form that
// cudnn-frontend's composite SDPA node gives the backend and cuDNN's fused flash-attention
// engines match: matmul Q·Kᵀ, scale, [causal mask], softmax as max/sub/exp/sum/div (with the
// log-sum-exp statistics as a virtual output), matmul with V. Built and planned once per
// instance; each call only binds pointers through a variant pack.
//
// FP8 (e4m3 Q, K, V): the form of cudnn-frontend's SDPA FP8 node. The scores are multiplied by
// the scale and Q's and K's descales; the probabilities' amax is reduced to an output, and they
// enter the second matmul as e4m3 after a multiplication by scale_s; its product is multiplied by
// descale_s and V's descale, its amax reduced to an output, and O written times scale_o.
#include <cstdint>
#include <deque>
#include <string>

#include "backends/cudnn_api.hpp"

namespace assay::cudnn {

struct SdpaShape {
  std::int64_t b = 0, h = 0, s = 0, d = 0;  // Q, K, V, O are [b, h, s, d], row-major
  bool causal = false;                      // top-left aligned: key j > query i masked
  // Q, K, V and O (fp8: O too, as cuDNN takes it on Hopper; a bf16 O with FP8 inputs is a
  // Blackwell feature); everything inside is fp32
  cudnnDataType_t io_type = CUDNN_DATA_HALF;
  bool fp8() const { return io_type == CUDNN_DATA_FP8_E4M3; }
};

// The uids the variant pack binds; the graph's virtual tensors take uids from 100 up.
enum SdpaUid : std::int64_t {
  kUidQ = 1, kUidK = 2, kUidV = 3, kUidO = 4, kUidScale = 5, kUidNegInf = 6,
  // fp8 only: device scalars (f32) in, amaxes out
  kUidDescaleQ = 7, kUidDescaleK = 8, kUidDescaleV = 9, kUidDescaleS = 10, kUidScaleS = 11, kUidScaleO = 12,
  kUidAmaxS = 13, kUidAmaxO = 14
};

struct SdpaPlan {
  Descriptor plan;
  std::int64_t workspace_bytes = 0;
  std::string engine;            // "eng<global index>[_k<knob type>=<choice>...]"
  std::deque<Descriptor> keep;  // the graph and engine config the plan was made from
};

// Builds the graph for `shape` on `handle` and finalizes the first engine configuration of
// the heuristics (mode A, then fallback) that finalizes into an execution plan. Throws
// SkipError, naming `shape_string` and cuDNN's reason, when cuDNN supports no engine for it;
// InternalError when a call fails otherwise.
SdpaPlan build_sdpa_plan(cudnnHandle_t handle, const SdpaShape& shape, const std::string& shape_string);

// By-value scalars are read from the host at execution: they must outlive the variant pack.
struct SdpaPointers {
  const void* q = nullptr;
  const void* k = nullptr;
  const void* v = nullptr;
  void* o = nullptr;
  void* workspace = nullptr;
  const float* scale = nullptr;    // 1/sqrt(d)
  const float* neg_inf = nullptr;  // -inf, for the causal mask; unused otherwise
  // fp8 only, device pointers to one f32 each
  const float* descale_q = nullptr;
  const float* descale_k = nullptr;
  const float* descale_v = nullptr;
  const float* descale_s = nullptr;  // 1 / scale_s
  const float* scale_s = nullptr;    // the probabilities' scale into e4m3's range
  const float* scale_o = nullptr;
  float* amax_s = nullptr;
  float* amax_o = nullptr;
};

Descriptor make_sdpa_variant_pack(const SdpaShape& shape, const SdpaPointers& p);

}  // namespace assay::cudnn
