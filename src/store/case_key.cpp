#include "store/case_key.hpp"

namespace assay::store {

std::string params_text(const std::map<std::string, std::int64_t>& params) {
  std::string s;
  for (const auto& [name, value] : params) s += (s.empty() ? "" : ",") + name + "=" + std::to_string(value);
  return s;
}

std::string CaseKey::text_without_gpu() const {
  return workload + "/" + backend + "/" + dtype + "/" + params + " [" + mode + "]";
}

std::string CaseKey::text() const { return text_without_gpu() + " @ " + gpu; }

CaseKey case_key(const RunRecord& run, const CaseRecord& c) {
  return {c.workload, c.backend, c.dtype, params_text(c.params), c.measurement ? c.measurement->mode : "",
          run.device.name};
}

}  // namespace assay::store
