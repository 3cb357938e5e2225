#include "store/case_key.hpp"

#include "core/ids.hpp"
#include "core/results.hpp"

namespace assay::store {

std::string CaseKey::text_without_gpu() const {
  return workload + "/" + backend + "/" + dtype + "/" + params + " [" + mode + "]";
}

std::string CaseKey::text() const { return text_without_gpu() + " @ " + gpu; }

// A clean L2 flush is another measurement of the case (its DRAM-bound times differ by up to a
// fifth: docs/measurement-notes.md), so it is another series in the history and comparisons;
// the default memset flush keeps the plain mode, as every key written before the choice existed.
CaseKey case_key(const RunRecord& run, const CaseRecord& c) {
  std::string mode = c.measurement ? c.measurement->mode : "";
  if (c.measurement && c.measurement->l2_flush == kL2FlushClean) mode += "+" + std::string(kL2FlushClean);
  return {c.workload, c.backend, c.dtype, params_string(c.params), mode, run.device.name};
}

}  // namespace assay::store
