#pragma once
// Crash isolation: every case runs in a worker process of this same binary
// (`assay __worker`, the request on stdin, one case record as JSON on stdout). A case that
// faults, aborts or hangs takes only its worker with it; the GPU is clean again for the next
// case because the driver tears down the dead process's context.
#include "runner/runner.hpp"

namespace assay::runner {

// Runs `pc` in a worker and returns its record; a worker that dies is `crashed`, one killed
// at the per-case limit is `timeout`, both with the tail of its stderr.
CaseRecord run_case_in_worker(const PlannedCase& pc, const RunOptions& opt, const CaseRecord& planned,
                              const CaseRound& round = {});

// The worker's side: reads the request from stdin, runs the case in this process, prints the
// record. Returns the process exit code.
int worker_main();

// The limit of one case's worker (suite case_timeout_s, or derived from its budgets).
double case_timeout_s(const PlannedCase& pc);

}  // namespace assay::runner
