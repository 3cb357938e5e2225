#include "backends/subprocess.hpp"

#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <sys/prctl.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstdlib>
#include <sstream>
#include <cstring>

#include "core/error.hpp"
#include "core/interrupt.hpp"

namespace assay {

namespace {

struct Pipe {
  int fd[2] = {-1, -1};
  bool open() { return ::pipe2(fd, O_CLOEXEC) == 0; }
  void close_both() {
    for (int& f : fd)
      if (f >= 0) { ::close(f); f = -1; }
  }
};

void set_nonblocking(int fd) { ::fcntl(fd, F_SETFL, ::fcntl(fd, F_GETFL) | O_NONBLOCK); }

}  // namespace

SubprocessResult run_subprocess(const std::vector<std::string>& argv, const std::string& stdin_text,
                                const SubprocessLimits& limits) {
  SubprocessResult r;
  if (argv.empty()) {
    r.error = "empty command";
    return r;
  }
  Pipe in, out, err, exec_err;
  if (!in.open() || !out.open() || !err.open() || !exec_err.open()) {
    r.error = std::string("pipe: ") + std::strerror(errno);
    in.close_both(); out.close_both(); err.close_both(); exec_err.close_both();
    return r;
  }
  std::vector<char*> args;
  for (const auto& a : argv) args.push_back(const_cast<char*>(a.c_str()));
  args.push_back(nullptr);

  const auto start = std::chrono::steady_clock::now();
  const pid_t parent = ::getpid();
  const pid_t pid = ::fork();
  if (pid < 0) {
    r.error = std::string("fork: ") + std::strerror(errno);
    in.close_both(); out.close_both(); err.close_both(); exec_err.close_both();
    return r;
  }
  if (pid == 0) {
    // Child: its own process group (a timeout kills all it started), killed when its parent
    // dies, however it dies, so no worker or adapter outlives its run. The check after prctl
    // closes the race with a parent that died first.
    ::setpgid(0, 0);
    ::prctl(PR_SET_PDEATHSIG, SIGKILL);
    if (::getppid() != parent) ::_exit(127);
    ::dup2(in.fd[0], 0);
    ::dup2(out.fd[1], 1);
    ::dup2(err.fd[1], 2);
    ::execvp(args[0], args.data());
    const int e = errno;
    (void)!::write(exec_err.fd[1], &e, sizeof e);
    ::_exit(127);
  }
  ::setpgid(pid, pid);
  register_child_group(pid, limits.signal_on_interrupt);
  ::close(in.fd[0]); in.fd[0] = -1;
  ::close(out.fd[1]); out.fd[1] = -1;
  ::close(err.fd[1]); err.fd[1] = -1;
  ::close(exec_err.fd[1]); exec_err.fd[1] = -1;
  int exec_errno = 0;
  if (::read(exec_err.fd[0], &exec_errno, sizeof exec_errno) == sizeof exec_errno) {
    ::waitpid(pid, nullptr, 0);
    unregister_child_group(pid);
    r.error = "cannot execute '" + argv[0] + "': " + std::strerror(exec_errno);
    in.close_both(); out.close_both(); err.close_both(); exec_err.close_both();
    return r;
  }
  exec_err.close_both();
  r.started = true;

  set_nonblocking(in.fd[1]);
  set_nonblocking(out.fd[0]);
  set_nonblocking(err.fd[0]);
  std::size_t written = 0;
  if (stdin_text.empty()) { ::close(in.fd[1]); in.fd[1] = -1; }
  const auto deadline = start + std::chrono::duration_cast<std::chrono::steady_clock::duration>(
                                    std::chrono::duration<double>(limits.timeout_s));
  char buf[65536];
  bool killed = false, reaped = false;
  int status = 0;
  while (out.fd[0] >= 0 || err.fd[0] >= 0) {
    const auto now = std::chrono::steady_clock::now();
    if (now >= deadline) {
      r.timed_out = true;
      break;
    }
    // The child exited, a process it started holds a pipe: read what is left.
    if (!reaped && ::waitpid(pid, &status, WNOHANG) == pid) reaped = true;
    pollfd fds[3];
    int n = 0;
    if (out.fd[0] >= 0) fds[n++] = {out.fd[0], POLLIN, 0};
    if (err.fd[0] >= 0) fds[n++] = {err.fd[0], POLLIN, 0};
    if (in.fd[1] >= 0) fds[n++] = {in.fd[1], POLLOUT, 0};
    const int left = static_cast<int>(std::chrono::duration_cast<std::chrono::milliseconds>(deadline - now).count()) + 1;
    const int ready = ::poll(fds, n, std::min(left, reaped ? 50 : 100));
    if (ready < 0 && errno != EINTR) break;
    if (ready == 0 && reaped) break;
    for (int i = 0; i < n; ++i) {
      if (!fds[i].revents) continue;
      if (fds[i].fd == in.fd[1]) {
        const ssize_t w = ::write(in.fd[1], stdin_text.data() + written, stdin_text.size() - written);
        if (w > 0) written += static_cast<std::size_t>(w);
        if (w < 0 && errno != EAGAIN) written = stdin_text.size();  // the child closed stdin
        if (written == stdin_text.size()) { ::close(in.fd[1]); in.fd[1] = -1; }
        continue;
      }
      const bool is_out = fds[i].fd == out.fd[0];
      const ssize_t got = ::read(fds[i].fd, buf, sizeof buf);
      if (got > 0) {
        if (is_out) {
          r.out.append(buf, static_cast<std::size_t>(got));
          if (r.out.size() > limits.max_stdout_bytes) {
            r.stdout_overflow = true;
            r.out.resize(limits.max_stdout_bytes);
          }
        } else {
          r.err_tail.append(buf, static_cast<std::size_t>(got));
          if (r.err_tail.size() > 2 * limits.stderr_tail_bytes)
            r.err_tail.erase(0, r.err_tail.size() - limits.stderr_tail_bytes);
        }
      } else if (got == 0 || (errno != EAGAIN && errno != EINTR)) {
        int& fd = is_out ? out.fd[0] : err.fd[0];
        ::close(fd);
        fd = -1;
      }
    }
    if (r.stdout_overflow) break;
  }
  if (r.timed_out || r.stdout_overflow) {
    ::kill(-pid, SIGKILL);
    killed = true;
  }
  in.close_both(); out.close_both(); err.close_both();
  // After both pipes closed the child is exiting, after a kill gone promptly; one that closed
  // its pipes but keeps running is killed at the deadline.
  while (!reaped) {
    const pid_t w = ::waitpid(pid, &status, killed ? 0 : WNOHANG);
    if (w == pid || (w < 0 && errno != EINTR)) break;
    if (std::chrono::steady_clock::now() >= deadline) {
      r.timed_out = true;
      ::kill(-pid, SIGKILL);
      killed = true;
      continue;
    }
    ::usleep(2000);
  }
  // Whatever the child left in its group (an adapter's helper) goes with it.
  ::kill(-pid, SIGKILL);
  unregister_child_group(pid);
  if (WIFEXITED(status)) r.exit_code = WEXITSTATUS(status);
  if (WIFSIGNALED(status)) r.signal = WTERMSIG(status);
  if (r.err_tail.size() > limits.stderr_tail_bytes)
    r.err_tail.erase(0, r.err_tail.size() - limits.stderr_tail_bytes);
  r.wall_s = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  return r;
}

std::vector<std::string> split_command(const std::string& command) {
  std::vector<std::string> words;
  std::string cur;
  bool in_word = false;
  for (std::size_t i = 0; i < command.size(); ++i) {
    const char c = command[i];
    if (c == '\'') {
      const auto end = command.find('\'', i + 1);
      if (end == std::string::npos) throw InputError("command '" + command + "': unterminated single quote");
      cur += command.substr(i + 1, end - i - 1);
      i = end;
      in_word = true;
    } else if (c == '"') {
      ++i;
      for (; i < command.size() && command[i] != '"'; ++i) {
        if (command[i] == '\\' && i + 1 < command.size() &&
            (command[i + 1] == '"' || command[i + 1] == '\\' || command[i + 1] == '$' || command[i + 1] == '`'))
          ++i;
        cur += command[i];
      }
      if (i >= command.size()) throw InputError("command '" + command + "': unterminated double quote");
      in_word = true;
    } else if (c == '\\' && i + 1 < command.size()) {
      cur += command[++i];
      in_word = true;
    } else if (c == ' ' || c == '\t' || c == '\n') {
      if (in_word) words.push_back(cur);
      cur.clear();
      in_word = false;
    } else {
      cur += c;
      in_word = true;
    }
  }
  if (in_word) words.push_back(cur);
  return words;
}

std::string find_program(const std::string& name, const std::vector<std::string>& fallbacks) {
  if (const char* path = std::getenv("PATH")) {
    std::stringstream ss(path);
    for (std::string dir; std::getline(ss, dir, ':');)
      if (!dir.empty() && ::access((dir + "/" + name).c_str(), X_OK) == 0) return dir + "/" + name;
  }
  for (const auto& p : fallbacks)
    if (::access(p.c_str(), X_OK) == 0) return p;
  return {};
}

}  // namespace assay
