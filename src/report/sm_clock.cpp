#include "report/sm_clock.hpp"

#include <algorithm>
#include <vector>

#include "stats/summary.hpp"

namespace assay::report {

double median_sm_clock_mhz(const MeasurementRecord& m) {
  std::vector<double> mhz;
  for (double x : m.sm_clock_mhz)
    if (x > 0) mhz.push_back(x);
  if (mhz.empty()) return 0;
  std::sort(mhz.begin(), mhz.end());
  return stats::percentile_sorted(mhz, 50);
}

}  // namespace assay::report
