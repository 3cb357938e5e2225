// The repeat protocol: `assay run --repeat N` runs the suite N times, each session in a fresh
// process (this binary again, through /proc/self/exe, without a shell), so that no state of one
// session (allocations, caches, clocks left high, JIT) carries into the next. The sessions share
// one folder and one run group id; each writes its own results document there.
#pragma once

#include <functional>
#include <string>
#include <vector>

namespace assay::runner {

// Environment variables through which the parent tells a session which group it belongs to;
// the session records them in the history.
inline constexpr const char* kRunGroupEnv = "ASSAY_RUN_GROUP";
inline constexpr const char* kSessionEnv = "ASSAY_SESSION";  // "<index>/<count>", 1-based

// The session's command line: `argv` without `--repeat N` / `--repeat=N` and without any
// `--out`, with `--out <group_dir>` appended.
std::vector<std::string> session_arguments(const std::vector<std::string>& argv, const std::string& group_dir);

struct SessionOutcome {
  int exit_code = 0;
  std::string results_path;  // "" when the session wrote none
};

// Runs `count` sessions one after the other and returns what each gave. Stops early when a
// session exits 2 (nothing can run here) or 3 (bad usage or input): the others would too.
std::vector<SessionOutcome> run_sessions(const std::vector<std::string>& session_argv, int count,
                                         const std::string& group_dir, const std::string& group_id,
                                         const std::function<void(const std::string&)>& progress);

// The exit code of the whole repeat: 1 if a session found a check failure, else 3, 4 or 2
// from the first session that gave one, else 0.
int combined_exit_code(const std::vector<SessionOutcome>& sessions);

}  // namespace assay::runner
