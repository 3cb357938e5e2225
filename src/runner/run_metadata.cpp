#include "runner/run_metadata.hpp"

#include <unistd.h>

#include <array>
#include <chrono>
#include <cstdio>
#include <ctime>

extern char** environ;

namespace assay::runner {

namespace {
std::string format_utc(const char* fmt) {
  const std::time_t t = std::chrono::system_clock::to_time_t(std::chrono::system_clock::now());
  std::tm tm{};
  gmtime_r(&t, &tm);
  char buf[64];
  std::strftime(buf, sizeof buf, fmt, &tm);
  return buf;
}

// Output of a short command, or empty; stderr discarded.
std::string command_output(const char* cmd) {
  std::string out;
  FILE* p = popen(cmd, "r");
  if (!p) return out;
  std::array<char, 256> buf{};
  while (fgets(buf.data(), buf.size(), p)) out += buf.data();
  if (pclose(p) != 0) return {};
  while (!out.empty() && (out.back() == '\n' || out.back() == '\r')) out.pop_back();
  return out;
}
}  // namespace

std::string utc_now_iso8601() { return format_utc("%Y-%m-%dT%H:%M:%SZ"); }
std::string utc_now_compact() { return format_utc("%Y%m%dT%H%M%SZ"); }

std::string git_commit(bool* dirty) {
  const std::string head = command_output("git rev-parse HEAD 2>/dev/null");
  if (dirty) *dirty = !head.empty() && !command_output("git status --porcelain --untracked-files=no 2>/dev/null").empty();
  return head;
}

std::string host_name() {
  char buf[256] = {};
  if (gethostname(buf, sizeof buf - 1) != 0) return "unknown";
  return buf;
}

std::map<std::string, std::string> relevant_environment() {
  std::map<std::string, std::string> env;
  for (char** e = environ; e && *e; ++e) {
    const std::string kv = *e;
    const auto eq = kv.find('=');
    if (eq == std::string::npos) continue;
    const std::string key = kv.substr(0, eq);
    if (key.rfind("CUDA_", 0) == 0 || key.rfind("CUBLAS", 0) == 0 || key.rfind("NVIDIA_TF32", 0) == 0 ||
        key.rfind("CUDNN_", 0) == 0 || key == "OMP_NUM_THREADS")
      env["env." + key] = kv.substr(eq + 1);
  }
  return env;
}

}  // namespace assay::runner
