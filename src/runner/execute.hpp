#pragma once
// One resolved case in this process: its subject chosen by the backend's target, the GPU
// watched by NVML while an in-process CUDA case runs, and the case protocol run on it.
#include "core/results.hpp"
#include "runner/devices.hpp"
#include "verify/resolved_case.hpp"

namespace assay::runner {

// Every failure becomes the record's status (skipped, error, crashed for a GPU fault), never
// an exception.
CaseRecord execute_case(const verify::ResolvedCase& rc, Executors& ex);

}  // namespace assay::runner
