#pragma once
// Planning: a suite's benches validated against the registered workloads and backends, and
// expanded into cases (bench x backend x point), in the order they run.
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "suite/suite.hpp"

namespace assay::runner {

// One planned case, before it is resolved (runner/resolve.hpp).
struct PlannedCase {
  const suite::Bench* bench;
  std::string backend;
  suite::Point point;
  std::string id;  // bench/backend/dtype/params, params in name order: k=..,m=..,n=..
};

// Validates the suite against the registered workloads and backends and expands it; the
// backends of one point are adjacent. Throws InputError naming file:line and field.
std::vector<PlannedCase> plan_cases(const suite::Suite& s, const std::optional<std::string>& filter);

// Puts the suite's python_path folders in front of PYTHONPATH for the rest of the process and
// its children (workers, adapters), where `py:MODULE:FUNCTION` modules are imported.
void use_suite_python_path(const suite::Suite& s);

// The identity of a case's point (bench, dtype, parameters): what a shard or a device takes whole.
std::string point_key(const PlannedCase& pc);

// The cases of shard `index` (1-based) of `count`: whole points, dealt round-robin.
std::vector<PlannedCase> shard_cases(std::vector<PlannedCase> planned, int index, int count);

// The point's parameters with the check shape's values put in, and the derived axes that the
// check shape does not name evaluated again (so `n = "m"` follows a check shape's m).
std::map<std::string, std::int64_t> check_params(const suite::Bench& b,
                                                 const std::map<std::string, std::int64_t>& point);

}  // namespace assay::runner
