// `assay tune` end to end on the CPU, with the test binary: a variant that crashes its check is
// out before it is timed; the report is written as JSON and Markdown. (The search's decisions
// are tested on a seeded fake machine in test_tune.cpp: CPU timings on a shared CI machine are
// too noisy for them.)
#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include <csignal>
#include <ctime>
#include <fstream>
#include <thread>

#include "cli_support.hpp"
#include "compare_test_docs.hpp"
#include "core/atomic_file.hpp"

namespace fs = std::filesystem;
using assay::read_text_file;

TEST(TuneCli, ChecksFirstAndWritesTheReport) {
  const fs::path d = assay::test::fresh_test_dir("tune");
  const auto r = assay::test::run_assay(
      "tune tests/data/tune_cpu.toml --device cpu --out " + (d / "out").string() +
          " --variant slow=cpu,ASSAY_TESTBED_SLOWDOWN=0.9 --variant same=cpu,ASSAY_TESTBED_SLOWDOWN=0 --variant broken=test-abort",
      "ASSAY_TEST_BACKENDS=1");
  EXPECT_EQ(r.code, 0) << r.out;
  EXPECT_NE(r.out.find("| `broken` | – | – |  | failed its check (shape 0: crashed"), std::string::npos) << r.out;
  EXPECT_EQ(r.out.find("measure broken"), std::string::npos) << "a variant that failed its check was timed";
  EXPECT_NE(r.out.find("check slow tune/cpu/f32/k=64,m=64,n=64: ok"), std::string::npos) << r.out;
  std::vector<fs::path> json;
  for (const auto& e : fs::directory_iterator(d / "out"))
    if (e.path().extension() == ".json") json.push_back(e.path());
  ASSERT_EQ(json.size(), 1u);
  const auto j = nlohmann::json::parse(read_text_file(json[0]));
  EXPECT_EQ(j["schema"], "assay.tune");
  EXPECT_EQ(j["baseline"], "cpu");
  EXPECT_EQ(j["shapes"].size(), 3u);
  ASSERT_EQ(j["variants"].size(), 3u);
  EXPECT_EQ(j["variants"][0]["env"][0], "ASSAY_TESTBED_SLOWDOWN=0.9");
  EXPECT_EQ(j["variants"][0]["speedup"].size(), 3u);
  EXPECT_EQ(j["variants"][2]["budget"], 0.0);
  EXPECT_TRUE(fs::exists(fs::path(json[0]).replace_extension(".md")));
}

// --variants-of takes the family members that implement the bench's workload (assay@ holds GEMM
// and attention configurations); where nothing can run (no GPU here: the baseline, checked first,
// is skipped) it is exit 2, as `assay run`.
TEST(TuneCli, VariantsOfTakesTheBenchsWorkloadAndSkipsWhereNothingRuns) {
  const fs::path d = assay::test::fresh_test_dir("tune-family");
  const auto r = assay::test::run_assay("tune suites/attention-hopper.toml --bench mission --variants-of assay --device cpu "
                                        "--out " + (d / "out").string());
  EXPECT_EQ(r.out.find("does not implement"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("| `assay@flash_m64` |"), std::string::npos) << r.out;
  EXPECT_EQ(r.out.find("wgmma_128x256"), std::string::npos) << "a GEMM configuration became an attention variant";
  if (!assay::test::have_gpu()) {
    EXPECT_EQ(r.code, 2) << r.out;
    EXPECT_NE(r.out.find("the baseline cudnn cannot run here (shape 0: skipped"), std::string::npos) << r.out;
  }
}

// Every variant unable to run here (the baseline can): exit 2, as `assay run` with every case skipped.
TEST(TuneCli, NoVariantThatCanRunHereIsExitTwo) {
  const fs::path d = assay::test::fresh_test_dir("tune-none-here");
  const auto r = assay::test::run_assay("tune tests/data/adapter_fake.toml --device cpu --variant t=tvm --out " +
                                        (d / "out").string(), "TVM_BENCH_CMD=");
  EXPECT_EQ(r.code, 2) << r.out;
  EXPECT_NE(r.out.find("| `t` | – | – |  | not run here (shape 0: skipped"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("skipped: no variant can run here"), std::string::npos) << r.out;
  fs::remove_all(d);
}

// Without --variant, the bench's [bench.tune] variants are the search's.
TEST(TuneCli, TheBenchsOwnVariants) {
  const fs::path d = assay::test::fresh_test_dir("tune-suite-variants");
  const auto r = assay::test::run_assay("tune tests/data/tune_cpu.toml --device cpu --out " + (d / "out").string(),
                                        "ASSAY_TEST_BACKENDS=1");
  EXPECT_EQ(r.code, 0) << r.out;
  EXPECT_NE(r.out.find("| `broken` | – | – |  | failed its check"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("check slower tune/cpu/f32/k=64,m=64,n=64: ok"), std::string::npos) << r.out;
  // A malformed entry is bad input naming the suite's line; an unknown backend names it too.
  const fs::path bad = d / "bad.toml";
  std::string text = read_text_file(assay::test::source_dir() + "/tests/data/tune_cpu.toml");
  text.replace(text.find("broken=test-abort"), 17, "broken");
  assay::write_file_atomically(bad, text);
  const auto r2 = assay::test::run_assay("tune " + bad.string() + " --device cpu --out " + (d / "out").string());
  EXPECT_EQ(r2.code, 3) << r2.out;
  EXPECT_NE(r2.out.find("bad.toml:19:12: bench[0].tune.variants: 'broken' is not NAME=BACKEND"), std::string::npos)
      << r2.out;
}

TEST(TuneCli, BadVariantsAreExitThree) {
  for (const std::string bad : {"--variant nonsense", "--variant x=no-such-backend", "--variant cpu=cpu",
                                "--variant x=cpu,notasetting", "--bench nope --variant x=cpu",
                                // --variants-of names a backend, with --variant or without.
                                "--variants-of ''", "--variants-of nosuch --variant x=cpu,A=1"}) {
    const auto r = assay::test::run_assay("tune tests/data/tune_cpu.toml --device cpu --out /tmp/never " + bad);
    EXPECT_EQ(r.code, 3) << bad << ": " << r.out;
  }
}

// The tune writes a tuning table beside its report; `assay run --tuning` runs the chosen
// variant (here: its environment for the workers) for the cases of that backend in each class,
// and says so in the case's variant. A table that is no tuning table is bad input.
TEST(TuneCli, TheTuningTableIsWrittenAndRunApplies) {
  const fs::path d = assay::test::fresh_test_dir("tune-table");
  std::vector<fs::path> tables;
  auto r = assay::test::run_assay("tune tests/data/tune_cpu.toml --device cpu --out " + (d / "out").string() +
                                 " --variant slower=cpu,ASSAY_TESTBED_SLOWDOWN=0.5 --variant same=cpu,ASSAY_TESTBED_SLOWDOWN=0",
                             "ASSAY_TEST_BACKENDS=1");
  ASSERT_EQ(r.code, 0) << r.out;
  for (const auto& e : fs::directory_iterator(d / "out"))
    if (e.path().string().ends_with(".tuning.json")) tables.push_back(e.path());
  // The default (the baseline, cpu itself) keeps every class no variant beat. `same` ties with
  // it, so on a loaded CI machine its promotion may find it FASTER: a table naming the variants,
  // or none and the report saying why.
  // `slower` (half the speed) is dropped, never promoted: it never gets an entry.
  std::string report_json;
  for (const auto& e : fs::directory_iterator(d / "out"))
    if (const std::string p = e.path().string(); p.ends_with(".json") && !p.ends_with(".tuning.json"))
      report_json = read_text_file(e.path());
  const auto report = nlohmann::json::parse(report_json);
  EXPECT_EQ(report["state"], "done");
  if (!report["promotion"].is_null()) EXPECT_EQ(report["promotion"]["variant"], "same") << report["promotion"];
  if (tables.empty()) {
    EXPECT_NE(r.out.find("No tuning table: "), std::string::npos) << r.out;
  } else {
    ASSERT_EQ(tables.size(), 1u) << r.out;
    const auto j = nlohmann::json::parse(read_text_file(tables[0]));
    EXPECT_EQ(j["schema"], "assay.tuning");
    EXPECT_EQ(j["applies_to"], "cpu");
    ASSERT_FALSE(j["entries"].empty());
    for (const auto& e : j["entries"]) EXPECT_EQ(e["variant"], "same") << e;
  }
  // A table with one class re-routed, written by hand: m = 64 runs the planted slowdown.
  const fs::path table = d / "hand.tuning.json";
  std::ofstream(table) << R"({"schema": "assay.tuning", "schema_version": 1, "suite": "tune_cpu", "bench": "tune",
    "workload": "gemm", "baseline": "cpu", "applies_to": "cpu", "entries": [
    {"class": "f32/k~2^6,m~2^6,n~2^6", "variant": "slower", "backend": "cpu", "env": ["ASSAY_TESTBED_SLOWDOWN=0.5"],
     "speedup": 1.5, "shapes": []}]})";
  r = assay::test::run_assay("run tests/data/tune_cpu.toml --device cpu --no-history --quiet --out " +
                                 (d / "run").string() + " --tuning " + table.string(),
                             "ASSAY_TEST_BACKENDS=1");
  ASSERT_EQ(r.code, 0) << r.out;
  const auto docs = assay::test::files_in(d / "run", ".json");
  ASSERT_EQ(docs.size(), 1u);
  const auto doc = nlohmann::json::parse(read_text_file(docs[0]));
  const std::string md = read_text_file(fs::path(docs[0]).replace_extension(".md"));
  EXPECT_NE(md.find("- tuning table: `" + table.string() + "`; cases it re-routed: `tune/cpu/f32/k=64,m=64,n=64` "
                    "f32/k~2^6,m~2^6,n~2^6 -> slower"), std::string::npos) << md;
  EXPECT_EQ(doc["run"]["environment"]["tuning"], table.string());
  ASSERT_EQ(doc["cases"].size(), 3u);
  for (const auto& c : doc["cases"]) {
    const std::string v = c["variant"];
    const bool tuned = c["params"]["m"] != 128;  // m = 64 and 96 are in class m~2^6; 128 is not
    EXPECT_EQ(v.find("(tuning table: f32/k~2^6,m~2^6,n~2^6 -> slower)") != std::string::npos, tuned) << v;
    // The slowdown's setting reached the tuned cases' workers, and only theirs.
    EXPECT_EQ(v.find("+planted ") != std::string::npos && v.find("+planted nothing") == std::string::npos, tuned) << v;
  }
  std::ofstream(table) << R"({"schema": "assay.tuning", "schema_version": 1, "suite": "s", "bench": "b", "workload": "gemm",
    "baseline": "cpu", "applies_to": "cpu", "entries": [{"class": "f32/m~2^6", "variant": "v", "backend": "cpu", "env": [1], "speedup": 1}]})";
  r = assay::test::run_assay("run tests/data/tune_cpu.toml --device cpu --no-history --out " + (d / "run").string() +
                             " --tuning " + table.string());
  EXPECT_EQ(r.code, 3) << r.out;
  EXPECT_NE(r.out.find("field '$.entries[0].env' must hold NAME=value strings"), std::string::npos) << r.out;
  // A setting that env(1) would take as its option (it ran a shell), and a backend that is none here
  // (it crashed the run): refused before any case runs.
  for (const auto& [entry, field] : {std::pair<std::string, std::string>{R"("backend": "cpu", "env": ["--split-string=sh -c x A=1"])", "env"},
                                     {R"("backend": "cpu@bogus", "env": [])", "backend"}}) {
    std::ofstream(table) << R"({"schema": "assay.tuning", "schema_version": 1, "suite": "s", "bench": "b", "workload": "gemm",
      "baseline": "cpu", "applies_to": "cpu", "entries": [{"class": "f32/m~2^6", "variant": "v", )" + entry + R"(, "speedup": 1}]})";
    r = assay::test::run_assay("run tests/data/tune_cpu.toml --device cpu --no-history --out " + (d / "run").string() +
                               " --tuning " + table.string());
    EXPECT_EQ(r.code, 3) << r.out;
    EXPECT_NE(r.out.find("field '$.entries[0]." + field + "'"), std::string::npos) << r.out;
  }
  // A well-formed table that can re-route no case of this run (another workload): refused too.
  std::ofstream(table) << R"({"schema": "assay.tuning", "schema_version": 1, "suite": "s", "bench": "b", "workload": "attention",
    "baseline": "cpu", "applies_to": "cpu", "entries": []})";
  r = assay::test::run_assay("run tests/data/tune_cpu.toml --device cpu --no-history --out " + (d / "run").string() +
                             " --tuning " + table.string());
  EXPECT_EQ(r.code, 3) << r.out;
  EXPECT_NE(r.out.find("on workload 'attention', and this run has none"), std::string::npos) << r.out;
  fs::remove_all(d);
}

// Environment variants of an external command (the matmul playbook's knobs): the fake adapter
// reads FAKE_ADAPTER_SCALE, so a variant with 0.5 is exactly twice as fast as the baseline and
// one with 2 half as fast; the table re-routes to the knob that won.
TEST(TuneCli, EnvironmentVariantsOfAnExternalCommand) {
  const fs::path d = assay::test::fresh_test_dir("tune-env-adapter");
  const auto r = assay::test::run_assay(
      "tune tests/data/adapter_fake.toml --device cpu --baseline tvm --out " + (d / "out").string() +
          " --variant half=tvm,FAKE_ADAPTER_SCALE=0.5 --variant double=tvm,FAKE_ADAPTER_SCALE=2",
      "TVM_BENCH_CMD='python3 tests/adapters/fake_adapter.py ok'");
  ASSERT_EQ(r.code, 0) << r.out;
  std::vector<fs::path> reports, tables;
  for (const auto& e : fs::directory_iterator(d / "out")) {
    const std::string p = e.path().string();
    if (p.ends_with(".tuning.json")) tables.push_back(e.path());
    else if (p.ends_with(".json")) reports.push_back(e.path());
  }
  ASSERT_EQ(reports.size(), 1u);
  const auto j = nlohmann::json::parse(read_text_file(reports[0]));
  ASSERT_EQ(j["variants"].size(), 2u);
  EXPECT_NEAR(j["variants"][0]["speedup"][0].get<double>(), 2.0, 1e-9);
  EXPECT_NEAR(j["variants"][1]["speedup"][0].get<double>(), 0.5, 1e-9);
  EXPECT_EQ(j["variants"][0]["elite"], true);
  EXPECT_NE(j["variants"][1]["dropped"].get<std::string>(), "");
  ASSERT_EQ(tables.size(), 1u) << r.out;
  const auto t = nlohmann::json::parse(read_text_file(tables[0]));
  EXPECT_EQ(t["applies_to"], "tvm");
  ASSERT_EQ(t["entries"].size(), 1u);
  EXPECT_EQ(t["entries"][0]["env"][0], "FAKE_ADAPTER_SCALE=0.5");
  fs::remove_all(d);
}

namespace {

std::vector<fs::path> tune_reports(const fs::path& out) {
  std::vector<fs::path> reports;
  for (const auto& f : assay::test::files_in(out, ".json"))
    if (!f.string().ends_with(".tuning.json")) reports.push_back(f);
  return reports;
}

}  // namespace

// A variant that passes its check but whose sessions cannot be timed (the adapter replies no
// samples) is out with the reason; the others are compared and the tune ends with its report.
TEST(TuneCli, AVariantThatCannotBeTimedIsDroppedNotTheSearch) {
  const fs::path d = assay::test::fresh_test_dir("tune-untimed");
  const auto r = assay::test::run_assay(
      "tune tests/data/adapter_fake.toml --device cpu --baseline tvm --out " + (d / "out").string() +
          " --variant half=tvm,FAKE_ADAPTER_SCALE=0.5 --variant 'mute=tvm,TVM_BENCH_CMD=python3 tests/adapters/fake_adapter.py nosamples'",
      "TVM_BENCH_CMD='python3 tests/adapters/fake_adapter.py ok'");
  ASSERT_EQ(r.code, 0) << r.out;
  const auto reports = tune_reports(d / "out");
  ASSERT_EQ(reports.size(), 1u);
  const auto j = nlohmann::json::parse(read_text_file(reports[0]));
  EXPECT_EQ(j["state"], "done");
  EXPECT_EQ(j["variants"][1]["name"], "mute");
  EXPECT_EQ(j["variants"][1]["dropped"].get<std::string>().rfind("could not be timed (shape 0: ", 0), 0u) << j["variants"][1];
  EXPECT_EQ(j["variants"][0]["elite"], true);
  fs::remove_all(d);
}

// Every variant checked but none timed: nothing was compared, exit 4 (the report is written).
TEST(TuneCli, NoVariantTimedIsExitFour) {
  const fs::path d = assay::test::fresh_test_dir("tune-none-timed");
  const auto r = assay::test::run_assay(
      "tune tests/data/adapter_fake.toml --device cpu --baseline tvm --out " + (d / "out").string() +
          " --variant 'mute=tvm,TVM_BENCH_CMD=python3 tests/adapters/fake_adapter.py nosamples'",
      "TVM_BENCH_CMD='python3 tests/adapters/fake_adapter.py ok'");
  EXPECT_EQ(r.code, 4) << r.out;
  EXPECT_NE(r.out.find("no variant could be timed"), std::string::npos) << r.out;
  EXPECT_EQ(tune_reports(d / "out").size(), 1u);
  fs::remove_all(d);
}

// A check shape the workload refuses (a derived axis below 1 there) is bad input found before the
// report is reserved: exit 3 and nothing written, as `assay run` does.
TEST(TuneCli, AnUnresolvableCaseIsExitThreeWithNothingWritten) {
  const fs::path d = assay::test::fresh_test_dir("tune-unresolvable");
  fs::create_directories(d);
  std::ofstream(d / "neg.toml") << R"([suite]
name = "neg"
[defaults.check]
shape = { m = 9 }
[[bench]]
name = "tune"
workload = "gemm"
backends = ["cpu"]
baseline = "cpu"
dtype = "f32"
[bench.axes]
m = 64
n = "m - 50"
k = 8
)";
  const auto r = assay::test::run_assay("tune " + (d / "neg.toml").string() + " --device cpu --out " + (d / "out").string() +
                                        " --variant x=cpu,A=1");
  EXPECT_EQ(r.code, 3) << r.out;
  EXPECT_FALSE(fs::exists(d / "out") && !fs::is_empty(d / "out")) << r.out;
  fs::remove_all(d);
}

// An --out that cannot be created is bad input before the first check, not after the search.
TEST(TuneCli, AnUnusableOutIsExitThreeBeforeAnyCheck) {
  const auto r = assay::test::run_assay("tune tests/data/tune_cpu.toml --device cpu --out /dev/null/tune --variant x=cpu,A=1");
  EXPECT_EQ(r.code, 3) << r.out;
  EXPECT_NE(r.out.find("--out '/dev/null/tune': cannot create this folder"), std::string::npos) << r.out;
  EXPECT_EQ(r.out.find("check x"), std::string::npos) << r.out;
}

// The baseline is checked on every shape before any variant: one that fails its check is exit 1,
// one that cannot run here exit 2, each named as the baseline, and no variant is checked.
TEST(TuneCli, TheBaselineIsCheckedFirst) {
  const fs::path d = assay::test::fresh_test_dir("tune-baseline");
  const std::string args = "tune tests/data/adapter_fake.toml --device cpu --baseline tvm --variant x=cpu,A=1 --out " + (d / "out").string();
  auto r = assay::test::run_assay(args, "TVM_BENCH_CMD='python3 tests/adapters/fake_adapter.py wrong'");
  EXPECT_EQ(r.code, 1) << r.out;
  EXPECT_NE(r.out.find("the baseline tvm failed its check (shape 0: check-failed"), std::string::npos) << r.out;
  EXPECT_EQ(r.out.find("check x"), std::string::npos) << r.out;
  r = assay::test::run_assay(args, "TVM_BENCH_CMD=");
  EXPECT_EQ(r.code, 2) << r.out;
  EXPECT_NE(r.out.find("the baseline tvm cannot run here (shape 0: skipped"), std::string::npos) << r.out;
  fs::remove_all(d);
}

// Every variant failing its check: nothing was compared because a check failed, exit 1.
TEST(TuneCli, EveryVariantFailingItsCheckIsExitOne) {
  const fs::path d = assay::test::fresh_test_dir("tune-all-fail");
  const auto r = assay::test::run_assay("tune tests/data/tune_cpu.toml --device cpu --variant broken=test-abort --out " +
                                            (d / "out").string(),
                                        "ASSAY_TEST_BACKENDS=1");
  EXPECT_EQ(r.code, 1) << r.out;
  EXPECT_NE(r.out.find("every variant failed its check"), std::string::npos) << r.out;
  fs::remove_all(d);
}

// --variants-of F where F is the bench's own baseline (no --baseline): F races its pinned
// configurations and is no variant of itself.
TEST(TuneCli, VariantsOfTheBenchsOwnBaseline) {
  const fs::path d = assay::test::fresh_test_dir("tune-own-baseline");
  const auto r = assay::test::run_assay("tune suites/lazy.toml --bench gemm-replay --variants-of assay --device cpu --out " +
                                        (d / "out").string());
  EXPECT_NE(r.code, 3) << r.out;
  EXPECT_EQ(r.out.find("the name is taken"), std::string::npos) << r.out;
  EXPECT_EQ(r.out.find("| `assay` |"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("| `assay@wgmma_128x256` |"), std::string::npos) << r.out;
  if (!assay::test::have_gpu()) {
    EXPECT_EQ(r.code, 2) << r.out;
    EXPECT_NE(r.out.find("the baseline assay cannot run here"), std::string::npos) << r.out;
  }
  fs::remove_all(d);
}

// Report names are reserved exclusively: a report, Markdown or tuning table already there under
// the name this second gives (another tune's, even a stale one) is never overwritten, and the
// table gets the report's own stem.
TEST(TuneCli, ReportNamesAreReservedNeverOverwritten) {
  const fs::path d = assay::test::fresh_test_dir("tune-names");
  const fs::path out = d / "out";
  fs::create_directories(out);
  std::vector<fs::path> stale;
  for (std::time_t t = std::time(nullptr), k = 0; k < 120; ++k) {
    const std::time_t at = t + k;
    char stamp[32];
    std::strftime(stamp, sizeof stamp, "%Y%m%dT%H%M%SZ", std::gmtime(&at));
    const std::string stem = (out / ("tune_cpu-tune-tune-" + std::string(stamp))).string();
    for (const std::string& name : {stem + ".json", stem + "-2.tuning.json"}) {
      std::ofstream(name) << "stale";
      stale.push_back(name);
    }
  }
  const auto r = assay::test::run_assay("tune tests/data/tune_cpu.toml --device cpu --out " + out.string() +
                                        " --variant same=cpu,ASSAY_TESTBED_SLOWDOWN=0", "ASSAY_TEST_BACKENDS=1");
  ASSERT_EQ(r.code, 0) << r.out;
  for (const auto& f : stale) EXPECT_EQ(read_text_file(f), "stale") << f;
  const auto wrote = r.out.substr(r.out.find("\nwrote ") + 7);
  EXPECT_NE(wrote.find("-3.json and "), std::string::npos) << wrote;
  EXPECT_NE(wrote.find("-3.md"), std::string::npos) << wrote;
  fs::remove_all(d);
}

// Ctrl-C during the search: no worker is started after it, none it killed counts as a failed
// check, the report is written with what was finished and marked interrupted, exit 130.
TEST(TuneCli, InterruptedWritesThePartialReport) {
  const fs::path d = assay::test::fresh_test_dir("tune-interrupt");
  std::vector<std::string> args{"tune", assay::test::source_dir() + "/tests/data/tune_cpu.toml", "--device", "cpu",
                                "--out", (d / "out").string()};
  for (int i = 0; i < 12; ++i) args.insert(args.end(), {"--variant", "v" + std::to_string(i) + "=cpu,KNOB=" + std::to_string(i)});
  const pid_t pid = assay::test::spawn_quiet(assay::test::assay_bin(), args);
  // Once the report is reserved (the search began), a second for some checks to run.
  for (int i = 0; i < 300 && (!fs::exists(d / "out") || tune_reports(d / "out").empty()); ++i)
    std::this_thread::sleep_for(std::chrono::milliseconds(100));
  std::this_thread::sleep_for(std::chrono::milliseconds(1000));
  ::kill(pid, SIGINT);
  int status = 0;
  ::waitpid(pid, &status, 0);
  ASSERT_TRUE(WIFEXITED(status));
  EXPECT_EQ(WEXITSTATUS(status), 130);
  const auto reports = tune_reports(d / "out");
  ASSERT_EQ(reports.size(), 1u);
  const auto j = nlohmann::json::parse(read_text_file(reports[0]));
  EXPECT_EQ(j["state"], "interrupted by SIGINT");
  EXPECT_EQ(j["tuning_table"], nullptr);
  ASSERT_EQ(j["variants"].size(), 12u);
  for (const auto& v : j["variants"]) EXPECT_EQ(v["check_failure"], "") << v;
  EXPECT_EQ(j["variants"][11]["dropped"], "the search was interrupted before its end");
  EXPECT_TRUE(fs::exists(fs::path(reports[0]).replace_extension(".md")));
  for (const auto& f : fs::directory_iterator(d / "out")) EXPECT_FALSE(f.path().string().ends_with(".tuning.json")) << f;
  fs::remove_all(d);
}
