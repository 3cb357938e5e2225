#pragma once
// Interruption (SIGINT, SIGTERM) of a run: the handlers record the signal and pass it on at
// once to every child process group assay started (workers, adapters, sessions), so that
// nothing keeps running on the GPU; the runner then stops scheduling, marks what did not finish
// `interrupted`, and writes its results. Everything the handler does is async-signal-safe.
#include <sys/types.h>

#include <string>

namespace assay {

// Installs the handlers for SIGINT and SIGTERM (once per process).
void install_interrupt_handlers();

// The signal that interrupted this process, 0 while none has.
int interrupt_signal();

// "SIGINT", "SIGTERM", ...: how records and reports name a signal.
std::string signal_name(int sig);

// While one lives, SIGINT and SIGTERM end the process at once with 128 + the signal: for work
// that has written nothing yet and checks no flag (planning a suite, a --filter regex that
// backtracks for minutes), where the flag alone would leave the signal unanswered.
class ExitAtOnceOnInterrupt {
 public:
  ExitAtOnceOnInterrupt();
  ~ExitAtOnceOnInterrupt();
  ExitAtOnceOnInterrupt(const ExitAtOnceOnInterrupt&) = delete;
  ExitAtOnceOnInterrupt& operator=(const ExitAtOnceOnInterrupt&) = delete;
};

// Child process groups to signal on interruption, with the signal each gets: SIGKILL for
// workers and adapters (their parent records what they leave), SIGTERM for sessions of
// `--repeat` (each writes its own interrupted results). A group started after the
// interruption is signalled at once.
void register_child_group(pid_t pgid, int signal_on_interrupt);
void unregister_child_group(pid_t pgid);

}  // namespace assay
