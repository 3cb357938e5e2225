// Crash isolation, sharding and merging, end to end through the assay binary.
#include <gtest/gtest.h>

#include <fcntl.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <fstream>
#include <iterator>
#include <set>
#include <thread>

#include "cli_support.hpp"
#include "core/atomic_file.hpp"
#include "core/error.hpp"
#include "core/results.hpp"
#include "runner/merge.hpp"
#include "verify/resolved_case.hpp"

using namespace assay;
using namespace assay::test;

namespace {
ResultsDocument only_results(const fs::path& dir) {
  const auto files = files_in(dir, ".json");
  EXPECT_EQ(files.size(), 1u);
  return parse_results_json(read_text_file(files.at(0)), files.at(0).string());
}
const CaseRecord& find(const ResultsDocument& d, const std::string& backend, std::int64_t m) {
  for (const auto& c : d.cases)
    if (c.backend == backend && c.params.at("m") == m) return c;
  throw std::runtime_error("no case " + backend);
}
}  // namespace

TEST(Isolation, FaultsAreRecordedAndTheSuiteGoesOn) {
  const fs::path out = fresh_dir("faults");
  const auto r = run_assay("run tests/data/faults_cpu.toml --device cpu --out " + out.string(), "ASSAY_TEST_BACKENDS=1");
  EXPECT_EQ(r.code, 1) << r.out;  // crashed and hung cases fail the run like a failed check
  const ResultsDocument d = only_results(out);
  for (std::int64_t m : {8, 16}) {
    EXPECT_EQ(find(d, "cpu", m).status, CaseStatus::ok);
    EXPECT_GT(find(d, "cpu", m).worker_wall_s, 0);
    const auto& abort_case = find(d, "test-abort", m);
    EXPECT_EQ(abort_case.status, CaseStatus::crashed);
    EXPECT_NE(abort_case.reason.find("signal 6"), std::string::npos) << abort_case.reason;
    EXPECT_EQ(find(d, "test-segv", m).status, CaseStatus::crashed);
    EXPECT_NE(find(d, "test-segv", m).reason.find("signal 11"), std::string::npos);
    const auto& hang = find(d, "test-hang", m);
    EXPECT_EQ(hang.status, CaseStatus::timeout);
    EXPECT_NE(hang.reason.find("killed after 3 s"), std::string::npos) << hang.reason;
  }
  EXPECT_NE(r.out.find("crashed"), std::string::npos);
  fs::remove_all(out);
}

TEST(Rounds, BackendsAlternateAndEachCaseIsMergedFromItsRounds) {
  const fs::path out = fresh_dir("rounds");
  const auto r = run_assay("run tests/data/rounds_cpu.toml --device cpu --out " + out.string(), "ASSAY_TEST_BACKENDS=1");
  EXPECT_EQ(r.code, 1) << r.out;  // the planted abort
  // Round 1 forward (cpu, test-abort), round 2 backward; the crashed case runs no second round.
  const auto at = [&](const std::string& s) { return r.out.find(s); };
  const auto cpu1 = at("rounds/cpu/f32/k=8,m=8,n=8 (round 1/2) ..."), abort1 = at("test-abort/f32/k=8,m=8,n=8 (round 1/2) ..."),
             cpu2 = at("rounds/cpu/f32/k=8,m=8,n=8 (round 2/2) ...");
  ASSERT_NE(cpu1, std::string::npos) << r.out;
  ASSERT_NE(abort1, std::string::npos) << r.out;
  ASSERT_NE(cpu2, std::string::npos) << r.out;
  EXPECT_LT(cpu1, abort1);
  EXPECT_LT(abort1, cpu2);
  EXPECT_EQ(at("test-abort/f32/k=8,m=8,n=8 (round 2/2)"), std::string::npos) << r.out;
  EXPECT_NE(at("in 2 rounds"), std::string::npos) << r.out;
  const ResultsDocument d = only_results(out);
  const CaseRecord& cpu = find(d, "cpu", 8);
  ASSERT_EQ(cpu.status, CaseStatus::ok) << cpu.reason;
  ASSERT_TRUE(cpu.measurement && cpu.summary);
  const auto& rounds = cpu.measurement->round_samples;
  ASSERT_EQ(rounds.size(), 2u);
  EXPECT_GE(rounds[0], 3u);  // min_samples 6 shared by two rounds
  EXPECT_GE(rounds[1], 3u);
  EXPECT_GE(rounds[1], rounds[0]);  // the second round keeps at least the first one's samples
  EXPECT_EQ(cpu.summary->n, rounds[0] + rounds[1]);
  EXPECT_EQ(cpu.measurement->samples_ns.size(), cpu.summary->n);
  ASSERT_TRUE(cpu.check && cpu.recheck);  // the first round checks, the last one rechecks
  EXPECT_TRUE(cpu.check->passed);
  EXPECT_EQ(cpu.check->shape, "k=5,m=9,n=7");
  EXPECT_TRUE(cpu.recheck->passed);
  ASSERT_TRUE(cpu.derived);
  EXPECT_NEAR(cpu.derived->tflops, cpu.derived->flops / cpu.summary->median / 1e3, 1e-12);
  EXPECT_GT(cpu.worker_wall_s, 0);
  EXPECT_EQ(find(d, "test-abort", 8).status, CaseStatus::crashed);
  fs::remove_all(out);
}

TEST(Isolation, PlantedBackendsAreHiddenWithoutTheTestVariable) {
  const auto r = run_assay("run tests/data/faults_cpu.toml --device cpu --out /tmp/never", "env -u ASSAY_TEST_BACKENDS");
  EXPECT_EQ(r.code, 3) << r.out;
  EXPECT_NE(r.out.find("unknown backend 'test-abort'"), std::string::npos) << r.out;
}

TEST(Isolation, GpuFaultsCrashTheirWorkerAndTheGpuRecovers) {
  if (!have_gpu()) GTEST_SKIP() << "skipped: no CUDA device";
  const fs::path out = fresh_dir("gpufaults");
  const auto r = run_assay("run tests/data/faults_gpu.toml --out " + out.string(), "ASSAY_TEST_BACKENDS=1");
  EXPECT_EQ(r.code, 1) << r.out;
  const ResultsDocument d = only_results(out);
  EXPECT_EQ(find(d, "test-gpu-oob", 64).status, CaseStatus::crashed) << find(d, "test-gpu-oob", 64).reason;
  EXPECT_NE(find(d, "test-gpu-oob", 64).reason.find("cudaErrorIllegalAddress"), std::string::npos);
  EXPECT_EQ(find(d, "test-gpu-trap", 64).status, CaseStatus::crashed) << find(d, "test-gpu-trap", 64).reason;
  EXPECT_EQ(find(d, "test-gpu-hang", 64).status, CaseStatus::timeout);
  // The cases after each fault ran on a clean GPU.
  EXPECT_EQ(find(d, "cublas", 64).status, CaseStatus::ok) << find(d, "cublas", 64).reason;
  EXPECT_EQ(find(d, "assay", 128).status, CaseStatus::ok) << find(d, "assay", 128).reason;
  fs::remove_all(out);
}

TEST(Sharding, ShardsPartitionThePointsAndMergeBack) {
  const fs::path out = fresh_dir("shards");
  std::multiset<std::string> ids;
  for (int i = 1; i <= 3; ++i) {
    const fs::path dir = out / ("shard" + std::to_string(i));
    const auto r = run_assay("run tests/data/shard.toml --device cpu --shard " + std::to_string(i) + "/3 --out " +
                             dir.string() + " --no-history");
    ASSERT_EQ(r.code, 0) << r.out;
    const ResultsDocument d = only_results(dir);
    EXPECT_EQ(d.run.shard, std::to_string(i) + "/3");
    EXPECT_EQ(d.cases.size(), i == 3 ? 1u : 2u);  // 5 points dealt round-robin: 2, 2, 1
    for (const auto& c : d.cases) ids.insert(c.id);
  }
  EXPECT_EQ(ids.size(), 5u);
  EXPECT_EQ(std::set<std::string>(ids.begin(), ids.end()).size(), 5u);  // disjoint
  const auto r = run_assay("merge " + (out / "shard1").string() + " " + (out / "shard2").string() + " " +
                           (out / "shard3").string() + " --out " + (out / "all").string());
  ASSERT_EQ(r.code, 0) << r.out;
  const ResultsDocument merged = only_results(out / "all");
  EXPECT_EQ(merged.cases.size(), 5u);
  EXPECT_EQ(merged.run.shard, "merged");
  EXPECT_EQ(merged.run.environment.at("merged_shards"), "1/3,2/3,3/3");
  // Merging a shard twice, or shards of another suite, is refused.
  const auto twice = run_assay("merge " + (out / "shard1").string() + " " + (out / "shard1").string() + " --out " +
                               (out / "bad").string());
  EXPECT_EQ(twice.code, 3) << twice.out;
  EXPECT_NE(twice.out.find("is in both"), std::string::npos) << twice.out;
  const fs::path other = out / "other";
  ASSERT_EQ(run_assay("run tests/data/cpu_small.toml --device cpu --no-history --filter m=17 --out " + other.string()).code, 0);
  const auto mixed = run_assay("merge " + (out / "shard1").string() + " " + other.string() + " --out " +
                               (out / "bad").string());
  EXPECT_EQ(mixed.code, 3) << mixed.out;
  EXPECT_NE(mixed.out.find("results of different suites are not merged"), std::string::npos) << mixed.out;
  EXPECT_FALSE(fs::exists(out / "bad"));
  // Shards of one run are of one GPU model; a shard that did not finish leaves the merge unfinished.
  ResultsDocument elsewhere = only_results(out / "shard2");
  elsewhere.run.device.name = "NVIDIA A100-SXM4-80GB";
  fs::create_directories(out / "a100");
  write_file_atomically(out / "a100" / "shard2.json", to_json_text(elsewhere));
  const auto models = run_assay("merge " + (out / "shard1").string() + " " + (out / "a100").string() + " --out " +
                                (out / "bad").string());
  EXPECT_EQ(models.code, 3) << models.out;
  EXPECT_NE(models.out.find("shards of different GPU models are not one run"), std::string::npos) << models.out;
  ResultsDocument cut = only_results(out / "shard2");
  cut.run.finished_utc.clear();
  fs::create_directories(out / "cut");
  write_file_atomically(out / "cut" / "shard2.json", to_json_text(cut));
  ASSERT_EQ(run_assay("merge " + (out / "shard1").string() + " " + (out / "cut").string() + " --out " +
                      (out / "unfinished").string()).code, 0);
  EXPECT_EQ(only_results(out / "unfinished").run.finished_utc, "");
  EXPECT_FALSE(fs::exists(out / "bad"));
  const auto bad_shard = run_assay("run tests/data/shard.toml --device cpu --shard 4/3");
  EXPECT_EQ(bad_shard.code, 3);
  fs::remove_all(out);
}

TEST(Isolation, TwoWorkersInParallelKeepPlanOrder) {
  if (!have_gpu()) GTEST_SKIP() << "skipped: no CUDA device";
  const fs::path out = fresh_dir("devices");
  // Two worker threads on one GPU exercise the --devices scheduler where only one GPU exists: a
  // listed device twice is refused, but for this test's hook.
  const auto refused = run_assay("run tests/data/gpu_small.toml --devices 0,00 --no-history --out " + out.string());
  EXPECT_EQ(refused.code, 3) << refused.out;
  EXPECT_NE(refused.out.find("--devices: device 0 is listed twice"), std::string::npos) << refused.out;
  const auto r = run_assay("run tests/data/gpu_small.toml --devices 0,0 --no-history --out " + out.string(),
                           "ASSAY_ALLOW_SHARED_DEVICES=1");
  ASSERT_EQ(r.code, 0) << r.out;
  const ResultsDocument d = only_results(out);
  ASSERT_EQ(d.cases.size(), 4u);
  EXPECT_EQ(d.cases[0].backend, "assay");
  EXPECT_EQ(d.cases[1].backend, "cublas");
  for (const auto& c : d.cases) {
    EXPECT_EQ(c.status, CaseStatus::ok) << c.id << ": " << c.reason;
    EXPECT_EQ(c.device_index, 0);
    ASSERT_TRUE(c.telemetry.has_value());
    EXPECT_EQ(c.telemetry->source, "nvml");
    EXPECT_GT(c.telemetry->polls, 0u);
  }
  EXPECT_EQ(d.run.environment.at("devices"), "0,0");
  fs::remove_all(out);
}

TEST(Isolation, SanitizedCheckReportsPerCase) {
  if (!have_gpu()) GTEST_SKIP() << "skipped: no CUDA device";
  const fs::path out = fresh_dir("sanitize");
  const auto r = run_assay("check tests/data/gpu_small.toml --sanitize --filter f16 --out " + out.string());
  ASSERT_EQ(r.code, 0) << r.out;
  const ResultsDocument d = only_results(out);
  for (const auto& c : d.cases) {
    EXPECT_EQ(c.status, CaseStatus::ok) << c.id << ": " << c.reason;
    if (c.sanitizer.count("compute-sanitizer")) continue;  // not installed on this host
    EXPECT_EQ(c.sanitizer.at("memcheck").rfind("0 errors", 0), 0u) << c.sanitizer.at("memcheck");
    EXPECT_NE(c.sanitizer.at("racecheck").find("(0 errors"), std::string::npos) << c.sanitizer.at("racecheck");
  }
  fs::remove_all(out);
}

// A worker gets the resolved case and nothing else: the request names no suite, and the worker
// measures exactly what it says (here a shape no shipped suite has).
TEST(Isolation, TheWorkerRunsTheResolvedCaseWithoutTheSuite) {
  const fs::path dir = fresh_dir("worker-request");
  fs::create_directories(dir);
  verify::ResolvedCase rc;
  rc.id = "w/cpu/f32/k=7,m=5,n=3";
  rc.bench = "w";
  rc.workload = "gemm";
  rc.backend = "cpu";
  rc.dtype = "f32";
  rc.params = rc.check_params = {{"m", 5}, {"n", 3}, {"k", 7}};
  rc.method.warmup = {1, 0};
  rc.criterion = {4, 8, 0, 0.5, 5};
  rc.device = "cpu";
  write_file_atomically((dir / "request.json").string(), verify::to_json_text(rc));
  const auto r = run_assay("__worker < " + (dir / "request.json").string());
  ASSERT_EQ(r.code, 0) << r.out;
  const CaseRecord rec = parse_case_json(r.out, "worker");
  EXPECT_EQ(rec.id, rc.id);
  EXPECT_EQ(rec.status, CaseStatus::ok) << rec.reason;
  ASSERT_TRUE(rec.measurement && rec.check);
  EXPECT_EQ(rec.check->shape, "k=7,m=5,n=3");
  EXPECT_GE(rec.measurement->samples_ns.size(), 4u);
  EXPECT_LE(rec.measurement->samples_ns.size(), 8u);
  // A request that is not a resolved case is refused with the field, exit 4.
  write_file_atomically((dir / "bad.json").string(), R"({"suite": "suites/gemm.toml", "case": "x"})");
  const auto bad = run_assay("__worker < " + (dir / "bad.json").string());
  EXPECT_EQ(bad.code, 4);
  EXPECT_NE(bad.out.find("resolved case, field 'id'"), std::string::npos) << bad.out;
  fs::remove_all(dir);
}

namespace {

// Starts the testbed on a suite whose second case hangs (its worker would run for 60 s), and
// returns once that case's worker is running.
pid_t start_hanging_run(const fs::path& dir, const std::string& mark) {
  fs::create_directories(dir);
  write_file_atomically(dir / "hang.toml", R"([defaults.measure]
min_samples = 3
min_time_s = 0.01
warmup_min_s = 0
timeout_s = 1
case_timeout_s = 60
[[bench]]
name = "stop"
workload = "gemm"
backends = ["cpu", "test-hang"]
dtype = "f32"
[bench.axes]
m = [8, 16]
n = 8
k = 8
)");
  const pid_t pid = spawn_quiet(assay_testbed_bin(),
                                {"run", (dir / "hang.toml").string(), "--device", "cpu", "--no-history", "--out",
                                 (dir / "out").string()},
                                {{"ASSAY_TEST_BACKENDS", "1"}, {"ASSAY_TEST_MARK", mark}});
  // Up to 10 s for the first case to be in the results file and the hanging case's worker to run.
  for (int i = 0; i < 500; ++i) {
    std::this_thread::sleep_for(std::chrono::milliseconds(20));
    const auto files = files_in(dir / "out", ".json");
    if (files.size() != 1) continue;
    try {
      if (parse_results_json(read_text_file(files[0]), "partial").cases.size() != 1) continue;
    } catch (const InputError&) {
      continue;
    }
    for (const auto& p : processes_marked(mark))
      if (p.cmdline.find("assay-testbed") != std::string::npos && p.pid != pid) return pid;
  }
  return pid;
}

int wait_exit_code(pid_t pid, double timeout_s) {
  for (int i = 0; i < timeout_s * 100; ++i) {
    int status = 0;
    if (waitpid(pid, &status, WNOHANG) == pid) return WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
    std::this_thread::sleep_for(std::chrono::milliseconds(10));
  }
  kill(pid, SIGKILL);
  waitpid(pid, nullptr, 0);
  return -1;
}

}  // namespace

// Ctrl-C (or SIGTERM, or SIGHUP from a closed terminal) ends the whole tree at once; the results
// say what finished, what was cut short and what never ran, and the Markdown is written.
TEST(Isolation, AnInterruptedRunEndsItsWorkersAndKeepsWhatFinished) {
  for (const int sig : {SIGINT, SIGTERM, SIGHUP}) {
    const fs::path dir = fresh_dir("interrupt-" + std::to_string(sig));
    const std::string mark = "interrupt-" + std::to_string(getpid()) + "-" + std::to_string(sig);
    const pid_t pid = start_hanging_run(dir, mark);
    kill(pid, sig);
    EXPECT_EQ(wait_exit_code(pid, 10), 128 + sig);
    const auto left = processes_marked(mark);
    EXPECT_TRUE(left.empty()) << left.front().cmdline;
    const ResultsDocument doc = only_results(dir / "out");
    ASSERT_EQ(doc.cases.size(), 4u);
    EXPECT_EQ(doc.cases[0].status, CaseStatus::ok) << doc.cases[0].reason;
    EXPECT_EQ(doc.cases[1].status, CaseStatus::interrupted);
    EXPECT_NE(doc.cases[1].reason.find("while the case ran"), std::string::npos) << doc.cases[1].reason;
    for (int i : {2, 3}) {
      EXPECT_EQ(doc.cases[i].status, CaseStatus::interrupted);
      EXPECT_NE(doc.cases[i].reason.find("not run: assay was interrupted (SIG"), std::string::npos) << doc.cases[i].reason;
    }
    EXPECT_EQ(files_in(dir / "out", ".md").size(), 1u);
    fs::remove_all(dir);
  }
}

// kill -9 leaves assay no handler to run: its worker still dies with it (parent-death signal).
TEST(Isolation, AKilledRunLeavesNoWorkerBehind) {
  const fs::path dir = fresh_dir("kill9");
  const std::string mark = "kill9-" + std::to_string(getpid());
  const pid_t pid = start_hanging_run(dir, mark);
  kill(pid, SIGKILL);
  wait_exit_code(pid, 10);
  std::vector<MarkedProcess> left = processes_marked(mark);
  for (int i = 0; i < 100 && !left.empty(); ++i) {
    std::this_thread::sleep_for(std::chrono::milliseconds(20));
    left = processes_marked(mark);
  }
  EXPECT_TRUE(left.empty()) << left.front().cmdline;
  // What finished before the kill is in a valid document.
  const ResultsDocument doc = only_results(dir / "out");
  ASSERT_GE(doc.cases.size(), 1u);
  EXPECT_EQ(doc.cases[0].status, CaseStatus::ok);
  fs::remove_all(dir);
}
