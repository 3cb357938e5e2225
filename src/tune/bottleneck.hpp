// Why a kernel is slow, from its Nsight Compute metrics (issue 29): where it sits on the GPU's
// roofline, and a bottleneck class from the playbooks' decision tree with one line of advice.
// Pure functions over numbers: the metric names per architecture and the ncu runs live elsewhere
// (assay profile); these are tested on tables in CI.
#pragma once

#include <optional>
#include <string>

namespace assay::tune {

// What the decision tree reads, as % of the GPU's peak (Nsight Compute's "speed of light"); a
// metric ncu did not report is empty, never 0.
struct KernelMetrics {
  std::optional<double> tensor_pipe_pct;  // tensor pipe active (the wgmma pipe on sm_90, else the mma pipe)
  std::optional<double> sm_pct;           // compute (SM) throughput: its busiest unit, the tensor pipe included
  std::optional<double> dram_pct;         // DRAM throughput
  std::optional<double> memory_pct;       // memory throughput: the busiest of L1/shared, L2 and DRAM
};

enum class Bottleneck { compute, memory, latency, mixed, unknown };
// "compute-bound", "memory-bound", "latency-bound", "mixed", "unknown"
std::string bottleneck_name(Bottleneck b);

struct Diagnosis {
  Bottleneck kind = Bottleneck::mixed;
  std::string rule;    // which branch of the tree, with the numbers
  std::string advice;  // one line
};

// The tree, on compute = max(SM throughput, tensor pipe) and memory = max(DRAM, memory
// throughput), in this order:
//   memory > 70% and memory >= compute           memory-bound (DRAM: pipeline the loads, coalesce,
//                                                reuse; L1/shared/L2: bank conflicts, round trips)
//   compute > 50%                                compute-bound: occupancy, synchronisation, issue
//   compute < 40% and memory < 40%               latency-bound: too little work in flight
//   otherwise                                    mixed
// A side ncu did not report decides nothing: where the tree needs it, the class is unknown.
Diagnosis diagnose(const KernelMetrics& m);

// Where a kernel sits under the roofs: intensity = flops / min_bytes; bound = min(peak,
// intensity x bandwidth); achieved = flops / time; fraction = achieved / bound.
struct RooflinePoint {
  double intensity = 0;         // FLOP per byte
  double bound_tflops = 0;      // the roof at that intensity
  double achieved_tflops = 0;
  double fraction = 0;          // of the bound
  bool under_memory_roof = false;  // the bandwidth roof is the lower one there
};
// Throws std::invalid_argument for a non-positive input.
RooflinePoint roofline(double flops, double min_bytes, double time_ns, double peak_tflops, double peak_gbs);

}  // namespace assay::tune
