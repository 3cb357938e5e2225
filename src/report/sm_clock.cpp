#include "report/sm_clock.hpp"

#include <vector>

#include <fmt/format.h>

#include "stats/summary.hpp"

namespace assay::report {

double median_sm_clock_mhz(std::span<const double> clocks_mhz) {
  std::vector<double> known;
  for (double mhz : clocks_mhz)
    if (mhz > 0) known.push_back(mhz);
  return known.empty() ? 0 : stats::median_of(known);
}

std::string sm_clock_text(double mhz) { return mhz > 0 ? fmt::format("{:.0f}", mhz) : "-"; }

}  // namespace assay::report
