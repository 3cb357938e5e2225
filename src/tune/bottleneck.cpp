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
    case Bottleneck::unknown: return "unknown";
  }
  return "mixed";
}

namespace {

// The larger of two speed-of-light figures and which it was (`first`: a); empty when neither was
// reported.
struct Side {
  std::optional<double> pct;
  std::string unit;
  bool first = true;
};
Side larger(const std::optional<double>& a, const char* a_unit, const std::optional<double>& b, const char* b_unit) {
  if (a && (!b || *a >= *b)) return {a, a_unit, true};
  if (b) return {b, b_unit, false};
  return {std::nullopt, a_unit, true};
}

std::string pct_text(const std::optional<double>& v) { return v ? fmt::format("{:.0f}%", *v) : "not reported"; }

}  // namespace

Diagnosis diagnose(const KernelMetrics& m) {
  // The SM throughput already counts the tensor pipe (its busiest unit); the larger names the side.
  const Side compute = larger(m.tensor_pipe_pct, "tensor pipe", m.sm_pct, "SM throughput");
  const Side memory = larger(m.dram_pct, "DRAM", m.memory_pct, "L1/shared/L2");
  const std::string numbers =
      fmt::format("{} {}, {} {}", compute.unit, pct_text(compute.pct), memory.unit, pct_text(memory.pct));
  if (memory.pct && *memory.pct > 70 && (!compute.pct || *memory.pct >= *compute.pct)) {
    if (memory.first)  // DRAM
      return {Bottleneck::memory, "DRAM > 70%, at least the compute side (" + numbers + ")",
              "memory-bound: pipeline the loads (more stages, TMA), coalesce, and reuse data from shared memory or L2"};
    return {Bottleneck::memory, "L1/shared/L2 > 70%, at least the compute side (" + numbers + ")",
            "memory-bound on chip: look for shared-memory bank conflicts and L1/L2 round trips; larger tiles "
            "held in registers, wider or asynchronous copies"};
  }
  if (compute.pct && *compute.pct > 50)
    return {Bottleneck::compute, compute.unit + " > 50% (memory <= 70%, or below the compute side) (" + numbers + ")",
            "compute-bound: raise occupancy or instruction-level parallelism, cut synchronisation and issue stalls"};
  if (!compute.pct || !memory.pct)
    return {Bottleneck::unknown, "ncu reported no " + std::string(!compute.pct ? "compute" : "memory") +
                                     " throughput, and the other side decides nothing (" + numbers + ")",
            "unknown: profile with the speed-of-light metrics (a newer ncu, or --metric-table for this GPU)"};
  if (*compute.pct < 40 && *memory.pct < 40)
    return {Bottleneck::latency, compute.unit + " < 40% and " + memory.unit + " < 40% (" + numbers + ")",
            "latency-bound: too little work in flight; more warps or tiles per SM, fewer dependent waits"};
  return {Bottleneck::mixed, "neither side dominates (" + numbers + ")", "mixed: look at the top warp stall reasons"};
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
