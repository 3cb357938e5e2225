#include "store/case_key.hpp"

#include "core/ids.hpp"

namespace assay::store {

std::string CaseKey::text_without_gpu() const {
  return workload + "/" + backend + "/" + dtype + "/" + params + " [" + mode + "]";
}

std::string CaseKey::text() const { return text_without_gpu() + " @ " + gpu; }

CaseKey case_key(const RunRecord& run, const CaseRecord& c) {
  return {c.workload, c.backend, c.dtype, params_string(c.params), c.measurement ? c.measurement->mode : "",
          run.device.name};
}

}  // namespace assay::store
