#pragma once
// Crash isolation: every case runs in a worker process of this same binary
// (`assay __worker`, the resolved case as JSON on stdin, one case record as JSON on stdout).
// The worker never opens the suite file: a suite edited during a run cannot change what a
// later worker measures. A case that
// faults, aborts or hangs takes only its worker with it; the GPU is clean again for the next
// case because the driver tears down the dead process's context.
#include <string>
#include <vector>

#include "core/results.hpp"
#include "core/text_syntax.hpp"
#include "verify/resolved_case.hpp"

namespace assay::runner {

// Which assay binary a worker runs: this one (path empty), or another build's (`assay ab`), with
// extra environment settings ("NAME=value") for it, and the command it runs under, if any
// (`assay profile`: the profiler's command line, which ends where the worker's begins).
// A setting passed to workers through env(1): NAME=value, NAME a shell-style variable name (env
// takes anything else as its option or command). Suites, tune variants, tables and ab check it.
using assay::is_env_setting;  // core/text_syntax.hpp

struct WorkerProgram {
  std::string path;
  std::vector<std::string> env;
  std::vector<std::string> wrapper;
};

// Runs `rc` in a worker and returns its record; a worker that dies is `crashed`, one killed
// after timeout_s is `timeout`, both with the tail of its stderr. With `sanitize` (check only),
// a CUDA case's worker runs again under compute-sanitizer memcheck and racecheck.
CaseRecord run_case_in_worker(const verify::ResolvedCase& rc, double timeout_s, bool sanitize,
                              const WorkerProgram& program = {});

// The worker's side: reads the resolved case from stdin, runs it in this process, prints the
// record. Returns the process exit code.
int worker_main();

}  // namespace assay::runner
