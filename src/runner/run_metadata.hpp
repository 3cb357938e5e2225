#pragma once
#include <string>
#include <vector>

#include "core/results.hpp"

namespace assay::runner {

std::string utc_now_iso8601();
std::string utc_now_compact();  // 20261122T064800Z, for file names
// HEAD of the git working tree around the current directory; empty when there is none.
std::string git_commit(bool* dirty);
std::string host_name();
// CUDA_*, CUBLAS_*, NVIDIA_TF32_OVERRIDE and similar variables that change what is measured.
std::map<std::string, std::string> relevant_environment();

}  // namespace assay::runner
