#pragma once
// Runs the built assay binary for end-to-end tests: exit code and output, fresh folders.
#include <fcntl.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <array>
#include <cerrno>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "measure/executor.hpp"

namespace assay::test {

namespace fs = std::filesystem;

struct CliResult {
  int code;
  std::string out;  // stdout and stderr together
};

// The assay binary beside this test executable, and the source tree: the configured one when
// it exists, else the working directory (on the GPU machine the tree is copied elsewhere).
inline std::string assay_bin() { return (fs::read_symlink("/proc/self/exe").parent_path() / "assay").string(); }
// The same command line with the planted-fault backends added (tests/backends): the release
// binary does not hold them.
inline std::string assay_testbed_bin() {
  return (fs::read_symlink("/proc/self/exe").parent_path() / "assay-testbed").string();
}
inline std::string source_dir() {
  return fs::exists(ASSAY_SOURCE_DIR "/suites") ? ASSAY_SOURCE_DIR : fs::current_path().string();
}

inline bool have_gpu() {
  std::string why;
  return measure::cuda_devices(&why) > 0;
}

// Runs `bin args` from the source tree through the shell, stdout and stderr together. `env` is
// a prefix of VAR='value' assignments (test-controlled, never case data).
inline CliResult run_program(const std::string& bin, const std::string& args, const std::string& env = "") {
  const std::string cmd = "cd " + source_dir() + " && " + env + " " + bin + " " + args + " 2>&1";
  CliResult r{-1, {}};
  FILE* p = popen(cmd.c_str(), "r");
  std::array<char, 4096> buf{};
  while (fgets(buf.data(), buf.size(), p)) r.out += buf.data();
  const int status = pclose(p);
  r.code = WIFEXITED(status) ? WEXITSTATUS(status) : -1;
  return r;
}

// assay, or with ASSAY_TEST_BACKENDS=1 in `env` the test binary that holds the planted faults.
inline CliResult run_assay(const std::string& args, const std::string& env = "") {
  const bool faults = env.find("ASSAY_TEST_BACKENDS=1") != std::string::npos;
  return run_program(faults ? assay_testbed_bin() : assay_bin(), args, env);
}

// Runs assay with these arguments in `cwd` without a shell (arguments reach it verbatim),
// ASSAY_HISTORY unset so that only --history names a database.
inline CliResult run_assay_in(const fs::path& cwd, const std::vector<std::string>& args) {
  int pipe_fds[2];
  if (pipe(pipe_fds) != 0) return {-1, {}};
  const std::string bin = assay_bin();
  const pid_t pid = fork();
  if (pid == 0) {
    dup2(pipe_fds[1], 1);
    dup2(pipe_fds[1], 2);
    close(pipe_fds[0]);
    if (chdir(cwd.c_str()) != 0) _exit(127);
    unsetenv("ASSAY_HISTORY");
    std::vector<char*> argv{const_cast<char*>(bin.c_str())};
    for (const auto& a : args) argv.push_back(const_cast<char*>(a.c_str()));
    argv.push_back(nullptr);
    execv(bin.c_str(), argv.data());
    _exit(127);
  }
  close(pipe_fds[1]);
  CliResult r{-1, {}};
  char buf[4096];
  for (ssize_t n; (n = read(pipe_fds[0], buf, sizeof buf)) > 0;) r.out.append(buf, static_cast<std::size_t>(n));
  close(pipe_fds[0]);
  int status = 0;
  waitpid(pid, &status, 0);
  r.code = WIFEXITED(status) ? WEXITSTATUS(status) : -1;
  return r;
}

// Starts `bin` with these arguments in the background, output discarded, with `env` (NAME, value)
// set in the child only; returns its pid for the test to signal and reap.
inline pid_t spawn_quiet(const std::string& bin, const std::vector<std::string>& args,
                         const std::vector<std::pair<std::string, std::string>>& env = {}) {
  const pid_t pid = fork();
  if (pid == 0) {
    const int null_fd = ::open("/dev/null", O_WRONLY);
    dup2(null_fd, 1);
    dup2(null_fd, 2);
    signal(SIGHUP, SIG_DFL);  // as from a terminal, whatever the test runner's (nohup ignores it)
    for (const auto& [name, value] : env) setenv(name.c_str(), value.c_str(), 1);
    std::vector<char*> argv{const_cast<char*>(bin.c_str())};
    for (const auto& a : args) argv.push_back(const_cast<char*>(a.c_str()));
    argv.push_back(nullptr);
    execv(bin.c_str(), argv.data());
    _exit(127);
  }
  return pid;
}

struct MarkedProcess {
  pid_t pid;
  std::string cmdline;  // arguments joined by spaces
};

// The whole of a /proc file, or nothing when the process went away meanwhile: a read of a
// vanished process fails with ESRCH, which std::ifstream turns into an exception.
inline std::optional<std::string> read_proc_file(const fs::path& path) {
  const int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
  if (fd < 0) return std::nullopt;
  std::string text;
  char buf[4096];
  for (;;) {
    const ssize_t n = ::read(fd, buf, sizeof buf);
    if (n == 0) break;
    if (n < 0) {
      if (errno == EINTR) continue;
      ::close(fd);
      return std::nullopt;
    }
    text.append(buf, static_cast<size_t>(n));
  }
  ::close(fd);
  return text;
}

// The live processes (zombies excluded) whose environment holds `mark`: what a run that was
// started with the mark in its environment left behind (its workers and adapters inherit it).
// A process that ends while it is read is not live, and is left out.
inline std::vector<MarkedProcess> processes_marked(const std::string& mark) {
  std::vector<MarkedProcess> found;
  std::error_code ec;
  for (const auto& e : fs::directory_iterator("/proc", ec)) {
    const std::string name = e.path().filename().string();
    if (name.find_first_not_of("0123456789") != std::string::npos) continue;
    const auto env = read_proc_file(e.path() / "environ");
    if (!env || env->find(mark) == std::string::npos) continue;
    const auto stat = read_proc_file(e.path() / "stat");
    if (!stat) continue;
    // The state follows the parenthesised command name, which may itself hold spaces.
    const size_t close = stat->rfind(')');
    if (close == std::string::npos || close + 2 >= stat->size() || (*stat)[close + 2] == 'Z') continue;
    auto line = read_proc_file(e.path() / "cmdline");
    if (!line) continue;
    for (char& c : *line)
      if (c == '\0') c = ' ';
    found.push_back({std::stoi(name), *line});
  }
  return found;
}

inline fs::path fresh_dir(const std::string& name) {
  const fs::path d = fs::temp_directory_path() / ("assay-cli-test-" + name + "-" + std::to_string(getpid()));
  fs::remove_all(d);
  return d;
}

inline std::vector<fs::path> files_in(const fs::path& d, const std::string& ext) {
  std::vector<fs::path> out;
  if (!fs::exists(d)) return out;
  for (const auto& e : fs::directory_iterator(d))
    if (e.path().extension() == ext) out.push_back(e.path());
  return out;
}

}  // namespace assay::test
