#include "runner/repeat.hpp"

#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <filesystem>
#include <set>

#include "core/error.hpp"

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
    ::setenv(kRunGroupEnv, group_id.c_str(), 1);
    ::setenv(kSessionEnv, session.c_str(), 1);
    ::execv("/proc/self/exe", args.data());
    _exit(4);  // exec failed: an infrastructure error
  }
  int status = 0;
  while (::waitpid(pid, &status, 0) < 0)
    if (errno != EINTR) throw InternalError(std::string("--repeat: waitpid: ") + std::strerror(errno));
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
  }
  return outcomes;
}

int combined_exit_code(const std::vector<SessionOutcome>& sessions) {
  const auto any = [&](int code) {
    return std::any_of(sessions.begin(), sessions.end(), [&](const SessionOutcome& s) { return s.exit_code == code; });
  };
  if (any(1)) return 1;
  for (const auto& s : sessions)
    if (s.exit_code != 0) return s.exit_code;
  return 0;
}

}  // namespace assay::runner
