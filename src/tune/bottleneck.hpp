// Why a kernel is slow, from its Nsight Compute metrics (issue 29): where it sits on the GPU's
// roofline, and a bottleneck class from the playbooks' decision tree with one line of advice.
// Pure functions over numbers: the metric names per architecture and the ncu runs live elsewhere
// (assay profile); these are tested on tables in CI.
#pragma once

#include <optional>
#include <string>

namespace assay::tune {

// What the decision tree reads, as % of the GPU's peak (Nsight Compute's "speed of light").
struct KernelMetrics {
  double tensor_pipe_pct = 0;  // tensor pipe active (the wgmma pipe on sm_90, else the mma pipe)
  double sm_pct = 0;           // compute (SM) throughput
  double dram_pct = 0;         // DRAM throughput
};

enum class Bottleneck { compute, memory, latency, mixed };
std::string bottleneck_name(Bottleneck b);  // "compute-bound", "memory-bound", "latency-bound", "mixed"

struct Diagnosis {
  Bottleneck kind = Bottleneck::mixed;
  std::string rule;    // which branch of the tree, with the numbers
  std::string advice;  // one line
};

// The tree, in this order:
//   DRAM > 70%                                   memory-bound: pipeline the loads, coalesce, reuse
//   compute > 50% and DRAM < 70%                 compute-bound: occupancy, synchronisation, issue
//   compute < 40% and DRAM < 40%                 latency-bound: too little work in flight
//   otherwise                                    mixed
// "compute" is the tensor pipe for a tensor-core kernel; for a kernel that uses none (tensor pipe
// under 1%), the SM throughput, so that a CUDA-core kernel can be compute-bound too.
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
