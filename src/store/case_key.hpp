// The identity of a case across runs: what must be equal for two measurements to be the same
// experiment. Workload, backend, dtype, parameters, measurement mode and GPU model; not the
// bench name (a renamed bench measures the same thing) and not the variant (choosing another
// kernel is exactly what a change may do).
#pragma once

#include <string>

#include "core/results.hpp"

namespace assay::store {

struct CaseKey {
  std::string workload, backend, dtype, params;  // params: "k=2048,m=2048,n=2048"
  std::string mode;  // measurement.mode ("cold+clean" after a clean L2 flush); "" when the case has no measurement
  std::string gpu;   // run.device.name ("host CPU" for the CPU)

  // "gemm/assay/f16/k=2048,m=2048,n=2048 [cold] @ NVIDIA H100 80GB HBM3"
  std::string text() const;
  // The same without the GPU: for comparisons normalised to % of peak across GPU models.
  std::string text_without_gpu() const;
};

CaseKey case_key(const RunRecord& run, const CaseRecord& c);

}  // namespace assay::store
