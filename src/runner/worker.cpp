#include "runner/worker.hpp"

#include <signal.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cstdlib>
#include <cstring>
#include <fstream>
#include <sstream>

#include <filesystem>
#include <iostream>
#include <iterator>

#include "backends/backend.hpp"
#include "backends/subprocess.hpp"
#include "core/error.hpp"
#include "core/temp_dir.hpp"
#include "runner/execute.hpp"

namespace assay::runner {

namespace {

// How a child process ended, for messages: "exited with code N", or "died of signal N (NAME)"
// (a process a signal ended has no exit code: SubprocessResult keeps -1 there).
std::string how_it_ended(const SubprocessResult& r) {
  if (r.signal) return "died of signal " + std::to_string(r.signal) + " (" + strsignal(r.signal) + ")";
  return "exited with code " + std::to_string(r.exit_code);
}

// compute-sanitizer on PATH or in the CUDA toolkit's usual place; empty when absent.
std::string find_compute_sanitizer() {
  return find_program("compute-sanitizer", {"/usr/local/cuda/bin/compute-sanitizer",
                                            "/usr/local/cuda/compute-sanitizer/compute-sanitizer"});
}

// The worker (`worker_argv`, as the case ran) once more under `tool`, its log in `folder`; its
// findings (the ERROR SUMMARY and the first error).
std::string run_sanitizer(const std::string& sanitizer, const std::string& tool,
                          const std::vector<std::string>& worker_argv, const std::filesystem::path& folder,
                          const std::string& request, double timeout_s, bool* clean) {
  const std::string log = (folder / ("sanitizer-" + tool + ".log")).string();
  SubprocessLimits limits;
  limits.timeout_s = timeout_s;
  limits.max_stdout_bytes = 256u << 20;
  std::vector<std::string> argv = {sanitizer, "--tool", tool, "--log-file", log, "--error-exitcode", "86",
                                   "--print-limit", "20"};
  argv.insert(argv.end(), worker_argv.begin(), worker_argv.end());
  const auto r = run_subprocess(argv, request, limits);
  std::ifstream in(log);
  std::string line, first_error, summary;
  while (std::getline(in, line)) {
    if (first_error.empty() && line.find("========= ") == 0 && line.find("SUMMARY") == std::string::npos &&
        line.find("not printed") == std::string::npos &&
        (line.find("Invalid") != std::string::npos || line.find("hazard") != std::string::npos ||
         line.find("Error") != std::string::npos))
      first_error = line.substr(10);
    // memcheck ends with "ERROR SUMMARY: N errors", racecheck with "RACECHECK SUMMARY: N hazards
    // displayed (N errors, N warnings)".
    for (const char* key : {"ERROR SUMMARY:", "RACECHECK SUMMARY:"})
      if (const auto at = line.find(key); at != std::string::npos) summary = line.substr(at + std::strlen(key) + 1);
  }
  // --error-exitcode makes any finding a non-zero exit.
  *clean = r.exit_code == 0 && !r.timed_out;
  if (r.timed_out) return "timed out after " + std::to_string(static_cast<int>(timeout_s)) + " s";
  if (summary.empty()) return "no report (" + how_it_ended(r) + ")";
  return summary + (first_error.empty() ? "" : ": " + first_error);
}

}  // namespace

CaseRecord run_case_in_worker(const verify::ResolvedCase& rc, double timeout_s, bool sanitize,
                              const WorkerProgram& program) {
  const std::string request = verify::to_json_text(rc);
  // This binary through /proc/<pid>/exe, not the path it was started from: a rebuild that
  // replaces the file during a long run leaves the running binary there (its path then names a
  // deleted file, and every later case would fail to start). Not /proc/self/exe: env(1) or a
  // wrapper would resolve that to itself.
  const std::string self = program.path.empty() ? "/proc/" + std::to_string(::getpid()) + "/exe" : program.path;
  // The worker's temporary files go into a folder removed here after it ended: a worker killed
  // at the timeout runs no destructor (core/temp_dir.hpp). Through env(1), with any extra
  // environment: the worker is exec'd by it, in the same process.
  const TempDir scratch("assay-case-");
  std::vector<std::string> worker_argv = {"/usr/bin/env", "--"};  // "--": no setting is taken as env's option
  worker_argv.insert(worker_argv.end(), program.env.begin(), program.env.end());
  worker_argv.push_back(std::string(kCaseScratchEnv) + "=" + scratch.path().string());
  worker_argv.push_back(self);
  worker_argv.push_back("__worker");
  std::vector<std::string> argv = program.wrapper;
  argv.insert(argv.end(), worker_argv.begin(), worker_argv.end());
  SubprocessLimits limits;
  limits.timeout_s = timeout_s;
  limits.max_stdout_bytes = 256u << 20;  // raw samples of a long case
  limits.stderr_tail_bytes = 4000;
  const SubprocessResult r = run_subprocess(argv, request, limits);

  CaseRecord rec = verify::planned_record(rc);
  if (find_backend(rc.runner_backend())->target() != Target::cpu && rc.device != "cpu") rec.device_index = std::stoi(rc.device);
  if (!r.started) {
    rec.status = CaseStatus::error;
    rec.reason = "cannot start the worker: " + r.error;
    return rec;
  }
  // Under a profiler (assay profile) the exit status and the time are the profiler's too.
  const std::string wrapper =
      program.wrapper.empty() ? "" : std::filesystem::path(program.wrapper.front()).filename().string();
  if (r.timed_out) {
    rec.status = CaseStatus::timeout;
    rec.reason = wrapper.empty() ? "the worker was killed after " + std::to_string(static_cast<int>(limits.timeout_s)) +
                                       " s (case_timeout_s): the case hung"
                                 : "the worker under " + wrapper + " was killed after " +
                                       std::to_string(static_cast<int>(limits.timeout_s)) +
                                       " s (--timeout; the profiler replays every kernel of the window)";
    rec.stderr_tail = r.err_tail;
    rec.worker_wall_s = r.wall_s;
    return rec;
  }
  if ((r.exit_code == 0 || !wrapper.empty()) && !r.stdout_overflow) {
    try {
      rec = parse_case_json(r.out, "worker of " + rc.id);
      rec.worker_wall_s = r.wall_s;
      if (r.exit_code != 0) {  // the worker wrote its record, then the profiler failed
        if (rec.status == CaseStatus::ok) rec.status = CaseStatus::error;
        rec.reason += (rec.reason.empty() ? "" : "; ") + wrapper + " " + how_it_ended(r) + " after the worker's record";
        rec.stderr_tail = r.err_tail;
      }
      if (sanitize && rc.check_only && find_backend(rc.runner_backend())->target() == Target::cuda) {
        const std::string sanitizer = find_compute_sanitizer();
        if (sanitizer.empty()) {
          rec.sanitizer["compute-sanitizer"] = "not found (PATH, /usr/local/cuda/bin): not run";
          return rec;
        }
        for (const std::string tool : {"memcheck", "racecheck"}) {
          bool clean = true;
          rec.sanitizer[tool] =
              run_sanitizer(sanitizer, tool, worker_argv, scratch.path(), request, 10 * limits.timeout_s, &clean);
          if (!clean && rec.status == CaseStatus::ok) {
            rec.status = CaseStatus::check_failed;
            rec.reason = "compute-sanitizer " + tool + ": " + rec.sanitizer[tool];
          }
        }
      }
      return rec;
    } catch (const InputError& e) {
      // A record (its text has the case's "id") this assay cannot read, e.g. a value out of the
      // schema's range: an error, with why. No record at all falls through to "crashed".
      if (r.out.find("\"id\"") != std::string::npos) {
        rec.status = CaseStatus::error;
        rec.reason = std::string("the worker's case record is not valid: ") + e.what();
        return rec;
      }
    }
  }
  rec.status = CaseStatus::crashed;
  const std::string who = wrapper.empty() ? "the worker" : "the worker under " + wrapper;
  rec.reason = who + " " + how_it_ended(r) + (r.signal ? "" : " without a case record");
  rec.stderr_tail = r.err_tail;
  rec.worker_wall_s = r.wall_s;
  return rec;
}

namespace {

// Kills and reaps every child this process still has. With PR_SET_CHILD_SUBREAPER these include
// what an adapter left that escaped its process group (a daemon after setsid): orphaned, it is
// reparented to the worker instead of init.
void end_leftover_children() {
  const std::string self = std::to_string(::getpid());
  for (const auto& e : std::filesystem::directory_iterator("/proc")) {
    const std::string pid = e.path().filename().string();
    if (pid.find_first_not_of("0123456789") != std::string::npos) continue;
    std::ifstream status(e.path() / "status");
    for (std::string line; std::getline(status, line);)
      if (line.rfind("PPid:", 0) == 0) {
        if (line.substr(line.find_first_not_of(" \t", 5)) == self) {
          ::kill(std::stoi(pid), SIGKILL);
          ::waitpid(std::stoi(pid), nullptr, 0);  // SIGKILL is prompt: reaped here, no zombie left
        }
        break;
      }
  }
}

}  // namespace

int worker_main() {
  // One case at a time runs here, so every child left after it is the case's to end.
  ::prctl(PR_SET_CHILD_SUBREAPER, 1);
  try {
    const std::string text{std::istreambuf_iterator<char>(std::cin), std::istreambuf_iterator<char>()};
    const verify::ResolvedCase rc = verify::parse_resolved_case(text, "worker request");
    Executors ex = make_executors(rc.device, true, needs_cuda({rc.runner_backend()}));
    const CaseRecord rec = execute_case(rc, ex);
    end_leftover_children();
    std::cout << case_to_json_text(rec) << std::flush;
    return 0;
  } catch (const std::exception& e) {
    std::cerr << "assay worker: " << e.what() << "\n";
    return 4;
  }
}

}  // namespace assay::runner
