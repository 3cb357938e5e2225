// `assay ab` end to end on the CPU: two builds (here assay-testbed twice, the candidate with a
// planted slowdown) measured in alternating rounds, written as one pair, compared pair by pair.
#include <gtest/gtest.h>

#include <fcntl.h>
#include <signal.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <fstream>
#include <thread>

#include "cli_support.hpp"
#include "compare_test_docs.hpp"
#include "core/atomic_file.hpp"
#include "core/results.hpp"

using namespace assay;
using assay::test::assay_testbed_bin;
using assay::test::run_assay_in;
namespace fs = std::filesystem;

namespace {

std::vector<fs::path> results_of(const fs::path& out) {
  std::vector<fs::path> found;
  for (const auto& e : fs::recursive_directory_iterator(out))
    if (e.path().extension() == ".json") found.push_back(e.path());
  std::sort(found.begin(), found.end());
  return found;
}

ResultsDocument read_doc(const fs::path& f) { return parse_results_json(read_text_file(f), f.string()); }

std::vector<std::string> ab_args(const fs::path& out, const std::string& slowdown) {
  std::vector<std::string> a{"ab", assay::test::source_dir() + "/tests/data/ab_cpu.toml", "--device", "cpu", "--base",
                             assay_testbed_bin(), "--candidate", assay_testbed_bin(), "--rounds", "4", "--out",
                             out.string(), "--fail-on", "slower"};
  if (!slowdown.empty()) {
    a.push_back("--candidate-env");
    a.push_back("ASSAY_TESTBED_SLOWDOWN=" + slowdown);
  }
  return a;
}

}  // namespace

TEST(AbCli, PlantedSlowdownIsSlowerRoundPairByRoundPair) {
  const fs::path d = assay::test::fresh_test_dir("ab-planted");
  const auto r = run_assay_in(d, ab_args(d / "out", "0.9"));
  // On a shared CI machine the CPU GEMM's rounds can differ by 10x (the other tests take the
  // cores), so 4 pairs may not reach p < 0.01: SLOWER (exit 1, --fail-on slower) or AMBIGUOUS
  // (exit 0), never FASTER or SAME. The power of the paired test is tested on synthetic samples
  // (test_compare_noise.cpp) and measured on the GPU (bench/README.md).
  EXPECT_TRUE(r.code == 1 || r.code == 0) << r.out;
  EXPECT_EQ(r.code == 1, r.out.find("1 SLOWER") != std::string::npos) << r.out;
  EXPECT_NE(r.out.find("0 FASTER, "), std::string::npos) << r.out;
  EXPECT_NE(r.out.find(", 0 SAME, "), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("paired rounds (4 pairs)"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("assay ab: 1 case, 4 rounds a side, "), std::string::npos) << r.out;  // what it cost
  const auto files = results_of(d / "out");
  ASSERT_EQ(files.size(), 2u);  // base.json, candidate.json in one folder
  EXPECT_EQ(files[0].filename(), "base.json");
  EXPECT_EQ(files[1].filename(), "candidate.json");
  const ResultsDocument base = read_doc(files[0]);
  const ResultsDocument cand = read_doc(files[1]);
  EXPECT_FALSE(base.run.ab_pair.empty());
  EXPECT_EQ(base.run.ab_pair, cand.run.ab_pair);
  EXPECT_EQ(base.run.ab_side, "base");
  EXPECT_EQ(cand.run.ab_side, "candidate");
  EXPECT_EQ(cand.run.environment.at("ab.candidate.ASSAY_TESTBED_SLOWDOWN"), "0.9");
  ASSERT_EQ(cand.cases.size(), 1u);
  ASSERT_TRUE(cand.cases[0].measurement);
  EXPECT_EQ(cand.cases[0].measurement->round_samples.size(), 4u);
  EXPECT_NE(cand.cases[0].variant.find("+planted"), std::string::npos) << cand.cases[0].variant;
  EXPECT_EQ(base.cases[0].variant.find("+planted"), std::string::npos);
  // `assay compare` on the two files finds the pair again.
  const auto again = run_assay_in(d, {"compare", files[0].string(), files[1].string()});
  EXPECT_NE(again.out.find("paired rounds (4 pairs)"), std::string::npos) << again.out;
}

// ASSAY_TESTBED_PLANT=extra-k: the planted work is inside the call (A and B zero-padded along
// k, k 96 -> 160 at 0.9), and the padded product is still checked against the unpadded oracle.
TEST(AbCli, ExtraKPlantIsInsideTheCallAndStillChecked) {
  const fs::path d = assay::test::fresh_test_dir("ab-extra-k");
  auto args = ab_args(d / "out", "0.9");
  args.push_back("--candidate-env");
  args.push_back("ASSAY_TESTBED_PLANT=extra-k");
  const auto r = run_assay_in(d, args);
  EXPECT_TRUE(r.code == 1 || r.code == 0) << r.out;
  EXPECT_NE(r.out.find("0 FASTER, "), std::string::npos) << r.out;
  const auto files = results_of(d / "out");
  ASSERT_EQ(files.size(), 2u);
  const ResultsDocument cand = read_doc(files[1]);
  ASSERT_EQ(cand.cases.size(), 1u);
  EXPECT_EQ(cand.cases[0].status, CaseStatus::ok) << case_status_name(cand.cases[0].status);
  EXPECT_NE(cand.cases[0].variant.find("+planted 66.67% more multiply-adds (k 96 -> 160"), std::string::npos)
      << cand.cases[0].variant;
}

TEST(AbCli, BadInputIsExitThreeBeforeAnyCase) {
  const fs::path d = assay::test::fresh_test_dir("ab-bad");
  auto odd = ab_args(d / "out", "");
  odd[9] = "3";  // --rounds 3
  const auto r1 = run_assay_in(d, odd);
  EXPECT_EQ(r1.code, 3) << r1.out;
  EXPECT_NE(r1.out.find("--rounds 3: an even number"), std::string::npos) << r1.out;
  auto missing = ab_args(d / "out", "");
  missing[5] = (d / "no-such-assay").string();
  const auto r2 = run_assay_in(d, missing);
  EXPECT_EQ(r2.code, 3) << r2.out;
  EXPECT_NE(r2.out.find("--base '"), std::string::npos) << r2.out;
  auto bad_env = ab_args(d / "out", "");
  bad_env.push_back("--base-env");
  bad_env.push_back("not a setting");
  EXPECT_EQ(run_assay_in(d, bad_env).code, 3);
  // A build whose worker cannot read this assay's requests: one error naming the side.
  const fs::path foreign = d / "foreign-assay";
  write_file_atomically(foreign, "#!/bin/sh\nif [ \"$1\" = --version ]; then echo 'assay 0.1.0 (old)'; exit 0; fi\n"
                                 "echo 'assay worker: worker request: unknown field' >&2; exit 4\n");
  ::chmod(foreign.c_str(), 0755);
  auto old = ab_args(d / "out", "");
  old[5] = foreign.string();
  const auto r3 = run_assay_in(d, old);
  EXPECT_EQ(r3.code, 3) << r3.out;
  EXPECT_NE(r3.out.find("--base " + foreign.string() + ": its worker cannot read"), std::string::npos) << r3.out;
  EXPECT_FALSE(fs::exists(d / "no-such-assay"));
}

// --max-rounds: a case still AMBIGUOUS gets two more rounds at a time; the documents say how many
// looks were allowed, and compare tests the verdicts at alpha / looks. (Whether the A/A case here
// stops at 2 rounds or runs to 6 depends on this machine's noise; both are valid.)
TEST(AbCli, SequentialRoundsExtendUndecidedCases) {
  const fs::path d = assay::test::fresh_test_dir("ab-sequential");
  auto args = ab_args(d / "out", "");
  args[9] = "2";  // --rounds 2
  // A floor of 0.5%: identical builds are rarely decided within it, so the case grows past 2 rounds.
  args.insert(args.end(), {"--max-rounds", "6", "--also-cycles", "--floor", "0.5"});
  const auto r = run_assay_in(d, args);
  EXPECT_TRUE(r.code == 0 || r.code == 1) << r.out;
  EXPECT_NE(r.out.find("sequential, 3 looks"), std::string::npos) << r.out;
  // --also-cycles reaches the looks and compare; a CPU case has no clock probe: time alone.
  EXPECT_NE(r.out.find("--also-cycles: each verdict from time and from cycles"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("1 case without a clock probe judged on time alone"), std::string::npos) << r.out;
  const auto files = results_of(d / "out");
  ASSERT_EQ(files.size(), 2u);
  const ResultsDocument base = read_doc(files[0]);
  const ResultsDocument cand = read_doc(files[1]);
  EXPECT_EQ(base.run.environment.at("ab.looks"), "3");
  EXPECT_EQ(cand.run.environment.at("ab.max_rounds"), "6");
  EXPECT_EQ(cand.run.environment.at("ab.also_cycles"), "1");
  ASSERT_EQ(cand.cases.size(), 1u);
  ASSERT_TRUE(cand.cases[0].measurement && base.cases[0].measurement);
  const std::size_t rounds = cand.cases[0].measurement->round_samples.size();
  EXPECT_TRUE(rounds == 2 || rounds == 4 || rounds == 6) << rounds;
  EXPECT_EQ(base.cases[0].measurement->round_samples.size(), rounds);
  for (const auto* doc : {&base, &cand}) {
    // The round that ended the case rechecked its output (rounds added by the sequential rule had
    // none), and the rounds together keep at most max_samples (5000 by default).
    const CaseRecord& c = doc->cases[0];
    ASSERT_TRUE(c.recheck.has_value()) << c.id;
    EXPECT_TRUE(c.recheck->passed);
    EXPECT_LE(c.measurement->samples_ns.size(), 5000u);
  }

  for (const auto& [max, says] : std::vector<std::pair<std::string, std::string>>{
           {"3", "--max-rounds 3: an even number from --rounds (2) to 64"},
           {"66", "--max-rounds"}}) {
    auto bad = ab_args(d / "bad", "");
    bad[9] = "2";
    bad.insert(bad.end(), {"--max-rounds", max});
    const auto e = run_assay_in(d, bad);
    EXPECT_EQ(e.code, 3) << e.out;
    EXPECT_NE(e.out.find(says), std::string::npos) << e.out;
  }
  auto below = ab_args(d / "bad", "");  // --rounds 4 --max-rounds 2
  below.insert(below.end(), {"--max-rounds", "2"});
  EXPECT_EQ(run_assay_in(d, below).code, 3);
  EXPECT_FALSE(fs::exists(d / "bad"));
}

// Ctrl-C during `assay ab`: exit 128+2, both documents whole (the cases measured so far, the rest
// interrupted).
TEST(AbCli, InterruptedKeepsBothDocumentsWhole) {
  const fs::path d = assay::test::fresh_test_dir("ab-interrupt");
  write_file_atomically(d / "slow.toml", R"([defaults.measure]
min_samples = 8
min_time_s = 0.3
warmup_min_s = 0
timeout_s = 2
case_timeout_s = 20
[[bench]]
name = "ab"
workload = "gemm"
backends = ["cpu"]
dtype = "f32"
[bench.axes]
m = [32, 48, 64, 80, 96]
n = 32
k = 32
)");
  auto args = ab_args(d / "out", "");
  args[1] = (d / "slow.toml").string();
  const pid_t pid = assay::test::spawn_quiet(assay::test::assay_bin(), args);
  std::this_thread::sleep_for(std::chrono::milliseconds(2500));
  ::kill(pid, SIGINT);
  int status = 0;
  ::waitpid(pid, &status, 0);
  ASSERT_TRUE(WIFEXITED(status));
  EXPECT_EQ(WEXITSTATUS(status), 130);
  const auto files = results_of(d / "out");
  ASSERT_EQ(files.size(), 2u);
  for (const auto& f : files) {
    const ResultsDocument doc = read_doc(f);
    EXPECT_EQ(doc.cases.size(), 5u) << f;
    EXPECT_EQ(doc.cases.back().status, CaseStatus::interrupted) << f;
  }
}

// Two adapter commands, one assay: each side's workers get their own TVM_BENCH_CMD. The
// candidate's adapter writes a wrong output: its case FAILED, which always fails the gate.
TEST(AbCli, EachSideGetsItsOwnAdapterCommand) {
  const fs::path d = assay::test::fresh_test_dir("ab-adapters");
  write_file_atomically(d / "tvm.toml", R"([defaults.measure]
min_samples = 3
min_time_s = 0.01
warmup_min_s = 0
[[bench]]
name = "ab"
workload = "gemm"
backends = ["tvm"]
dtype = "f32"
[bench.axes]
m = [8]
n = 8
k = 8
)");
  const std::string fake = "python3 " + assay::test::source_dir() + "/tests/adapters/fake_adapter.py ";
  const std::string bin = assay::test::assay_bin();
  const auto r = run_assay_in(d, {"ab", (d / "tvm.toml").string(), "--device", "cpu", "--base", bin, "--candidate", bin,
                                  "--rounds", "2", "--out", (d / "out").string(), "--base-env",
                                  "TVM_BENCH_CMD=" + fake + "ok", "--candidate-env", "TVM_BENCH_CMD=" + fake + "wrong"});
  EXPECT_EQ(r.code, 1) << r.out;
  EXPECT_NE(r.out.find("base ok"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("candidate check-failed"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("1 FAILED"), std::string::npos) << r.out;
}

// A build older than `l2_flush` reads a request without the field and times with a memset (and
// times adapters the other side skips): under --l2-flush clean, ab refuses it. A wrapper that drops
// the field plays that build; with both sides current the run goes through.
TEST(AbCli, ACleanFlushRefusesASideThatIgnoresIt) {
  const fs::path out = assay::test::fresh_dir("ab-clean-old-side"), old_side = out / "old.sh";
  fs::create_directories(out);
  std::ofstream(old_side) << "#!/bin/sh\nsed 's/,\"l2_flush\":\"[a-z]*\"//' | exec " << assay::test::assay_bin() << " \"$@\"\n";
  fs::permissions(old_side, fs::perms::owner_all);
  const auto ab = [&](const std::string& base, const std::string& dir) {
    return assay::test::run_assay("ab tests/data/adapter_fake.toml --device cpu --rounds 2 --l2-flush clean --base " + base +
                                      " --candidate " + assay::test::assay_bin() + " --out " + (out / dir).string(),
                                  "TVM_BENCH_CMD='python3 tests/adapters/fake_adapter.py ok'");
  };
  const auto old = ab(old_side.string(), "a");
  EXPECT_EQ(old.code, 3) << old.out;
  EXPECT_NE(old.out.find("its worker ignored l2_flush = \"clean\""), std::string::npos) << old.out;
  const auto both = ab(assay::test::assay_bin(), "b");
  EXPECT_EQ(both.code, 0) << both.out;
  fs::remove_all(out);
}
