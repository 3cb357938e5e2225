// From ncu's rows of one case to its profile block (core/results.hpp ProfileRecord): launches
// grouped by kernel, the median of each metric over a kernel's launches, each kernel's
// bottleneck class, and the roofline of one call of the case.
#pragma once

#include <cstdint>
#include <string>

#include "core/results.hpp"
#include "tune/ncu_table.hpp"

namespace assay::tune {

struct ProfileContext {
  std::uint64_t calls = 1;       // calls of the case made inside the profiler's window
  double flops = 0, min_bytes = 0;
  double peak_tflops = 0;        // 0: unknown (no roofline then)
  double peak_gbs = 0;
  std::string tool, clock_control;
};

// assay's own kernels (the blocking, clock-probe and spin kernels of the samplers) are never
// launched inside the window; one seen there all the same is left out and named in `excluded`.
bool is_assay_timing_kernel(const std::string& kernel_name);

// Throws std::invalid_argument when no kernel of the case is in `table` (nothing was profiled:
// the window was never opened, or the case ran no GPU kernel).
ProfileRecord summarize_profile(const NcuTable& table, const MetricTable& metrics, const ProfileContext& ctx);

}  // namespace assay::tune
