// End to end: the built assay binary on small suites; exit codes, messages and files.
#include <gtest/gtest.h>

#include <cmath>
#include <cstdlib>

#include <algorithm>
#include <optional>

#include "cli_support.hpp"
#include "core/atomic_file.hpp"
#include "core/results.hpp"

using namespace assay;
using namespace assay::test;

namespace {
CliResult run(const std::string& args) { return run_assay(args); }
}  // namespace

TEST(Cli, HelpAndBadUsage) {
  const auto help = run("--help");
  EXPECT_EQ(help.code, 0);
  EXPECT_NE(help.out.find("run"), std::string::npos);
  EXPECT_EQ(run("run --help").code, 0);
  const auto bad = run("run tests/data/cpu_small.toml --no-such-flag");
  EXPECT_EQ(bad.code, 3) << bad.out;
  // What is not a command gets one line saying so, not CLI11's "a subcommand is required" too.
  for (const std::string word : {"frobnicate", "--bogus"}) {
    const auto unknown = run(word);
    EXPECT_EQ(unknown.code, 3);
    EXPECT_NE(unknown.out.find("'" + word + "' is not "), std::string::npos) << unknown.out;
    EXPECT_EQ(unknown.out.find("subcommand is required"), std::string::npos) << unknown.out;
  }
  EXPECT_EQ(run("run tests/data/cpu_small.toml --mode lukewarm").code, 3);
  const auto rounds = run("run tests/data/cpu_small.toml --device cpu --rounds 0");
  EXPECT_EQ(rounds.code, 3);
  EXPECT_NE(rounds.out.find("--rounds: Value 0 not in range 1 to 64"), std::string::npos) << rounds.out;
  const auto odd = run("run tests/data/cpu_small.toml --device cpu --rounds 3");
  EXPECT_EQ(odd.code, 3);
  EXPECT_NE(odd.out.find("--rounds 3: must be 1 or even"), std::string::npos) << odd.out;
  const auto gap = run("run tests/data/cpu_small.toml --device cpu --gap-us -5");
  EXPECT_EQ(gap.code, 3);
  EXPECT_NE(gap.out.find("--gap-us: Value -5 not in range"), std::string::npos) << gap.out;
  const auto flush = run("run tests/data/cpu_small.toml --device cpu --l2-flush dirty");
  EXPECT_EQ(flush.code, 3);
  EXPECT_NE(flush.out.find("--l2-flush"), std::string::npos) << flush.out;
  const auto tag = run("run tests/data/cpu_small.toml --device cpu --tag 'a/b'");
  EXPECT_EQ(tag.code, 3);
  EXPECT_NE(tag.out.find("--tag 'a/b'"), std::string::npos) << tag.out;
}

TEST(Cli, ListShowsWorkloadsBackendsDevices) {
  const auto r = run("list");
  EXPECT_EQ(r.code, 0) << r.out;
  EXPECT_NE(r.out.find("gemm"), std::string::npos);
  EXPECT_NE(r.out.find("cublas"), std::string::npos);
  EXPECT_NE(r.out.find("devices:"), std::string::npos);
}

// Output that cannot reach its reader (a full disk: /dev/full) is an error, not exit 0 with the
// output lost; the message goes to stderr.
TEST(Cli, AnUnwritableStandardOutputIsAnError) {
  const auto r = run_program("sh", "-c '" + assay_bin() + " list > /dev/full'");  // stderr still captured
  EXPECT_EQ(r.code, 4) << r.out;
  EXPECT_NE(r.out.find("assay: error: the standard output could not be written"), std::string::npos) << r.out;
}

TEST(Cli, WholeCpuRunWritesAValidResultsFile) {
  const fs::path out = fresh_dir("run");
  const auto r = run("run tests/data/cpu_small.toml --device cpu --tag smoke --out " + out.string());
  ASSERT_EQ(r.code, 0) << r.out;
  EXPECT_NE(r.out.find("4 ok, 0 check-failed, 0 error, 0 skipped"), std::string::npos) << r.out;
  const auto files = files_in(out, ".json");
  ASSERT_EQ(files.size(), 1u);
  EXPECT_NE(files[0].filename().string().find("cpu-small-smoke-"), std::string::npos);
  EXPECT_EQ(files_in(out, ".md").size(), 1u);
  const ResultsDocument doc = parse_results_json(read_text_file(files[0]), files[0].string());
  EXPECT_EQ(doc.run.tag, "smoke");
  EXPECT_EQ(doc.run.suite_name, "cpu-small");
  EXPECT_EQ(doc.run.device.kind, "cpu");
  EXPECT_EQ(doc.run.command_line.at(1), "run");
  ASSERT_EQ(doc.cases.size(), 4u);
  for (const auto& c : doc.cases) {
    EXPECT_EQ(c.status, CaseStatus::ok) << c.id << ": " << c.reason;
    ASSERT_TRUE(c.check && c.recheck && c.summary && c.measurement && c.derived);
    EXPECT_TRUE(c.check->passed);
    EXPECT_EQ(c.check->shape, "k=65,m=31,n=19");  // the check shape, not the measured one
    EXPECT_EQ(c.check->checked, 31u * 19);
    EXPECT_TRUE(c.recheck->passed);
    EXPECT_EQ(c.measurement->mode, "cpu");
    EXPECT_GE(c.summary->n, 5u);
    EXPECT_EQ(c.summary->n, c.measurement->samples_ns.size());
    EXPECT_GT(c.summary->median, 0);
    EXPECT_GT(c.derived->tflops, 0);
    EXPECT_DOUBLE_EQ(c.derived->flops, 2.0 * c.params.at("m") * c.params.at("n") * 33);
  }
  fs::remove_all(out);
}

TEST(Cli, RoundsFlagOverridesTheSuite) {
  const fs::path out = fresh_dir("rounds-flag");
  const auto r = run("run tests/data/cpu_small.toml --device cpu --no-isolate --rounds 4 --filter 'f32/k=33,m=17' --out " +
                     out.string());
  EXPECT_EQ(r.code, 0) << r.out;
  EXPECT_NE(r.out.find("(round 4/4) ..."), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("in 4 rounds"), std::string::npos) << r.out;
  const auto files = files_in(out, ".json");
  ASSERT_EQ(files.size(), 1u);
  const auto doc = parse_results_json(read_text_file(files[0]), files[0].string());
  ASSERT_EQ(doc.cases.size(), 1u);
  EXPECT_EQ(doc.cases[0].measurement->round_samples.size(), 4u);
  EXPECT_NE(doc.run.environment.at("rounds").find("4 (assay run --rounds"), std::string::npos);
  fs::remove_all(out);
}

namespace {
// One CPU case run in-process with `flag`: its results document (empty when the run wrote none).
std::optional<ResultsDocument> one_cpu_case_with(const std::string& flag) {
  const fs::path out = fresh_dir("one-case-flag");
  const auto r = run("run tests/data/cpu_small.toml --device cpu --no-isolate " + flag + " --filter 'f32/k=33,m=17' --out " +
                     out.string());
  EXPECT_EQ(r.code, 0) << r.out;
  const auto files = files_in(out, ".json");
  std::optional<ResultsDocument> doc;
  if (files.size() == 1) doc = parse_results_json(read_text_file(files[0]), files[0].string());
  fs::remove_all(out);
  return doc;
}
}  // namespace

// The CPU sampler keeps no gap (it has no GPU timeline), but the run records what was asked.
// A case that times out before min_samples keeps its checked samples and says so; a median
// without a 95% CI (3 samples) gets no speedup (one had been printed as if measured).
TEST(Cli, ACaseThatTimesOutEarlyHasNoSpeedupWithoutACi) {
  const fs::path dir = fresh_dir("timeout-early");
  fs::create_directories(dir);
  write_file_atomically(dir / "s.toml", R"([defaults.measure]
min_samples = 50
min_time_s = 0
warmup_min_s = 0
warmup_calls = 0
timeout_s = 0.03
[[bench]]
name = "slow"
workload = "gemm"
backends = ["cpu", "assay-lazy-cpu"]
baseline = "cpu"
dtype = "f32"
[bench.check]
shape = { m = 9, n = 7, k = 5 }
[bench.axes]
m = 384
n = 384
k = 384
)");
  const auto r = run("run " + (dir / "s.toml").string() + " --device cpu --no-history --out " + (dir / "out").string());
  const auto files = files_in(dir / "out", ".json");
  ASSERT_EQ(files.size(), 1u) << r.out;
  for (const auto& c : parse_results_json(read_text_file(files[0]), files[0].string()).cases) {
    ASSERT_EQ(c.status, CaseStatus::ok) << c.reason;
    ASSERT_TRUE(c.measurement && c.summary);
    if (c.measurement->samples_ns.size() >= 50) continue;  // a machine fast enough to finish
    EXPECT_EQ(c.measurement->stop_reason, "timeout");
    EXPECT_NE(c.reason.find("of the 50 samples min_samples asks for"), std::string::npos) << c.reason;
    if (!std::isfinite(c.summary->median_ci_rel_halfwidth)) EXPECT_FALSE(c.speedup_vs_baseline.has_value()) << c.id;
  }
  fs::remove_all(dir);
}

TEST(Cli, GapFlagIsRecordedInTheRun) {
  const auto doc = one_cpu_case_with("--gap-us 150");
  ASSERT_TRUE(doc.has_value());
  EXPECT_NE(doc->run.environment.at("gap_us").find("150 (assay run --gap-us"), std::string::npos);
  EXPECT_EQ(doc->cases[0].measurement->gap_us, 0.0);
}

// The CPU sampler flushes nothing, so its cases record no flush; the run records what was asked.
TEST(Cli, L2FlushFlagIsRecordedInTheRun) {
  const auto doc = one_cpu_case_with("--l2-flush clean");
  ASSERT_TRUE(doc.has_value());
  EXPECT_NE(doc->run.environment.at("l2_flush").find("clean (assay run --l2-flush"), std::string::npos);
  EXPECT_EQ(doc->cases[0].measurement->l2_flush, "");
}

TEST(Cli, JsonOnStdout) {
  const fs::path out = fresh_dir("json");
  const std::string cmd = "cd " + source_dir() + " && " + assay_bin() +
                          " run tests/data/cpu_small.toml --device cpu --json --filter 'f32/.*m=17' --out " +
                          out.string() + " 2>/dev/null";
  std::string text;
  FILE* p = popen(cmd.c_str(), "r");
  std::array<char, 4096> buf{};
  while (fgets(buf.data(), buf.size(), p)) text += buf.data();
  EXPECT_EQ(pclose(p), 0);
  const ResultsDocument doc = parse_results_json(text, "stdout");
  ASSERT_EQ(doc.cases.size(), 1u);
  EXPECT_EQ(doc.cases[0].id, "gemm-cpu/cpu/f32/k=33,m=17,n=17");
  fs::remove_all(out);
}

TEST(Cli, FailedCheckExitsOneAndIsNotTimed) {
  const fs::path out = fresh_dir("strict");
  const auto r = run("run tests/data/cpu_strict.toml --device cpu --out " + out.string());
  EXPECT_EQ(r.code, 1) << r.out;
  EXPECT_NE(r.out.find("check-failed: check failed: fails="), std::string::npos) << r.out;
  const auto files = files_in(out, ".json");
  ASSERT_EQ(files.size(), 1u);
  const ResultsDocument doc = parse_results_json(read_text_file(files[0]), files[0].string());
  ASSERT_EQ(doc.cases.size(), 1u);
  EXPECT_EQ(doc.cases[0].status, CaseStatus::check_failed);
  EXPECT_FALSE(doc.cases[0].measurement.has_value());
  EXPECT_FALSE(doc.cases[0].summary.has_value());
  EXPECT_GT(doc.cases[0].check->fails, 0u);
  fs::remove_all(out);
}

TEST(Cli, CheckSubcommandDoesNotMeasure) {
  const fs::path out = fresh_dir("check");
  const auto r = run("check tests/data/cpu_small.toml --device cpu --out " + out.string());
  EXPECT_EQ(r.code, 0) << r.out;
  const auto files = files_in(out, ".json");
  ASSERT_EQ(files.size(), 1u);
  const ResultsDocument doc = parse_results_json(read_text_file(files[0]), files[0].string());
  EXPECT_EQ(doc.run.mode, "check");
  for (const auto& c : doc.cases) {
    EXPECT_EQ(c.status, CaseStatus::ok);
    EXPECT_TRUE(c.check && c.check->passed);
    EXPECT_FALSE(c.measurement.has_value());
  }
  fs::remove_all(out);
}

TEST(Cli, MalformedSuiteExitsThreeWithOneLineAndNoFile) {
  const fs::path out = fresh_dir("malformed");
  const auto r = run("run tests/data/malformed.toml --device cpu --out " + out.string());
  EXPECT_EQ(r.code, 3) << r.out;
  EXPECT_NE(r.out.find("assay: error: tests/data/malformed.toml:5:1: malformed TOML"), std::string::npos) << r.out;
  EXPECT_EQ(std::count(r.out.begin(), r.out.end(), '\n'), 1) << r.out;
  EXPECT_FALSE(fs::exists(out));
  const auto missing = run("run no/such/suite.toml");
  EXPECT_EQ(missing.code, 3);
  EXPECT_NE(missing.out.find("no/such/suite.toml: cannot open"), std::string::npos) << missing.out;
}

TEST(Cli, GpuSuiteOnCpuDeviceIsSkippedWithExitTwo) {
  const fs::path out = fresh_dir("skip");
  const auto r = run("run suites/gemm.toml --device cpu --out " + out.string());
  EXPECT_EQ(r.code, 2) << r.out;
  EXPECT_NE(r.out.find("skipped: --device cpu"), std::string::npos) << r.out;
  EXPECT_FALSE(fs::exists(out));
}

TEST(Cli, GpuSuiteWithoutGpuSaysNoCudaDevice) {
  if (have_gpu()) GTEST_SKIP() << "a CUDA device is present; this test is for machines without one";
  const fs::path out = fresh_dir("nogpu");
  const auto r = run("run suites/gemm.toml --out " + out.string());
  EXPECT_EQ(r.code, 2) << r.out;
  EXPECT_NE(r.out.find("skipped: no CUDA device"), std::string::npos) << r.out;
}

// --devices asks for GPUs: where there is none it is bad usage (exit 3), not a skipped run, and
// nothing is written.
TEST(Cli, DevicesWithoutGpuIsBadUsage) {
  if (have_gpu()) GTEST_SKIP() << "a CUDA device is present; this test is for machines without one";
  const fs::path out = fresh_dir("devices-nogpu");
  for (const char* list : {"all", "0,1"}) {
    const auto r = run(std::string("run suites/gemm.toml --devices ") + list + " --out " + out.string());
    EXPECT_EQ(r.code, 3) << r.out;
    EXPECT_NE(r.out.find("--devices: no CUDA device here"), std::string::npos) << r.out;
  }
  EXPECT_FALSE(fs::exists(out));
}

TEST(CliGpu, TooLargeForDeviceMemoryIsACaseErrorAndTheRestRuns) {
  if (!have_gpu()) GTEST_SKIP() << "skipped: no CUDA device";
  const fs::path out = fresh_dir("toolarge");
  const auto r = run("run tests/data/gpu_too_large.toml --out " + out.string());
  EXPECT_EQ(r.code, 4) << r.out;
  const auto files = files_in(out, ".json");
  ASSERT_EQ(files.size(), 1u) << r.out;
  const ResultsDocument doc = parse_results_json(read_text_file(files[0]), files[0].string());
  ASSERT_EQ(doc.cases.size(), 2u);
  EXPECT_EQ(doc.cases[0].status, CaseStatus::error);
  EXPECT_NE(doc.cases[0].reason.find("of memory;"), std::string::npos) << doc.cases[0].reason;
  EXPECT_TRUE(doc.cases[0].check && doc.cases[0].check->passed);  // the small check shape ran
  EXPECT_EQ(doc.cases[1].status, CaseStatus::ok) << doc.cases[1].reason;
  fs::remove_all(out);
}

TEST(CliGpu, QuickGpuRunHasSpeedupsAndClocks) {
  if (!have_gpu()) GTEST_SKIP() << "skipped: no CUDA device";
  const fs::path out = fresh_dir("gpuquick");
  const auto r = run("run tests/data/gpu_small.toml --out " + out.string());
  ASSERT_EQ(r.code, 0) << r.out;
  const auto files = files_in(out, ".json");
  ASSERT_EQ(files.size(), 1u);
  const ResultsDocument doc = parse_results_json(read_text_file(files[0]), files[0].string());
  EXPECT_EQ(doc.run.device.kind, "cuda");
  EXPECT_FALSE(doc.run.device.uuid.empty());
  EXPECT_GT(doc.run.device.l2_bytes, 0u);
  for (const auto& c : doc.cases) {
    ASSERT_EQ(c.status, CaseStatus::ok) << c.id << ": " << c.reason;
    EXPECT_EQ(c.measurement->mode, "cold");
    EXPECT_EQ(c.measurement->sm_clock_mhz.size(), c.measurement->samples_ns.size());
    EXPECT_GE(c.measurement->l2_flush_bytes, 2 * doc.run.device.l2_bytes);
    ASSERT_TRUE(c.speedup_vs_baseline.has_value()) << c.id;
    if (c.backend == "cublas") EXPECT_DOUBLE_EQ(*c.speedup_vs_baseline, 1.0);
    // The ratio at one clock wherever every sample of the case and of its baseline has a clock.
    bool clocked = true;
    for (const auto& b : doc.cases)
      if (b.params == c.params && (b.backend == c.backend || b.backend == c.baseline))
        clocked = clocked && !cycle_samples(*b.measurement).empty();
    EXPECT_EQ(c.cycles_speedup_vs_baseline.has_value(), clocked) << c.id;
    EXPECT_GT(c.derived->pct_of_peak, 0);
  }
  fs::remove_all(out);
}

// --gap-us reaches the isolated workers: every CUDA case keeps the gap, and its samples are at
// least the gap apart (the first has none before it; the suite's warm-up is one call and no
// sample is dropped, so a case's elapsed time is its samples and the gaps between them).
TEST(CliGpu, GapFlagReachesTheWorkers) {
  if (!have_gpu()) GTEST_SKIP() << "skipped: no CUDA device";
  const fs::path out = fresh_dir("gpugap");
  const auto r = run("run tests/data/gpu_gap.toml --gap-us 500 --out " + out.string());
  ASSERT_EQ(r.code, 0) << r.out;
  const auto files = files_in(out, ".json");
  ASSERT_EQ(files.size(), 1u);
  const ResultsDocument doc = parse_results_json(read_text_file(files[0]), files[0].string());
  for (const auto& c : doc.cases) {
    ASSERT_EQ(c.status, CaseStatus::ok) << c.id << ": " << c.reason;
    const auto n = c.measurement->samples_ns.size();
    EXPECT_EQ(c.measurement->gap_us, 500.0) << c.id;
    EXPECT_LE(c.measurement->gap_overruns, std::max<std::size_t>(2, n / 10)) << c.id;
    EXPECT_GE(c.measurement->elapsed_s, static_cast<double>(n - 1) * 500e-6) << c.id << ": " << n << " samples";
  }
  fs::remove_all(out);
}

// Every argument is checked before the first case runs, with exit 3 and the flag named.
TEST(Cli, BadArgumentsStopTheRunBeforeAnyCase) {
  const auto no_out = run("run tests/data/cpu_small.toml --device cpu --out ''");
  EXPECT_EQ(no_out.code, 3) << no_out.out;
  EXPECT_NE(no_out.out.find("--out '': name a folder for the results"), std::string::npos) << no_out.out;
  EXPECT_EQ(no_out.out.find("gemm-cpu/"), std::string::npos) << "a case ran: " << no_out.out;
  const auto unusable = run("run tests/data/cpu_small.toml --device cpu --out /proc/assay-cannot-be-here");
  EXPECT_EQ(unusable.code, 3) << unusable.out;
  EXPECT_NE(unusable.out.find("--out '/proc/assay-cannot-be-here': cannot create this folder"), std::string::npos)
      << unusable.out;
  EXPECT_EQ(unusable.out.find("gemm-cpu/"), std::string::npos) << "a case ran: " << unusable.out;
  const auto nan_gap = run("run tests/data/cpu_small.toml --device cpu --gap-us nan");
  EXPECT_EQ(nan_gap.code, 3) << nan_gap.out;
  EXPECT_NE(nan_gap.out.find("--gap-us"), std::string::npos) << nan_gap.out;
  const auto negative_seed = run("run tests/data/cpu_small.toml --device cpu --seed -1");
  EXPECT_EQ(negative_seed.code, 3) << negative_seed.out;
  EXPECT_NE(negative_seed.out.find("--seed"), std::string::npos) << negative_seed.out;
}

// Runs started together into one folder and one history: each gets its own document, and the
// history keeps every run.
TEST(Cli, ConcurrentRunsIntoOneFolderKeepEveryDocumentAndRow) {
  const fs::path out = fresh_dir("concurrent");
  const std::string db = (out / "h.db").string();
  std::string cmd = "cd " + source_dir() + " || exit 1; ";  // not `&&`: that would put the cd in the first job only
  for (int i = 0; i < 8; ++i)
    cmd += assay_bin() + " run tests/data/cpu_small.toml --device cpu --quiet --tag same --out " + out.string() +
           " --history " + db + " > /dev/null 2>&1 & ";
  ASSERT_EQ(std::system((cmd + "wait").c_str()), 0);
  const auto docs = files_in(out, ".json");
  EXPECT_EQ(docs.size(), 8u);
  for (const auto& f : docs) {
    const auto doc = parse_results_json(read_text_file(f), f.string());
    EXPECT_EQ(doc.cases.size(), 4u) << f;
  }
  const auto history = run("history --history " + db);
  EXPECT_EQ(history.code, 0) << history.out;
  EXPECT_EQ(std::count(history.out.begin(), history.out.end(), '\n'), 9) << history.out;  // header + 8 runs
  // Flags that cannot apply are refused, naming them (exit 3), not wrapped or ignored.
  for (const auto& [flags, want] : std::vector<std::pair<std::string, std::string>>{
           {"--bench gemm-cpu --window 3", "--window 3: at least 4 runs"},
           {"--bench gemm-cpu --window -1", "--window -1: at least 4 runs"},
           {"--limit -2", "--limit -2: a count"},
           {"--bench gemm-cpu --suite cpu_small", "--suite lists runs: it does not apply to the trends"}}) {
    const auto bad = run("history --history " + db + " " + flags);
    EXPECT_EQ(bad.code, 3) << flags << ": " << bad.out;
    EXPECT_NE(bad.out.find(want), std::string::npos) << flags << ": " << bad.out;
  }
  fs::remove_all(out);
}
