#pragma once
#include "core/results.hpp"
#include "measure/sampler.hpp"
#include "suite/suite.hpp"

namespace assay::measure {

// Warm-up, then samples until the stopping rule says stop. Samples taken while the SM clock
// was under throttle_threshold x the reference clock are dropped, and the loop backs off
// for throttle_backoff_s before the next one. Raw samples are kept in the record.
MeasurementRecord run_measurement(Sampler& sampler, const suite::MeasureConfig& cfg);

}  // namespace assay::measure
