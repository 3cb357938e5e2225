// libFuzzer target: any bytes as a suite file. Bad input must be an InputError (exit 3 in the
// CLI), never a crash, a hang or another exception; a suite that parses is expanded too.
#include <cstddef>
#include <cstdint>
#include <string>

#include "core/error.hpp"
#include "suite/suite.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const std::string text(reinterpret_cast<const char*>(data), size);
  try {
    const assay::suite::Suite s = assay::suite::parse_suite(text, "fuzz.toml");
    for (const auto& b : s.benches) assay::suite::expand_points(b);
  } catch (const assay::InputError&) {
  }
  return 0;
}
