// External adapters, end to end through the assay binary with a fake adapter plugged in
// through TVM_BENCH_CMD: every way an adapter can misbehave becomes a per-case error with
// a clear reason and a bounded wait, and the rest of the suite runs.
#include <gtest/gtest.h>

#include <chrono>
#include <fstream>
#include <thread>

#include "backends/adapter_protocol.hpp"
#include "backends/subprocess.hpp"
#include "cli_support.hpp"
#include "core/atomic_file.hpp"
#include "core/error.hpp"
#include "core/results.hpp"

using namespace assay;
using namespace assay::test;

namespace {

struct AdapterRun {
  CliResult cli;
  std::optional<ResultsDocument> doc;
  const CaseRecord* adapter_case() const {
    for (const auto& c : doc->cases)
      if (c.backend == "tvm") return &c;
    return nullptr;
  }
  const CaseRecord* cpu_case() const {
    for (const auto& c : doc->cases)
      if (c.backend == "cpu") return &c;
    return nullptr;
  }
};

AdapterRun run_with(const std::string& behaviour, const std::string& sub = "run") {
  const fs::path out = fresh_dir("adapter-" + behaviour);
  AdapterRun r;
  r.cli = run_assay(sub + " tests/data/adapter_fake.toml --device cpu --out " + out.string(),
                    "TVM_BENCH_CMD='python3 tests/adapters/fake_adapter.py " + behaviour + "'");
  const auto files = files_in(out, ".json");
  if (files.size() == 1) r.doc = parse_results_json(read_text_file(files[0]), files[0].string());
  fs::remove_all(out);
  return r;
}

void expect_error(const std::string& behaviour, const std::string& reason_part) {
  const auto r = run_with(behaviour);
  EXPECT_EQ(r.cli.code, 4) << behaviour << ": " << r.cli.out;
  ASSERT_TRUE(r.doc.has_value()) << r.cli.out;
  const CaseRecord* c = r.adapter_case();
  ASSERT_NE(c, nullptr);
  EXPECT_EQ(c->status, CaseStatus::error) << behaviour;
  EXPECT_NE(c->reason.find(reason_part), std::string::npos) << behaviour << ": " << c->reason;
  EXPECT_FALSE(c->summary.has_value());
  ASSERT_NE(r.cpu_case(), nullptr);
  EXPECT_EQ(r.cpu_case()->status, CaseStatus::ok);  // the rest of the suite ran
}

// Runs the adapter suite with `adapter_cmd` as TVM_BENCH_CMD (isolated, or with --no-isolate):
// exit 4, one results document and its Markdown, and the adapter's case `error` with `reason`.
void expect_adapter_error_run(const std::string& adapter_cmd, bool isolated, const std::string& reason) {
  const fs::path out = fresh_dir("adapter-error-run");
  const auto r = run_assay("run tests/data/adapter_fake.toml --device cpu --out " + out.string() +
                               (isolated ? "" : " --no-isolate"),
                           "TVM_BENCH_CMD='" + adapter_cmd + "'");
  EXPECT_EQ(r.code, 4) << r.out;
  const auto files = files_in(out, ".json");
  ASSERT_EQ(files.size(), 1u) << r.out;
  EXPECT_EQ(files_in(out, ".md").size(), 1u) << r.out;
  const auto doc = parse_results_json(read_text_file(files[0]), files[0].string());
  for (const auto& c : doc.cases)
    if (c.backend == "tvm") {
      EXPECT_EQ(c.status, CaseStatus::error) << c.reason;
      EXPECT_NE(c.reason.find(reason), std::string::npos) << c.reason;
    }
  fs::remove_all(out);
}

}  // namespace

TEST(Adapters, WellBehavedAdapterIsCheckedAndTimed) {
  const auto r = run_with("ok");
  ASSERT_EQ(r.cli.code, 0) << r.cli.out;
  const CaseRecord* c = r.adapter_case();
  ASSERT_NE(c, nullptr);
  EXPECT_EQ(c->status, CaseStatus::ok) << c->reason;
  ASSERT_TRUE(c->check && c->recheck && c->summary && c->adapter);
  EXPECT_TRUE(c->check->passed);
  EXPECT_EQ(c->check->checked, 48u);
  EXPECT_EQ(c->measurement->mode, "adapter:host");
  EXPECT_EQ(c->measurement->samples_ns.size(), 5u);
  EXPECT_DOUBLE_EQ(c->summary->median, 11000);  // 0.011 ms, summarised by assay itself
  EXPECT_EQ(c->adapter->versions.at("fake"), "1.0");
  EXPECT_EQ(c->adapter->command.at(0), "python3");
  EXPECT_TRUE(c->speedup_vs_baseline.has_value());
}

TEST(Adapters, WrongOutputFailsTheCheckAndIsNotTimed) {
  for (const std::string b : {"wrong", "nowrite"}) {
    const auto r = run_with(b);
    EXPECT_EQ(r.cli.code, 1) << b << ": " << r.cli.out;
    const CaseRecord* c = r.adapter_case();
    ASSERT_NE(c, nullptr);
    EXPECT_EQ(c->status, CaseStatus::check_failed) << b;
    EXPECT_FALSE(c->summary.has_value());
    EXPECT_FALSE(c->measurement.has_value());
    if (b == "nowrite") EXPECT_EQ(c->check->nan_count, 48u);
  }
}

TEST(Adapters, GarbageOutput) { expect_error("garbage", "adapter reply: not JSON: 'Traceback"); }
TEST(Adapters, NoOutput) { expect_error("nothing", "printed nothing on stdout"); }
TEST(Adapters, SeveralObjects) { expect_error("several", "printed several JSON values"); }
TEST(Adapters, NonZeroExit) { expect_error("exit3", "replied ok but exited with code 3"); }
TEST(Adapters, StderrCutInsideACharacterStillMakesARecord) {
  for (const bool isolated : {true, false})
    expect_adapter_error_run("python3 tests/adapters/fake_adapter.py utf8crash", isolated, "exited with code 7");
}
// Its stderr's lines joined into the one-line reason.
TEST(Adapters, CrashKeepsStderr) {
  expect_error("crash", "exited with code 7; stderr: fake adapter: segmentation fault (pretend) |   in frame 0");
}
TEST(Adapters, WrongSizedOutput) { expect_error("wrongsize", "wrote 188 bytes to C, expected 192"); }
TEST(Adapters, ReportedError) { expect_error("error", "reported an error: fake failure while compiling"); }
TEST(Adapters, MeasuringReplyWithoutSamples) { expect_error("nosamples", "must return samples"); }

TEST(Adapters, MoreSamplesThanTheCriterionAllowsAreAnError) {
  expect_error("toomany", "50000 samples where the criterion allows");
}
TEST(Adapters, ASampleLongerThanTheCallIsAnError) { expect_error("huge", "a sample is a time in ms, in [1e-9, 1e9]"); }

// 1e-9 ms for 2*m*n*k = 480 FLOP is far beyond any host: reported implausible (exit 1), with no speedup.
TEST(Adapters, ATimeBelowThePhysicalFloorIsImplausible) {
  const auto r = run_with("fast");
  EXPECT_EQ(r.cli.code, 1) << r.cli.out;
  ASSERT_TRUE(r.doc.has_value()) << r.cli.out;
  const CaseRecord* c = r.adapter_case();
  ASSERT_NE(c, nullptr);
  EXPECT_EQ(c->status, CaseStatus::implausible);
  EXPECT_NE(c->reason.find("is below the physical floor"), std::string::npos) << c->reason;
  EXPECT_FALSE(c->speedup_vs_baseline.has_value());
  EXPECT_EQ(r.cpu_case()->status, CaseStatus::ok);  // the host's own timing is plausible
}

TEST(Adapters, HangIsKilledAtTheLimit) {
  const auto t0 = std::chrono::steady_clock::now();
  expect_error("hang", "timed out after 3 s");
  EXPECT_LT(std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count(), 15);
}

// A worker killed at case_timeout_s (the adapter still inside its call) runs no destructor; the
// folder of the adapter's tensor files must still go, with the worker's scratch folder.
TEST(Adapters, AKilledWorkerLeavesNoTemporaryFiles) {
  const fs::path dir = fresh_dir("adapter-killed-worker");
  const fs::path tmp = dir / "tmp";
  fs::create_directories(tmp);
  std::string suite = read_text_file(source_dir() + "/tests/data/adapter_fake.toml");
  suite.replace(suite.find("adapter_timeout_s = 3"), 21, "adapter_timeout_s = 60\ncase_timeout_s = 2");
  write_file_atomically(dir / "suite.toml", suite);
  const auto r = run_assay("run " + (dir / "suite.toml").string() + " --device cpu --no-history --out " +
                               (dir / "out").string(),
                           "TMPDIR=" + tmp.string() + " TVM_BENCH_CMD='python3 tests/adapters/fake_adapter.py hang'");
  EXPECT_EQ(r.code, 1) << r.out;
  const auto files = files_in(dir / "out", ".json");
  ASSERT_EQ(files.size(), 1u) << r.out;
  bool timed_out = false;
  for (const auto& c : parse_results_json(read_text_file(files[0]), files[0].string()).cases)
    timed_out |= c.backend == "tvm" && c.status == CaseStatus::timeout;
  EXPECT_TRUE(timed_out) << r.out;
  std::vector<std::string> left;
  for (const auto& e : fs::directory_iterator(tmp)) left.push_back(e.path().filename().string());
  EXPECT_TRUE(left.empty()) << left.front();
  fs::remove_all(dir);
}

// A project's own adapters/ folder in the working folder does not replace assay's (every shipped
// adapter's case had failed with "can't open file .../adapters/torch_adapter.py").
TEST(Adapters, AnAdaptersFolderOfTheWorkingFolderIsNotAssays) {
  const fs::path dir = fresh_dir("adapter-foreign-folder");
  fs::create_directories(dir / "adapters");
  const auto r = run_assay_in(dir, {"run", source_dir() + "/examples/python_sdpa/suite.toml", "--device", "cpu",
                                    "--no-history", "--filter", "^cpu/torch/.*s=16", "--out", (dir / "out").string()});
  // Run (0) or skipped where torch is missing (2), never the adapter's error (4).
  EXPECT_TRUE(r.code == 0 || r.code == 2) << r.out;
  EXPECT_EQ(r.out.find((dir / "adapters").string()), std::string::npos) << r.out;
  fs::remove_all(dir);
}

TEST(Adapters, FloodIsCut) { expect_error("flood", "flooded stdout"); }

TEST(Adapters, RoundsAlternateWithAnAdapter) {
  const auto r = run_with("ok", "run --rounds 2");
  EXPECT_EQ(r.cli.code, 0) << r.cli.out;
  // cpu, tvm in the first round; tvm, cpu in the second.
  const auto at = [&](const std::string& s) { return r.cli.out.find(s); };
  const auto c1 = at("/cpu/f32/k=5,m=8,n=6 (round 1/2)"), t1 = at("/tvm/f32/k=5,m=8,n=6 (round 1/2)"),
             t2 = at("/tvm/f32/k=5,m=8,n=6 (round 2/2)"), c2 = at("/cpu/f32/k=5,m=8,n=6 (round 2/2)");
  ASSERT_NE(c2, std::string::npos) << r.cli.out;
  EXPECT_LT(c1, t1);
  EXPECT_LT(t1, t2);
  EXPECT_LT(t2, c2);
  ASSERT_TRUE(r.doc.has_value());
  const CaseRecord* c = r.adapter_case();
  ASSERT_NE(c, nullptr);
  ASSERT_EQ(c->status, CaseStatus::ok) << c->reason;
  EXPECT_EQ(c->measurement->stop_reason, "adapter");
  EXPECT_EQ(c->measurement->round_samples.size(), 2u);
  EXPECT_TRUE(c->check && c->recheck);
  EXPECT_TRUE(c->speedup_vs_baseline.has_value());
}

TEST(Adapters, UnavailableStackIsSkipped) {
  const auto r = run_with("unavailable");
  EXPECT_EQ(r.cli.code, 0) << r.cli.out;  // the cpu case ran; the adapter case is skipped
  const CaseRecord* c = r.adapter_case();
  ASSERT_NE(c, nullptr);
  EXPECT_EQ(c->status, CaseStatus::skipped);
  EXPECT_NE(c->reason.find("fake stack is not installed"), std::string::npos) << c->reason;
}

TEST(Adapters, UnsetHookIsSkippedWithTheVariableName) {
  const fs::path out = fresh_dir("adapter-unset");
  const auto r = run_assay("run tests/data/adapter_fake.toml --device cpu --out " + out.string(), "env -u TVM_BENCH_CMD");
  EXPECT_EQ(r.code, 0) << r.out;
  EXPECT_NE(r.out.find("skipped: TVM_BENCH_CMD is not set"), std::string::npos) << r.out;
  fs::remove_all(out);
}

// A command that cannot be read as words (an unbalanced quote) is bad input, named by its
// variable, before any case runs: no results file. (It had run the cpu case first, then exited 3
// with a half-written document.)
TEST(Adapters, AnUnreadableCommandIsBadInputBeforeAnyCase) {
  const fs::path out = fresh_dir("adapter-unreadable");
  const auto r = run_assay("run tests/data/adapter_fake.toml --device cpu --no-history --out " + out.string(),
                           "TVM_BENCH_CMD='\"python3 tests/adapters/fake_adapter.py ok'");
  EXPECT_EQ(r.code, 3) << r.out;
  EXPECT_NE(r.out.find("assay: error: TVM_BENCH_CMD: "), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("unterminated double quote"), std::string::npos) << r.out;
  EXPECT_TRUE(!fs::exists(out) || files_in(out, ".json").empty()) << r.out;
  fs::remove_all(out);
}

TEST(AdapterProtocol, ReplyValidation) {
  EXPECT_THROW(adapter::parse_reply("{\"status\": \"ok\"}", "check"), InternalError);
  EXPECT_THROW(adapter::parse_reply("{\"status\": \"maybe\"}", "check"), InternalError);
  EXPECT_THROW(adapter::parse_reply("{\"status\": \"error\"}", "check"), InternalError);  // needs a message
  const std::string ok =
      R"({"status":"ok","mode":"cold","samples_ms":[1.5],"summary_ms":{"mean":1,"p50":1,"p95":1,"min":1,"max":1},)"
      R"("throughput":{},"peak_memory_bytes":0,"versions":{"torch":"2.11"}})";
  const auto r = adapter::parse_reply(ok, "measure");
  EXPECT_EQ(r.samples_ms, std::vector<double>{1.5});
  EXPECT_EQ(r.versions.at("torch"), "2.11");
  std::string negative = ok;
  negative.replace(negative.find("1.5"), 3, "-1.");
  EXPECT_THROW(adapter::parse_reply(negative, "measure"), InternalError);
}

// An adapter that exits without reading its case (/bin/true: gone before assay writes): the
// write to its stdin fails with EPIPE instead of killing the worker (or, in-process, assay)
// with SIGPIPE. Before the fix this crashed every time here.
TEST(Adapters, ExitingWithoutReadingIsAnErrorNeverACrash) {
  for (const bool isolated : {true, false})
    for (int i = 0; i < 3; ++i) expect_adapter_error_run("/bin/true", isolated, "printed nothing on stdout");
}

// A process an adapter leaves behind dies with its case: in the adapter's process group, or in a
// session of its own (then the worker, a child subreaper, inherits and ends it).
TEST(Adapters, ADetachedChildDoesNotOutliveItsCase) {
  for (const std::string how : {"detach", "daemon"}) {
    const fs::path pid_file = fresh_dir("adapter-detach-pid");
    const fs::path out = fresh_dir("adapter-detach");
    const auto r = run_assay("run tests/data/adapter_fake.toml --device cpu --out " + out.string(),
                             "TVM_BENCH_CMD='python3 tests/adapters/fake_adapter.py " + how + " " + pid_file.string() + "'");
    fs::remove_all(out);
    ASSERT_EQ(r.code, 0) << r.out;
    const std::string pid = read_text_file(pid_file);
    fs::remove(pid_file);
    ASSERT_FALSE(pid.empty());
    // Gone, or a zombie waiting for init to reap it: not running `sleep 30` any more.
    bool running = true;
    for (int i = 0; i < 100 && running; ++i) {
      std::ifstream stat("/proc/" + pid + "/stat");
      std::string self, name, state;
      running = static_cast<bool>(stat >> self >> name >> state) && state != "Z";
      if (running) std::this_thread::sleep_for(std::chrono::milliseconds(20));
    }
    EXPECT_FALSE(running) << how << ": pid " << pid << " outlived its adapter";
  }
}

TEST(Subprocess, SplitCommandLikeAShell) {
  EXPECT_EQ(split_command("python3  my.py --x 'a b' \"c \\\"d\\\"\" e\\ f"),
            (std::vector<std::string>{"python3", "my.py", "--x", "a b", "c \"d\"", "e f"}));
  EXPECT_THROW(split_command("python3 'open"), InputError);
}

TEST(Subprocess, NoShellInterpretsCaseData) {
  // Arguments are passed as they are: a ';' or '$(...)' in them is just text.
  const auto r = run_subprocess({"/bin/echo", "a; rm -rf /tmp/nothing", "$(id)"}, "", {});
  EXPECT_EQ(r.exit_code, 0);
  EXPECT_EQ(r.out, "a; rm -rf /tmp/nothing $(id)\n");
  const auto missing = run_subprocess({"/no/such/program"}, "", {});
  EXPECT_FALSE(missing.started);
  EXPECT_NE(missing.error.find("cannot execute '/no/such/program'"), std::string::npos);
}

TEST(Subprocess, StdinIsDeliveredAndTheLimitHolds) {
  const auto r = run_subprocess({"/bin/cat"}, "hello case", {});
  EXPECT_EQ(r.out, "hello case");
  SubprocessLimits quick;
  quick.timeout_s = 0.3;
  const auto t0 = std::chrono::steady_clock::now();
  const auto hang = run_subprocess({"/bin/sh", "-c", "sleep 30 & sleep 30"}, "", quick);
  EXPECT_TRUE(hang.timed_out);
  EXPECT_LT(std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count(), 3);
}

// An adapter flushes L2 with a write: under the clean flush its cold case is skipped with the
// reason, isolated or not; the in-process backend runs.
TEST(Adapters, ACleanFlushSkipsTheAdaptersColdCases) {
  for (const char* isolation : {"", " --no-isolate"}) {
    const fs::path out = fresh_dir("adapter-clean");
    const auto r = run_assay("run tests/data/adapter_fake.toml --device cpu --l2-flush clean --out " + out.string() + isolation,
                             "TVM_BENCH_CMD='python3 tests/adapters/fake_adapter.py ok'");
    const auto files = files_in(out, ".json");
    ASSERT_EQ(files.size(), 1u) << r.out;
    const auto doc = parse_results_json(read_text_file(files[0]), files[0].string());
    for (const auto& c : doc.cases) {
      if (c.backend == "tvm") {
        EXPECT_EQ(c.status, CaseStatus::skipped) << isolation << ": " << c.reason;
        EXPECT_NE(c.reason.find("l2_flush = \"clean\" is in-process only"), std::string::npos) << c.reason;
      } else {
        EXPECT_EQ(c.status, CaseStatus::ok) << c.backend << ": " << c.reason;
      }
    }
    fs::remove_all(out);
  }
}
