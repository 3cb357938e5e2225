// The SM clock a case ran at, for the run and repeat tables.
#pragma once

#include <span>
#include <string>

namespace assay::report {

// The median of the clocks that are known: a sample's clock probe that saw no timer tick, or a
// session without a probe, records 0, which is left out. 0 when none is known (host, cpu, adapters).
double median_sm_clock_mhz(std::span<const double> clocks_mhz);

// A clock for a table cell: whole MHz, or "-" when unknown (0).
std::string sm_clock_text(double mhz);

}  // namespace assay::report
