#pragma once
// The tuning table (issue 29 item 4): what `assay tune` learned, as shape class -> the variant
// to run there, and how `assay run --tuning FILE` applies it. A shape class is the dtype and
// each parameter's power-of-two bucket (a 0/1 flag exactly), so that the table speaks for the
// shapes near the ones measured and for no others: a case outside every class runs the
// backend's own heuristic. File: JSON, schema "assay.tuning" version 1 (docs/tune.md).
#include <optional>
#include <string>
#include <vector>

#include "workloads/workload.hpp"

namespace assay::runner {

struct TuneRunOutcome;  // runner/tune_run.hpp

// "f16/k~2^12,m~2^12,n~2^12" (a parameter v >= 2 in [2^e, 2^(e+1)) is "~2^e"; 0 and 1 exactly).
std::string shape_class(const std::string& dtype, const Params& params);

// "assay@wgmma_128x256" -> "assay"; a backend without '@' is its own family.
std::string backend_family(const std::string& backend);

struct TuningEntry {
  std::string shape_class;
  std::string variant;             // the tune variant's name
  std::string backend;             // what runs the class's cases
  std::vector<std::string> env;    // NAME=value for their workers
  double speedup = 0;              // geomean over the class's measured shapes, against the tune's baseline
  std::vector<std::string> shapes; // the case ids it was measured on
};

struct TuningTable {
  std::string suite, bench, workload, baseline;
  std::string applies_to;  // the backend whose cases the table re-routes (the variants' family)
  std::vector<TuningEntry> entries;
  // The entry for a case of `backend` (nullptr: none, the backend's heuristic runs it).
  const TuningEntry* find(const std::string& backend, const std::string& workload, const std::string& dtype,
                          const Params& params) const;
};

// From a tune run: only the variant of the promotion (the best of the elite, past the drop rules)
// gets entries, since only its speedup was confirmed by paired sessions: where it was promoted,
// every class (tuned against the backend itself: every class with a shape FASTER), else only the
// classes whose every shape the promotion found FASTER. nullopt with `why` when no class has an
// entry or the variants belong to no one backend (the table could not be applied).
std::optional<TuningTable> make_tuning_table(const TuneRunOutcome& t, std::string* why);

std::string tuning_table_json(const TuningTable& t);
// Throws InputError naming the file and the field: a workload or backend unknown here, a class
// that is no shape_class() (or one given twice), a speedup that is not a positive number.
TuningTable load_tuning_table(const std::string& path);

}  // namespace assay::runner
