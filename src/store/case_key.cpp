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
  const std::string mode = c.measurement ? key_mode(c.measurement->mode, c.measurement->l2_flush) : "";
  return {c.workload, c.backend, c.dtype, params_string(c.params), mode, run.device.name};
}

std::string key_mode(const std::string& mode, const std::string& l2_flush) {
  return l2_flush == kL2FlushClean ? mode + "+" + std::string(kL2FlushClean) : mode;
}

std::string mode_in_key_text(const std::string& text) {
  const auto open = text.find(" [");
  if (open == std::string::npos) return "";
  const auto close = text.find(']', open);
  return close == std::string::npos ? "" : text.substr(open + 2, close - open - 2);
}

std::string key_text_without_mode(const std::string& text) {
  const auto open = text.find(" [");
  if (open == std::string::npos) return text;
  const auto close = text.find(']', open);
  return close == std::string::npos ? text : text.substr(0, open + 2) + text.substr(close);
}

}  // namespace assay::store
