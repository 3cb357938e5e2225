#pragma once
#include "core/results.hpp"
#include "measure/criterion.hpp"
#include "measure/method.hpp"
#include "measure/sampler.hpp"

namespace assay::measure {

// Cool-down and warm-up as the method says, then samples until the criterion stops. Samples
// taken while the SM clock was under the throttle threshold x the reference clock are dropped,
// and the loop backs off before the next one. Raw samples are kept in the record.
MeasurementRecord run_measurement(Sampler& sampler, const Method& method, const Criterion& criterion);

}  // namespace assay::measure
