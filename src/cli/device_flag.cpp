#include "cli/device_flag.hpp"

#include <regex>

#include "core/error.hpp"

namespace assay::cli {

bool printable_ascii(const std::string& s) {
  for (char c : s)
    if (static_cast<unsigned char>(c) < 0x20 || static_cast<unsigned char>(c) >= 0x7f) return false;
  return true;
}

void check_device_flag(const std::string& device) {
  static const std::regex index("[0-9]{1,4}");
  if (device != "cpu" && !std::regex_match(device, index))
    throw InputError("--device '" + (printable_ascii(device) ? device : std::string("?")) +
                     "': use 'cpu' or a GPU index (0, 1, ...)");
}

}  // namespace assay::cli
