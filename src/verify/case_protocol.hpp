#pragma once
// The case protocol (DESIGN.md "Checking"), one sequence for every kind of subject:
//   check   (first round): fresh seeded inputs at the check shape, a poisoned output, one call,
//           the fp64 oracle on every element (sampled rows for very large shapes);
//   measure: the seeded inputs of the measured point, samples under the method and criterion;
//   recheck (last round): after the timed calls, one more call on fresh inputs (in-process
//           backends; an adapter's last timed call otherwise) against the oracle on sampled rows.
// A case that fails a check is never timed or reported with a time.
#include "core/results.hpp"
#include "verify/resolved_case.hpp"
#include "verify/subject.hpp"

namespace assay::verify {

// Fills `rec` (status, checks, measurement, summary and derived figures). Statuses it decides
// itself: ok, check-failed, skipped (check only with the check disabled), error (no sample
// kept). Any other failure is thrown for the caller to classify.
void run_case_protocol(const ResolvedCase& rc, Subject& subject, const DeviceRecord& device, CaseRecord& rec);

// The shortest sampling window whose mean power is reported (derived.mean_power_w): ten steps of
// NVML's energy counter (about 100 ms each), so at most ~10% of it is the counter's quantisation.
inline constexpr double kMinPowerWindowS = 1.0;

// The summary of an ok case's samples and the figures derived from it. `d` holds the
// problem's flops and bytes and the device's peak; the rest is computed here.
void summarize_ok(CaseRecord& rec, DerivedRecord d);

}  // namespace assay::verify
