// The SM clock a case ran at, for the run and repeat tables.
#pragma once

#include "core/results.hpp"

namespace assay::report {

// The median of the kept samples' SM clocks (the sampler's clock probe), leaving out the zeros of
// probes that saw no timer tick; 0 when no sample has one (host, cpu, adapters).
double median_sm_clock_mhz(const MeasurementRecord& m);

}  // namespace assay::report
