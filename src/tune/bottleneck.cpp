#include "tune/bottleneck.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <stdexcept>

namespace assay::tune {

std::string bottleneck_name(Bottleneck b) {
  switch (b) {
    case Bottleneck::compute: return "compute-bound";
    case Bottleneck::memory: return "memory-bound";
    case Bottleneck::latency: return "latency-bound";
    case Bottleneck::mixed: return "mixed";
  }
  return "mixed";
}

Diagnosis diagnose(const KernelMetrics& m) {
  const bool tensor = m.tensor_pipe_pct >= 1.0;
  const double compute = tensor ? m.tensor_pipe_pct : m.sm_pct;
  const std::string what = tensor ? "tensor pipe" : "SM throughput";
  const std::string numbers = fmt::format("{} {:.0f}%, DRAM {:.0f}%", what, compute, m.dram_pct);
  if (m.dram_pct > 70)
    return {Bottleneck::memory, "DRAM > 70% (" + numbers + ")",
            "memory-bound: pipeline the loads (more stages, TMA), coalesce, and reuse data from shared memory or L2"};
  if (compute > 50)
    return {Bottleneck::compute, what + " > 50% and DRAM <= 70% (" + numbers + ")",
            "compute-bound: raise occupancy or instruction-level parallelism, cut synchronisation and issue stalls"};
  if (compute < 40 && m.dram_pct < 40)
    return {Bottleneck::latency, what + " < 40% and DRAM < 40% (" + numbers + ")",
            "latency-bound: too little work in flight; more warps or tiles per SM, fewer dependent waits"};
  return {Bottleneck::mixed, "neither pipe dominates (" + numbers + ")",
          "mixed: look at the top warp stall reasons"};
}

RooflinePoint roofline(double flops, double min_bytes, double time_ns, double peak_tflops, double peak_gbs) {
  for (double v : {flops, min_bytes, time_ns, peak_tflops, peak_gbs})
    if (!(v > 0) || !std::isfinite(v)) throw std::invalid_argument("roofline: every input must be positive and finite");
  RooflinePoint p;
  p.intensity = flops / min_bytes;
  const double memory_roof = p.intensity * peak_gbs / 1e3;  // GB/s x FLOP/B = GFLOP/s; / 1e3: TFLOP/s
  p.under_memory_roof = memory_roof < peak_tflops;
  p.bound_tflops = std::min(peak_tflops, memory_roof);
  p.achieved_tflops = flops / time_ns / 1e3;
  p.fraction = p.achieved_tflops / p.bound_tflops;
  return p;
}

}  // namespace assay::tune
