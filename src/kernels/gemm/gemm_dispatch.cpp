// launch_gemm: picks a kernel and a tiling for each call (see gemm_kernels.hpp).
#include <cuda_runtime.h>

#include <cstdlib>
#include <string>

#include "kernels/gemm/gemm_configs.hpp"
#include "kernels/gemm/gemm_detail.hpp"
#include "kernels/gemm/gemm_kernels.hpp"
#include "kernels/gemm/hopper/hopper_gemm.hpp"
#include "kernels/gemm/hopper/tensor_maps.hpp"
#include "kernels/gemm/k_segments.hpp"

namespace assay::kernels {

namespace {

hopper::Elem hopper_elem(GemmDtype t) {
  return t == GemmDtype::f16 ? hopper::Elem::f16 : t == GemmDtype::bf16 ? hopper::Elem::bf16 : hopper::Elem::e4m3;
}

int current_device() {
  int device = 0;
  return cudaGetDevice(&device) == cudaSuccess ? device : -1;
}

const hopper::DeviceFacts& current_facts() { return hopper::device_facts(current_device()); }

// Why the Hopper kernel cannot take this call, or "" when it can.
std::string hopper_refusal(const GemmCall& call) {
  if (call.dtype == GemmDtype::f32) return "the Hopper kernel has no f32 path";
  if (!current_facts().hopper) return "the Hopper kernel needs compute capability 9.0";
  if (call.m > hopper::kMaxDim || call.n > hopper::kMaxDim || call.k > hopper::kMaxDim)
    return "the Hopper kernel takes m, n and k up to " + std::to_string(hopper::kMaxDim);
  if (!hopper::eligible(hopper_elem(call.dtype), call.m, call.n, call.k, call.a, call.b, call.c))
    return call.dtype == GemmDtype::f8e4m3
               ? "the Hopper kernel needs k % 16 == 0, n % 8 == 0 and 16-byte aligned A, B, C"
               : "the Hopper kernel needs k % 8 == 0, n % 8 == 0 and 16-byte aligned A, B, C";
  return {};
}

// S of a pinned split-K configuration "<base>_k<S>" (2 <= S <= 16), else 0.
int split_suffix(std::string_view config, const std::string& base) {
  const std::string prefix = base + "_k";
  if (config.size() <= prefix.size() || config.substr(0, prefix.size()) != prefix) return 0;
  int s = 0;
  for (const char ch : config.substr(prefix.size())) {
    if (ch < '0' || ch > '9' || s > 16) return 0;
    s = s * 10 + (ch - '0');
  }
  return s >= 2 && s <= 16 && config[prefix.size()] != '0' ? s : 0;
}

// The workspace of a split-K or stream-K plan.
std::size_t workspace_bytes(const GemmPlan& p, const GemmCall& call) {
  return p.stream_ctas > 0 ? hopper::stream_workspace_bytes(p.tile_m, p.tile_n, call.m, call.n, p.stream_ctas)
                           : hopper::split_workspace_bytes(p.tile_m, p.tile_n, call.m, call.n, p.splits);
}

// Split-K's (or stream-K's) workspace for `p`, zeroed counters included; false if the device cannot give it.
bool allocate_split_workspace(GemmPlan& p, const GemmCall& call) {
  const std::size_t bytes = workspace_bytes(p, call);
  void* raw = nullptr;
  if (cudaMalloc(&raw, bytes) != cudaSuccess) {
    (void)cudaGetLastError();
    return false;
  }
  p.workspace = std::shared_ptr<void>(raw, [](void* q) { cudaFree(q); });
  p.workspace_bytes = bytes;
  p.split_m = call.m;
  p.split_n = call.n;
  if (cudaGetDevice(&p.split_device) != cudaSuccess) return false;
  // The counters start at zero; each launch leaves them so. cudaMemset runs on the legacy default
  // stream, which a non-blocking stream does not wait for: wait here.
  if (cudaMemset(raw, 0, hopper::split_counter_bytes(p.tile_m, p.tile_n, call.m, call.n)) != cudaSuccess ||
      cudaStreamSynchronize(nullptr) != cudaSuccess) {
    (void)cudaGetLastError();
    p.workspace.reset();
    p.workspace_bytes = 0;
    return false;
  }
  return true;
}

// The shape heuristic's Hopper plan on the current device (allow_split = false: without split-K, for
// when its workspace cannot be had).
GemmPlan heuristic_plan(const GemmCall& call, bool allow_split) {
  const int device = current_device();
  const hopper::TileChoice t = hopper::choose_tile(call.dtype == GemmDtype::f8e4m3, call.m, call.n, call.k,
                                                   hopper::device_facts(device).sms, allow_split,
                                                   hopper::cluster4_ctas(device));
  GemmPlan p;
  p.kernel = GemmKernel::hopper;
  p.tile_m = t.tile_m;
  p.tile_n = t.tile_n;
  p.cluster = t.cluster;
  p.splits = t.splits;
  return p;
}

GemmPlan choose(const GemmCall& call, std::string_view config) {
  GemmPlan c;
  if (call.m < 1 || call.n < 1 || call.k < 1) {
    c.unavailable = "m, n and k must be at least 1";
    return c;
  }
  const bool tensor16 = call.dtype == GemmDtype::f16 || call.dtype == GemmDtype::bf16;
  if (config == "auto") {
    if (call.dtype != GemmDtype::f32 && hopper_refusal(call).empty()) return heuristic_plan(call, /*allow_split=*/true);
    c.kernel = tensor16 ? GemmKernel::mma_sync : GemmKernel::simt;
    return c;
  }
  for (const hopper::TileShape t : hopper::kTileShapes) {
    const std::string base = "wgmma_" + std::to_string(t.m) + "x" + std::to_string(t.n);
    const int splits = split_suffix(config, base);
    const bool stream = config == base + "_sk";
    if (config != base && config != base + "_c2" && config != base + "_c4" && splits == 0 && !stream) continue;
    c.cluster = config == base + "_c2" ? 2 : config == base + "_c4" ? 4 : 1;
    c.unavailable = hopper_refusal(call);
    if (c.cluster == 4 && c.unavailable.empty() && !hopper::builds_cluster4(hopper_elem(call.dtype), t.m, t.n))
      c.unavailable = "clusters of four are built for f16/bf16 128x128, 128x192 and 128x256 tiles";
    if (splits > 0 && c.unavailable.empty()) {
      if (!hopper::builds_split(hopper_elem(call.dtype), t.m, t.n))
        c.unavailable = "split-K is built for f16/bf16 128x128, 128x64 and 64x128 tiles";
      else if (splits > (static_cast<long long>(call.k) + 63) / 64)
        c.unavailable = "split-K needs a 64-deep K block per split (k = " + std::to_string(call.k) + ")";
      c.splits = splits;
    }
    if (stream && c.unavailable.empty()) {
      const int sms = current_facts().sms;
      const int ctas = hopper::stream_k_ctas(call.m, call.n, call.k, t.m, t.n, sms);
      if (!hopper::builds_split(hopper_elem(call.dtype), t.m, t.n))
        c.unavailable = "stream-K is built for f16/bf16 128x128, 128x64 and 64x128 tiles";
      else if (ctas == 0)
        c.unavailable = "stream-K runs a CTA per tile row at once: " +
                        std::to_string(hopper::tile_count(call.m, 1, t.m, 1)) + " tile rows exceed the " +
                        std::to_string(sms) + " SMs";
      else c.stream_ctas = ctas;
    }
    if (c.unavailable.empty() && !hopper::builds(hopper_elem(call.dtype), t.m, t.n))
      c.unavailable = t.m != 128  ? "the " + std::to_string(t.m) + "x" + std::to_string(t.n) +
                                       " tile is f16/bf16's alone (fp8's partial sets need 128-row tiles)"
                      : t.n == 256 ? "the fp8 kernel has no 256-wide tile (its partial set would not fit in registers)"
                                   : "the 208- and 176-wide tiles are fp8's alone (f16/bf16 load B in 64-column boxes)";
    if (c.unavailable.empty()) {
      c.kernel = GemmKernel::hopper;
      c.tile_m = t.m;
      c.tile_n = t.n;
    }
    return c;
  }
  if (config == "mma_sync") {
    if (tensor16) c.kernel = GemmKernel::mma_sync;
    else c.unavailable = "mma_sync is the f16/bf16 kernel";
    return c;
  }
  if (config == "simt") {
    if (!tensor16) c.kernel = GemmKernel::simt;
    else c.unavailable = "simt is the f32/f8e4m3 kernel";
    return c;
  }
  c.unavailable = "unknown GEMM configuration '" + std::string(config) + "'";
  return c;
}

}  // namespace

const std::vector<std::string>& gemm_configs() {
  static const std::vector<std::string> v(kGemmConfigNames.begin(), kGemmConfigNames.end());
  return v;
}

namespace {

// Split-K's lines (k_segments.hpp): the rule, or ASSAY_SPLIT_ORDER=row|column (for `assay ab` of the rule).
// An unknown value makes the plan unavailable, naming it.
bool lines_by_row(const GemmCall& call, int tile_m, int tile_n, std::string& error) {
  const char* env = std::getenv("ASSAY_SPLIT_ORDER");
  if (env == nullptr || *env == '\0') return hopper::split_lines_by_row(call.m, call.n, tile_m, tile_n);
  const std::string v(env);
  if (v != "row" && v != "column") error = "ASSAY_SPLIT_ORDER='" + v + "': expected row or column";
  return v == "row";
}

}  // namespace

GemmPlan plan_gemm(const GemmCall& call, std::string_view config) {
  GemmPlan p = choose(call, config);
  if (p.kernel == GemmKernel::hopper && p.splits > 1) {
    std::string error;
    p.split_by_row = lines_by_row(call, p.tile_m, p.tile_n, error);
    if (!error.empty()) {
      p.kernel = GemmKernel::none;
      p.unavailable = error;
    }
  }
  if (p.kernel == GemmKernel::hopper && (p.splits > 1 || p.stream_ctas > 0) && !allocate_split_workspace(p, call)) {
    if (config == "auto") {
      p = heuristic_plan(call, /*allow_split=*/false);  // the unsplit choice runs everything, only slower
    } else {
      p.kernel = GemmKernel::none;
      p.unavailable = std::string(p.stream_ctas > 0 ? "stream-K" : "split-K") + "'s workspace (" +
                      std::to_string(workspace_bytes(p, call)) + " bytes) could not be allocated";
    }
  }
  switch (p.kernel) {
    case GemmKernel::hopper: {
      const int bk = call.dtype == GemmDtype::f8e4m3 ? 128 : 64;
      p.name = "wgmma_" + std::to_string(p.tile_m) + "x" + std::to_string(p.tile_n) + "x" + std::to_string(bk) +
               "_s" + std::to_string(hopper::stages(p.tile_m, p.tile_n)) + (p.cluster > 1 ? "_c" + std::to_string(p.cluster) : "") +
               (p.splits > 1 ? "_k" + std::to_string(p.splits) + (p.split_by_row ? "r" : "") : "") +
               (p.stream_ctas > 0 ? "_sk" + std::to_string(p.stream_ctas) : "") + "_persistent";
      break;
    }
    case GemmKernel::mma_sync: p.name = detail::mma_sync_config_name(call.n, call.k, call.a, call.b, call.c); break;
    case GemmKernel::simt:
      p.name = call.dtype == GemmDtype::f32 ? detail::simt_gemm_f32_config_name(call.n, call.k, call.a, call.b, call.c)
                                            : "simt_e4m3_64x64x32";
      break;
    case GemmKernel::none: break;
  }
  return p;
}

cudaError_t launch_gemm(const GemmPlan& plan, const GemmCall& call, cudaStream_t stream) {
  switch (plan.kernel) {
    case GemmKernel::hopper:
    {
      hopper::Split split;
      if (plan.splits > 1 || plan.stream_ctas > 0) {
        // The workspace is laid out for the planned m x n on the planned device: a launch at
        // another shape would write partials over counters that are never zeroed again.
        int device = -1;
        if (call.m != plan.split_m || call.n != plan.split_n || cudaGetDevice(&device) != cudaSuccess ||
            device != plan.split_device)
          return cudaErrorInvalidValue;
        unsigned char* ws = static_cast<unsigned char*>(plan.workspace.get());
        split.splits = plan.splits;
        split.stream_ctas = plan.stream_ctas;
        split.by_row = plan.split_by_row;
        split.counters = reinterpret_cast<unsigned*>(ws);
        split.slots = ws == nullptr ? nullptr
                                    : reinterpret_cast<float*>(
                                          ws + hopper::split_counter_bytes(plan.tile_m, plan.tile_n, call.m, call.n));
        split.bytes = plan.workspace_bytes;
      }
      return hopper::launch(hopper_elem(call.dtype), plan.tile_m, plan.tile_n, plan.cluster, call.m, call.n, call.k,
                            call.a, call.b, call.c, call.scale_a, call.scale_b, stream, split);
    }
    case GemmKernel::mma_sync:
      return detail::launch_mma_sync_gemm(call.dtype == GemmDtype::bf16, call.m, call.n, call.k, call.a, call.b,
                                          call.c, stream);
    case GemmKernel::simt:
      if (call.dtype == GemmDtype::f32)
        return detail::launch_simt_gemm_f32(call.m, call.n, call.k, static_cast<const float*>(call.a),
                                            static_cast<const float*>(call.b), static_cast<float*>(call.c), stream);
      if (call.scale_a == nullptr || call.scale_b == nullptr) return cudaErrorInvalidValue;
      return detail::launch_f8_simt_gemm(call.m, call.n, call.k, call.a, call.b, call.c, call.scale_a, call.scale_b,
                                         stream);
    case GemmKernel::none: break;
  }
  return cudaErrorInvalidValue;
}

}  // namespace assay::kernels
