// launch_gemm: picks a kernel and a tiling for each call (see gemm_kernels.hpp).
#include <cuda_runtime.h>

#include "kernels/gemm/gemm_configs.hpp"
#include "kernels/gemm/gemm_detail.hpp"
#include "kernels/gemm/gemm_kernels.hpp"
#include "kernels/gemm/hopper/hopper_gemm.hpp"
#include "kernels/gemm/hopper/tensor_maps.hpp"

namespace assay::kernels {

namespace {

hopper::Elem hopper_elem(GemmDtype t) {
  return t == GemmDtype::f16 ? hopper::Elem::f16 : t == GemmDtype::bf16 ? hopper::Elem::bf16 : hopper::Elem::e4m3;
}

const hopper::DeviceFacts& current_facts() {
  int device = 0;
  if (cudaGetDevice(&device) != cudaSuccess) device = -1;
  return hopper::device_facts(device);
}

// Why the Hopper kernel cannot take this call, or "" when it can.
std::string hopper_refusal(const GemmCall& call) {
  if (call.dtype == GemmDtype::f32) return "the Hopper kernel has no f32 path";
  if (!current_facts().hopper) return "the Hopper kernel needs compute capability 9.0";
  if (!hopper::eligible(hopper_elem(call.dtype), call.m, call.n, call.k, call.a, call.b, call.c))
    return call.dtype == GemmDtype::f8e4m3
               ? "the Hopper kernel needs k % 16 == 0, n % 8 == 0 and 16-byte aligned A, B, C"
               : "the Hopper kernel needs k % 8 == 0, n % 8 == 0 and 16-byte aligned A, B, C";
  return {};
}

GemmPlan choose(const GemmCall& call, std::string_view config) {
  GemmPlan c;
  if (call.m < 1 || call.n < 1 || call.k < 1) {
    c.unavailable = "m, n and k must be at least 1";
    return c;
  }
  const bool tensor16 = call.dtype == GemmDtype::f16 || call.dtype == GemmDtype::bf16;
  if (config == "auto") {
    if (call.dtype != GemmDtype::f32 && hopper_refusal(call).empty()) {
      c.kernel = GemmKernel::hopper;
      const hopper::TileChoice t =
          hopper::choose_tile(call.dtype == GemmDtype::f8e4m3, call.m, call.n, call.k, current_facts().sms);
      c.tile_m = t.tile_m;
      c.tile_n = t.tile_n;
      c.cluster = t.cluster;
    } else {
      c.kernel = tensor16 ? GemmKernel::mma_sync : GemmKernel::simt;
    }
    return c;
  }
  for (const hopper::TileShape t : hopper::kTileShapes) {
    const std::string base = "wgmma_" + std::to_string(t.m) + "x" + std::to_string(t.n);
    if (config != base && config != base + "_c2") continue;
    c.cluster = config == base ? 1 : 2;
    c.unavailable = hopper_refusal(call);
    if (c.unavailable.empty() && !hopper::builds(hopper_elem(call.dtype), t.m, t.n))
      c.unavailable = t.m == 192  ? "the 192x192 tile is f16/bf16's alone (fp8's partial sets need 128-row tiles)"
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

GemmPlan plan_gemm(const GemmCall& call, std::string_view config) {
  GemmPlan p = choose(call, config);
  switch (p.kernel) {
    case GemmKernel::hopper: {
      const int bk = call.dtype == GemmDtype::f8e4m3 ? 128 : 64;
      p.name = "wgmma_" + std::to_string(p.tile_m) + "x" + std::to_string(p.tile_n) + "x" + std::to_string(bk) +
               "_s" + std::to_string(hopper::stages(p.tile_m, p.tile_n)) + (p.cluster == 2 ? "_c2" : "") +
               "_persistent";
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
      return hopper::launch(hopper_elem(call.dtype), plan.tile_m, plan.tile_n, plan.cluster, call.m, call.n, call.k,
                            call.a, call.b, call.c, call.scale_a, call.scale_b, stream);
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
