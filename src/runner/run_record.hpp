#pragma once
// The metadata of a run for its results document: versions, commit, host, suite, device,
// libraries and every setting in force.
#include <string>
#include <vector>

#include "core/results.hpp"
#include "runner/devices.hpp"
#include "runner/run_options.hpp"
#include "suite/suite.hpp"

namespace assay::runner {

// `devices`: the devices the run's cases are spread over (runner/devices.hpp).
RunRecord describe_run(const RunOptions& opt, const suite::Suite& s, const Executors& ex,
                       const std::vector<std::string>& devices);

}  // namespace assay::runner
