#include "backends/cudnn_attention.hpp"

#include <array>
#include <cmath>
#include <cstring>
#include <limits>
#include <map>
#include <optional>

#include "backends/cudnn_api.hpp"
#include "backends/cudnn_sdpa_graph.hpp"
#include "backends/gpu_instance.hpp"
#include "core/dtype.hpp"
#include "core/error.hpp"
#include "workloads/attention.hpp"

namespace assay {

namespace {

using cudnn::api;
using cudnn::check;

// A cuDNN handle, destroyed after everything made on it (declared first in the instance).
struct Handle {
  cudnnHandle_t h = nullptr;
  Handle() { check(api().create(&h), "cudnnCreate"); }
  ~Handle() {
    if (h) api().destroy(h);
  }
  Handle(const Handle&) = delete;
  Handle& operator=(const Handle&) = delete;
};

cudnn::SdpaShape shape_of(const AttentionProblem& p) {
  cudnn::SdpaShape x;
  x.b = p.b();
  x.h = p.h();
  x.s = p.s();
  x.d = p.d();
  x.causal = p.causal();
  x.io_type = p.dtype() == DType::f8e4m3 ? CUDNN_DATA_FP8_E4M3 : p.dtype() == DType::bf16 ? CUDNN_DATA_BFLOAT16 : CUDNN_DATA_HALF;
  return x;
}

// fp8: the probabilities (at most 1) enter the second matmul times 448, e4m3's largest value.
constexpr float kScaleS = 448.0f;

// fp8 on Hopper: cuDNN writes O in e4m3 (a bf16 O with e4m3 inputs is a Blackwell feature). O is
// a combination of V's rows with weights P that sum to 1, except that P enters the product rounded
// to e4m3 (each weight within 2^-4 relative, so their sum within 1 + 2^-4): |O| <= 1.0625 · amax(V)
// = 1.0625 · 448 · descale_v. scale_o = 1 / (1.0625 · descale_v) keeps O·scale_o within e4m3's
// largest value, 448, and uses its range from there down.
float scale_o_for(const std::vector<HostTensor>& inputs) {
  if (inputs.size() < 6 || inputs[5].bytes() != sizeof(float)) throw InternalError("cudnn fp8: no per-tensor V descale");
  float descale_v = 0.0f;
  std::memcpy(&descale_v, inputs[5].data.data(), sizeof descale_v);
  return descale_v > 0.0f ? 1.0f / (1.0625f * descale_v) : 1.0f;
}

// The fp8 scalars on the device, each in a 16-byte slot of its own (the graph declares every
// tensor 16-byte aligned): descale_s, scale_s, scale_o in; amax_s, amax_o out.
enum Fp8Slot { kSlotDescaleS, kSlotScaleS, kSlotScaleO, kSlotAmaxS, kSlotAmaxO, kSlots };
constexpr int kSlotFloats = 4;

class CudnnAttentionInstance final : public GpuInstance {
 public:
  CudnnAttentionInstance(const AttentionProblem& p, const std::vector<HostTensor>& inputs)
      : GpuInstance(p, inputs),
        shape_(shape_of(p)),
        plan_(cudnn::build_sdpa_plan(handle_.h, shape_, p.shape_string())),
        workspace_(scratch(static_cast<std::size_t>(plan_.workspace_bytes))),
        scale_(static_cast<float>(1.0 / std::sqrt(static_cast<double>(p.d())))) {
    if (shape_.fp8()) {  // descale_s, scale_s, scale_o; then the two amaxes cuDNN writes
      fp8_scalars_ = static_cast<float*>(scratch(kSlots * kSlotFloats * sizeof(float)));
      o8_ = scratch(static_cast<std::size_t>(p.b() * p.h() * p.s() * p.d()));
      inputs_replaced(inputs);
    }
  }

  ~CudnnAttentionInstance() override {
    // The work in flight uses the plan and the handle; GpuInstance synchronizes only after.
    (void)cudaDeviceSynchronize();
  }

  std::string variant() const override {
    return std::string(shape_.fp8() ? "cudnn-sdpa-fp8-fwd(O e4m3)/" : "cudnn-sdpa-fwd/") + plan_.engine;
  }

 protected:
  void inputs_replaced(const std::vector<HostTensor>& inputs) override {
    if (!shape_.fp8()) return;
    scale_o_ = scale_o_for(inputs);
    float init[kSlots * kSlotFloats] = {};
    init[kSlotDescaleS * kSlotFloats] = 1.0f / kScaleS;
    init[kSlotScaleS * kSlotFloats] = kScaleS;
    init[kSlotScaleO * kSlotFloats] = scale_o_;
    // Synchronous to the host, then the device idle: the samplers launch on a non-blocking stream.
    if (cudaMemcpy(fp8_scalars_, init, sizeof init, cudaMemcpyHostToDevice) != cudaSuccess ||
        cudaDeviceSynchronize() != cudaSuccess)
      throw InternalError("cudnn: uploading the fp8 scales failed");
  }
  void poison_own_output() override {
    if (o8_ && cudaMemset(o8_, 0xff, o8_bytes()) != cudaSuccess)  // 0xff: e4m3 NaN
      throw InternalError("cudnn: poisoning the fp8 output failed");
  }
  // O·scale_o in e4m3 -> O in bf16, on the host (the check's read-back, not timed).
  void finish_output(void* out) override {
    if (!o8_) return;
    std::vector<std::uint8_t> o8(o8_bytes());
    std::vector<std::uint16_t> o16(o8.size());
    if (cudaMemcpy(o8.data(), o8_, o8.size(), cudaMemcpyDeviceToHost) != cudaSuccess)
      throw InternalError("cudnn: reading the fp8 output failed");
    for (std::size_t i = 0; i < o8.size(); ++i) o16[i] = float_to_bf16_bits(e4m3_bits_to_float(o8[i]) / scale_o_);
    if (cudaMemcpy(out, o16.data(), o16.size() * 2, cudaMemcpyHostToDevice) != cudaSuccess)
      throw InternalError("cudnn: writing the dequantised output failed");
  }

  void launch(cudaStream_t stream, const std::vector<const void*>& in, void* out) override {
    if (stream_ != stream) {
      check(api().set_stream(handle_.h, stream), "cudnnSetStream");
      stream_ = stream;
    }
    // Input sets rotate and the output stays: one variant pack per set, made on its first call,
    // so that a timed call only executes.
    const bool fp8 = shape_.fp8();
    const Key key{in[0], in[1], in[2], fp8 ? in[3] : nullptr, fp8 ? in[4] : nullptr, fp8 ? in[5] : nullptr, out};
    auto it = packs_.find(key);
    if (it == packs_.end()) {
      cudnn::SdpaPointers ptrs;
      ptrs.q = in[0];
      ptrs.k = in[1];
      ptrs.v = in[2];
      ptrs.o = fp8 ? o8_ : out;
      ptrs.workspace = workspace_;
      ptrs.scale = &scale_;
      ptrs.neg_inf = &neg_inf_;
      if (fp8) {  // Q's, K's and V's descales are inputs 3 to 5 (one f32 each: per tensor)
        ptrs.descale_q = static_cast<const float*>(in[3]);
        ptrs.descale_k = static_cast<const float*>(in[4]);
        ptrs.descale_v = static_cast<const float*>(in[5]);
        ptrs.descale_s = fp8_scalars_ + kSlotDescaleS * kSlotFloats;
        ptrs.scale_s = fp8_scalars_ + kSlotScaleS * kSlotFloats;
        ptrs.scale_o = fp8_scalars_ + kSlotScaleO * kSlotFloats;
        ptrs.amax_s = fp8_scalars_ + kSlotAmaxS * kSlotFloats;
        ptrs.amax_o = fp8_scalars_ + kSlotAmaxO * kSlotFloats;
      }
      it = packs_.emplace(key, cudnn::make_sdpa_variant_pack(shape_, ptrs)).first;
    }
    check(api().execute(handle_.h, plan_.plan.get(), it->second.get()), "cudnnBackendExecute");
  }

 private:
  using Key = std::array<const void*, 7>;
  Handle handle_;  // first: destroyed last
  cudnn::SdpaShape shape_;
  cudnn::SdpaPlan plan_;
  void* workspace_;
  // Read from the host by cuDNN at each execution (by-value tensors of the graph).
  float scale_;
  float neg_inf_ = -std::numeric_limits<float>::infinity();
  float* fp8_scalars_ = nullptr;  // device, Fp8Slot by Fp8Slot
  void* o8_ = nullptr;            // fp8: O·scale_o in e4m3, what cuDNN writes
  float scale_o_ = 1.0f;
  std::size_t o8_bytes() const { return static_cast<std::size_t>(shape_.b * shape_.h * shape_.s * shape_.d); }
  std::map<Key, cudnn::Descriptor> packs_;
  std::optional<cudaStream_t> stream_;
};

}  // namespace

std::string CudnnAttentionBackend::unavailable_reason() const { return api().error; }

std::string CudnnAttentionBackend::library_version() const {
  return api().error.empty() ? cudnn::version_string(api().version) : std::string();
}

std::unique_ptr<Instance> CudnnAttentionBackend::instantiate(const Problem& problem,
                                                             const std::vector<HostTensor>& inputs) const {
  const auto& attention = dynamic_cast<const AttentionProblem&>(problem);
  if (!api().error.empty()) throw SkipError(api().error);
  if (attention.dtype() != DType::f16 && attention.dtype() != DType::bf16 && attention.dtype() != DType::f8e4m3)
    throw SkipError("cuDNN's fused attention takes f16, bf16 and f8e4m3, not " +
                    std::string(dtype_name(attention.dtype())));
  if (attention.dtype() == DType::f8e4m3 && attention.per_head_scales())
    throw SkipError("cuDNN's FP8 attention takes one descale per tensor, not per (batch, head)");
  // cudnn-frontend refuses these two releases for f16/bf16 SDPA forward (known wrong results).
  if (api().version == 91000 || api().version == 91001)
    throw SkipError("cuDNN " + cudnn::version_string(api().version) +
                    " has known SDPA forward bugs (cudnn-frontend refuses it); 9.10.2 or newer is needed");
  // Rows of Q, K and V must be 16-byte aligned for the tensor-core engines.
  if (attention.d() % 8 != 0)
    throw SkipError("cuDNN's fused attention needs d to be a multiple of 8, not " + attention.shape_string());
  return std::make_unique<CudnnAttentionInstance>(attention, inputs);
}

}  // namespace assay
