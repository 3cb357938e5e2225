#include "runner/repeat.hpp"

#include <signal.h>
#include <sys/prctl.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <filesystem>
#include <set>

#include "core/error.hpp"
#include "core/interrupt.hpp"

namespace assay::runner {
namespace fs = std::filesystem;

namespace {

std::set<std::string> json_files(const std::string& dir) {
  std::set<std::string> files;
  std::error_code ec;
  for (const auto& e : fs::directory_iterator(dir, ec))
    if (e.path().extension() == ".json") files.insert(e.path().string());
  return files;
}

// fork + execv of this very binary; the child gets the group in its environment.
int run_one(const std::vector<std::string>& argv, const std::string& group_id, int index, int count) {
  std::vector<char*> args;
  for (const auto& a : argv) args.push_back(const_cast<char*>(a.c_str()));
  args.push_back(nullptr);
  const std::string session = std::to_string(index) + "/" + std::to_string(count);
  const pid_t pid = ::fork();
  if (pid < 0) throw InternalError(std::string("--repeat: cannot fork: ") + std::strerror(errno));
  if (pid == 0) {
    // A group of its own, told SIGTERM when this process dies or is interrupted: the session
    // then stops its workers and writes its results with what it finished.
    ::setpgid(0, 0);
    ::prctl(PR_SET_PDEATHSIG, SIGTERM);
    ::setenv(kRunGroupEnv, group_id.c_str(), 1);
    ::setenv(kSessionEnv, session.c_str(), 1);
    ::execv("/proc/self/exe", args.data());
    _exit(4);  // exec failed: an infrastructure error
  }
  ::setpgid(pid, pid);
  register_child_group(pid, SIGTERM);
  int status = 0;
  while (::waitpid(pid, &status, 0) < 0)
    if (errno != EINTR) {
      unregister_child_group(pid);
      throw InternalError(std::string("--repeat: waitpid: ") + std::strerror(errno));
    }
  unregister_child_group(pid);
  if (WIFEXITED(status)) return WEXITSTATUS(status);
  return static_cast<int>(ExitCode::internal);  // killed by a signal
}

}  // namespace

std::vector<std::string> session_arguments(const std::vector<std::string>& argv, const std::string& group_dir) {
  std::vector<std::string> out;
  for (std::size_t i = 0; i < argv.size(); ++i) {
    const std::string& a = argv[i];
    if (a == "--repeat" || a == "--out") {
      ++i;  // and its value
      continue;
    }
    if (a.starts_with("--repeat=") || a.starts_with("--out=")) continue;
    out.push_back(a);
  }
  out.push_back("--out");
  out.push_back(group_dir);
  return out;
}

std::vector<SessionOutcome> run_sessions(const std::vector<std::string>& session_argv, int count,
                                         const std::string& group_dir, const std::string& group_id,
                                         const std::function<void(const std::string&)>& progress) {
  std::vector<SessionOutcome> outcomes;
  for (int i = 1; i <= count; ++i) {
    progress("session " + std::to_string(i) + "/" + std::to_string(count) + " (" + group_id + ")");
    const auto before = json_files(group_dir);
    SessionOutcome o;
    o.exit_code = run_one(session_argv, group_id, i, count);
    for (const auto& f : json_files(group_dir))
      if (!before.count(f)) o.results_path = f;
    outcomes.push_back(o);
    if (o.exit_code == static_cast<int>(ExitCode::skipped) || o.exit_code == static_cast<int>(ExitCode::bad_input)) break;
    if (interrupt_signal() != 0) break;
  }
  return outcomes;
}

int combined_exit_code(const std::vector<SessionOutcome>& sessions) {
  const auto any = [&](int code) {
    return std::any_of(sessions.begin(), sessions.end(), [&](const SessionOutcome& s) { return s.exit_code == code; });
  };
  if (const int sig = interrupt_signal()) return 128 + sig;
  if (any(1)) return 1;
  for (const auto& s : sessions)
    if (s.exit_code != 0) return s.exit_code;
  return 0;
}

}  // namespace assay::runner
