// libFuzzer target: any bytes as a results document (what `compare` and `merge` read). Bad
// input must be an InputError naming the field, never a crash or another exception; a document
// that is accepted must write back and read again.
#include <cstddef>
#include <cstdint>
#include <string>

#include "core/error.hpp"
#include "core/results.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const std::string text(reinterpret_cast<const char*>(data), size);
  try {
    const assay::ResultsDocument doc = assay::parse_results_json(text, "fuzz.json");
    assay::parse_results_json(assay::to_json_text(doc), "fuzz-rewritten.json");
  } catch (const assay::InputError&) {
  }
  return 0;
}
