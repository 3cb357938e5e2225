#pragma once
// --device as `run`, `check`, `ab` and `tune` take it: 'cpu' or a GPU index (which indices exist
// is the runner's to say). Checked before any case runs.
#include <string>

namespace assay::cli {

bool printable_ascii(const std::string& s);

// Throws InputError "--device 'X': use 'cpu' or a GPU index (0, 1, ...)".
void check_device_flag(const std::string& device);

}  // namespace assay::cli
