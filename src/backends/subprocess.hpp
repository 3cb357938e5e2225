#pragma once
// Runs an external command without a shell: argv as given, stdin fed from a string, stdout
// captured up to a cap, the tail of stderr kept, and a wall-clock limit after which the
// whole process group is killed. Never blocks past the limit, whatever the child does.
#include <chrono>
#include <string>
#include <vector>

namespace assay {

struct SubprocessResult {
  bool started = false;        // false: the program could not be executed (see error)
  std::string error;           // why it could not start
  int exit_code = -1;          // when it exited
  int signal = 0;              // when a signal ended it
  bool timed_out = false;      // killed at the limit
  bool stdout_overflow = false;  // killed for writing more than the cap
  std::string out;             // stdout (at most the cap)
  std::string err_tail;        // the last bytes of stderr
  double wall_s = 0;
};

struct SubprocessLimits {
  double timeout_s = 60;
  std::size_t max_stdout_bytes = 1 << 20;
  std::size_t stderr_tail_bytes = 4096;
  // What the child's group gets when assay is interrupted (core/interrupt.hpp): SIGKILL for a
  // worker or adapter, SIGTERM for a child that is to finish its own results first.
  int signal_on_interrupt = 9;  // SIGKILL
};

SubprocessResult run_subprocess(const std::vector<std::string>& argv, const std::string& stdin_text,
                                const SubprocessLimits& limits);

// Splits a command line into words the way a POSIX shell would for plain words, single and
// double quotes and backslashes, without expansions. Throws InputError on an open quote.
std::vector<std::string> split_command(const std::string& command);

// The executable `name` in a PATH folder, else the first of `fallbacks` that is executable;
// empty when none is (compute-sanitizer, ncu).
std::string find_program(const std::string& name, const std::vector<std::string>& fallbacks);

}  // namespace assay
