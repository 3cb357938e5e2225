// Fault injection: a run whose parent, one of its workers or one of its adapters is killed at
// a random moment (50 seeded trials). Whatever is killed, no process of the run survives, every
// results document on disk is whole, and the history passes SQLite's integrity check.
#include <gtest/gtest.h>

#include <fcntl.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <fstream>
#include <iterator>
#include <random>
#include <thread>

#include "cli_support.hpp"
#include "core/atomic_file.hpp"
#include "core/error.hpp"
#include "core/results.hpp"
#include "store/sqlite_db.hpp"

using namespace assay;
using namespace assay::test;

namespace {

const char* kSuite = R"([defaults.measure]
min_samples = 3
min_time_s = 0.05
warmup_min_s = 0
timeout_s = 2
adapter_timeout_s = 10
[[bench]]
name = "faults"
workload = "gemm"
backends = ["cpu", "tvm"]
dtype = "f32"
[bench.axes]
m = [8, 16]
n = 8
k = 8
)";

// The child has exited (a zombie not yet reaped, or gone), without reaping it: the test's own
// waitpid must still see it.
bool has_exited(pid_t pid) {
  std::ifstream stat("/proc/" + std::to_string(pid) + "/stat");
  std::string line;
  if (!std::getline(stat, line)) return true;
  const auto close = line.rfind(')');
  return close == std::string::npos || close + 2 >= line.size() || line[close + 2] == 'Z';
}

}  // namespace

TEST(FaultInjection, KillingAnyProcessOfARunLosesNothingAndLeavesNothing) {
  const fs::path dir = fresh_dir("faults");
  fs::create_directories(dir);
  write_file_atomically(dir / "faults.toml", kSuite);
  const std::string history = (dir / "history.db").string();
  const char* targets[] = {"parent SIGKILL", "parent SIGINT", "parent SIGTERM", "worker SIGKILL", "adapter SIGKILL"};
  int killed_children = 0;
  for (int trial = 0; trial < 50; ++trial) {
    std::mt19937 rng(20261125 + trial);
    const std::string target = targets[trial % 5];
    const double delay_s = std::uniform_real_distribution<double>(0.0, 0.8)(rng);
    const std::string mark = "assay-fault-" + std::to_string(getpid()) + "-" + std::to_string(trial);
    const fs::path out = dir / ("out-" + std::to_string(trial));
    const std::string adapter = "python3 " + source_dir() + "/tests/adapters/fake_adapter.py slow";
    const pid_t pid = spawn_quiet(assay_bin(),
                                  {"run", (dir / "faults.toml").string(), "--device", "cpu", "--history", history,
                                   "--out", out.string(), "--quiet"},
                                  // TMPDIR in the test's folder: a run killed with SIGKILL cannot remove
                                  // its workers' scratch folders (core/temp_dir.hpp); they go with it.
                                  {{"ASSAY_FAULT_MARK", mark}, {"TVM_BENCH_CMD", adapter}, {"TMPDIR", dir.string()}});
    std::this_thread::sleep_for(std::chrono::duration<double>(delay_s));
    pid_t victim = pid;
    int sig = SIGKILL;
    if (target == std::string("parent SIGINT")) sig = SIGINT;
    if (target == std::string("parent SIGTERM")) sig = SIGTERM;
    const std::string want = target == std::string("worker SIGKILL")    ? "__worker"
                             : target == std::string("adapter SIGKILL") ? "fake_adapter.py"
                                                                       : "";
    // A child target is waited for (up to 3 s: on a loaded machine the worker and the adapter's
    // interpreter start late); if the run ends first, the parent is killed instead.
    for (int i = 0; !want.empty() && victim == pid && i < 300; ++i) {
      for (const auto& p : processes_marked(mark))
        if (p.pid != pid && p.cmdline.find(want) != std::string::npos) {
          victim = p.pid;
          ++killed_children;
          break;
        }
      if (victim == pid) {
        if (has_exited(pid)) break;
        std::this_thread::sleep_for(std::chrono::milliseconds(10));
      }
    }
    kill(victim, sig);
    int status = 0;
    bool exited = false;
    for (int i = 0; i < 3000 && !exited; ++i) {  // up to 30 s
      exited = waitpid(pid, &status, WNOHANG) == pid;
      if (!exited) std::this_thread::sleep_for(std::chrono::milliseconds(10));
    }
    if (!exited) {
      kill(pid, SIGKILL);
      waitpid(pid, &status, 0);
    }
    EXPECT_TRUE(exited) << "trial " << trial << " (" << target << " after " << delay_s << " s): the run did not end";
    std::vector<MarkedProcess> left = processes_marked(mark);
    for (int i = 0; i < 200 && !left.empty(); ++i) {
      std::this_thread::sleep_for(std::chrono::milliseconds(10));
      left = processes_marked(mark);
    }
    EXPECT_TRUE(left.empty()) << "trial " << trial << " (" << target << "): left " << left.front().cmdline;
    for (const auto& f : files_in(out, ".json"))
      EXPECT_NO_THROW(parse_results_json(read_text_file(f), f.string())) << "trial " << trial << " (" << target << ")";
  }
  // Most trials with a child target found one to kill; the rest killed the parent instead.
  EXPECT_GE(killed_children, 5);
  store::SqliteDb db(history, store::SqliteDb::Access::read_only, 5000);
  auto check = db.prepare("PRAGMA integrity_check");
  ASSERT_TRUE(check.step());
  EXPECT_EQ(check.text(0), "ok");
  auto runs = db.prepare("SELECT count(*) FROM runs");
  ASSERT_TRUE(runs.step());
  EXPECT_GT(runs.integer(0), 0);
  fs::remove_all(dir);
}

// While the suite is planned nothing is written and no flag is checked (a --filter regex that
// backtracks for minutes): SIGINT ends the run at once with 130, and leaves no results file.
TEST(Faults, AnInterruptWhilePlanningEndsTheRunAtOnce) {
  const fs::path dir = fresh_dir("interrupt-planning");
  fs::create_directories(dir);
  write_file_atomically(dir / "s.toml", "[[bench]]\nname = \"g\"\nworkload = \"gemm\"\nbackends = [\"cpu\"]\n"
                                        "dtype = \"f32\"\n[bench.axes]\nm = 8\nn = 8\nk = 8\n");
  const pid_t pid = spawn_quiet(assay_bin(), {"run", (dir / "s.toml").string(), "--device", "cpu", "--no-history",
                                              "--filter", "(.*.*)*X", "--out", (dir / "out").string()}, {});
  std::this_thread::sleep_for(std::chrono::milliseconds(500));
  ::kill(pid, SIGINT);
  int status = 0;
  for (int i = 0; i < 500 && ::waitpid(pid, &status, WNOHANG) == 0; ++i)
    std::this_thread::sleep_for(std::chrono::milliseconds(20));
  EXPECT_TRUE(WIFEXITED(status) && WEXITSTATUS(status) == 130) << status;
  EXPECT_FALSE(fs::exists(dir / "out"));
  fs::remove_all(dir);
}
