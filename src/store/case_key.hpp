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

// A key's mode for a measurement's mode and L2 flush: "cold", or "cold+clean" after a clean flush.
std::string key_mode(const std::string& mode, const std::string& l2_flush);
// Of a key's text (text() or text_without_gpu()): its mode ("gemm/… [cold] @ H100" -> "cold"), and
// the text with the mode empty ("gemm/… [] @ H100"). Workload, backend, dtype and parameters hold
// no " [", so the first is the mode's.
std::string mode_in_key_text(const std::string& text);
std::string key_text_without_mode(const std::string& text);

}  // namespace assay::store
