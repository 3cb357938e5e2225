#pragma once
// What `assay run` / `assay check` were asked to do: the CLI fills it, the runner reads it.
#include <cstdint>
#include <optional>

#include "runner/profile.hpp"
#include "runner/tuning_table.hpp"
#include <string>
#include <vector>

namespace assay::runner {

struct RunOptions {
  std::string suite_path;
  std::string tag;
  std::string out_dir = "assay-results";
  std::string device = "0";          // a CUDA device index, or "cpu"
  std::optional<std::string> mode;   // overrides the suite's mode (--mode)
  std::optional<std::uint64_t> rounds;  // overrides every bench's measure.rounds (--rounds)
  std::optional<double> gap_us;         // overrides every bench's measure.gap_us (--gap-us)
  std::optional<std::string> l2_flush;  // overrides every bench's measure.l2_flush (--l2-flush)
  std::optional<std::string> filter; // ECMAScript regex over case ids
  bool check_only = false;
  std::uint64_t seed = 20261122;
  std::vector<std::string> command_line;
  bool isolate = true;  // each case in a worker process (--no-isolate: in this process)
  bool sanitize = false; // check --sanitize: each case's worker also under compute-sanitizer (memcheck, racecheck)
  bool doctor = true;   // print the doctor's one-line summary of the GPU first (--no-doctor)
  int shard_index = 1, shard_count = 1;  // --shard i/n
  std::vector<std::string> devices;      // --devices 0,2 | all: one worker per GPU in parallel
  std::optional<ProfileOptions> profile; // assay profile: each case checked, then profiled (no timing)
  std::optional<TuningTable> tuning;     // --tuning FILE: classes of shapes re-routed to tuned variants
  std::string tuning_path;
};

}  // namespace assay::runner
