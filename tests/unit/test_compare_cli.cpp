// End to end: the built assay binary runs, records, repeats, compares and lists history; exit
// codes, the one-line errors of bad input, and the files each command writes.
#include <gtest/gtest.h>

#include <chrono>
#include <ctime>
#include <filesystem>
#include <nlohmann/json.hpp>

#include "cli_support.hpp"
#include "compare_test_docs.hpp"
#include "compare_test_samples.hpp"
#include "core/atomic_file.hpp"
#include "core/results.hpp"

namespace fs = std::filesystem;
using namespace assay;
using assay::test::doc_on;
using assay::test::kH100;
using assay::test::ok_case;

namespace {
using Outcome = assay::test::CliResult;
using assay::test::run_assay_in;
using assay::test::source_dir;

std::size_t line_count(const std::string& s) { return static_cast<std::size_t>(std::count(s.begin(), s.end(), '\n')); }

// base.json and a candidate whose first case is `factor` times slower, the second unchanged.
void write_pair(const fs::path& d, double factor, bool cand_check_fails = false) {
  assay::test::SampleSource src(5);
  const auto base = doc_on(kH100, {ok_case("gemm", "assay", 1024, src.lognormal(40, 100000, 0.01)),
                                  ok_case("gemm", "cublas", 1024, src.lognormal(40, 90000, 0.01))});
  auto cand = doc_on(kH100, {ok_case("gemm", "assay", 1024, src.lognormal(40, 100000 * factor, 0.01)),
                            ok_case("gemm", "cublas", 1024, src.lognormal(40, 90000, 0.01))});
  if (cand_check_fails) cand.cases[1] = assay::test::failed_case("gemm", "cublas", 1024);
  write_file_atomically(d / "base.json", to_json_text(base));
  write_file_atomically(d / "cand.json", to_json_text(cand));
}
}  // namespace

TEST(CompareCli, GateExitCodesAndOutputs) {
  const fs::path d = assay::test::fresh_test_dir("gate");
  write_pair(d, 1.05);
  const Outcome plain = run_assay_in(d, {"compare", "base.json", "cand.json"});
  EXPECT_EQ(plain.code, 0) << plain.out;
  EXPECT_NE(plain.out.find("1 SLOWER"), std::string::npos) << plain.out;
  // One session a side and no history: the SLOWER is marked and does not fail the gate.
  const Outcome single = run_assay_in(d, {"compare", "base.json", "cand.json", "--fail-on", "slower"});
  EXPECT_EQ(single.code, 0) << single.out;
  EXPECT_NE(single.out.find("SLOWER?  "), std::string::npos) << single.out;
  EXPECT_NE(single.out.find("within-session"), std::string::npos) << single.out;
  EXPECT_NE(single.out.find("1 case(s) SLOWER? not gated"), std::string::npos) << single.out;
  const Outcome gated = run_assay_in(d, {"compare", "base.json", "cand.json", "--fail-on", "slower", "--gate-single-session",
                                  "--markdown", "out/c.md", "--junit", "out/j.xml", "--csv", "out/c.csv", "--bmf", "out/b.json"});
  EXPECT_EQ(gated.code, 1) << gated.out;
  EXPECT_NE(gated.out.find("gate: FAIL"), std::string::npos);
  for (const char* f : {"out/c.md", "out/j.xml", "out/c.csv", "out/b.json"}) EXPECT_GT(fs::file_size(d / f), 100u) << f;
  std::size_t entries = 0;
  for ([[maybe_unused]] const auto& e : fs::directory_iterator(d / "out")) ++entries;
  EXPECT_EQ(entries, 4u);  // no temporary files left behind
  EXPECT_NE(read_text_file(d / "out/c.md").find("| SLOWER? |"), std::string::npos);
  EXPECT_EQ(nlohmann::json::parse(read_text_file(d / "out/b.json")).size(), 2u);

  // Promotion: every case must be FASTER. The unchanged case is not.
  write_pair(d, 0.95);
  EXPECT_EQ(run_assay_in(d, {"compare", "base.json", "cand.json", "--fail-on", "slower"}).code, 0);
  EXPECT_EQ(run_assay_in(d, {"compare", "base.json", "cand.json", "--require", "faster"}).code, 1);
  // A single-session FASTER without history does not prove a promotion.
  EXPECT_EQ(run_assay_in(d, {"compare", "base.json", "cand.json", "--require", "faster", "--filter", "assay/"}).code, 1);
  EXPECT_EQ(run_assay_in(d, {"compare", "base.json", "cand.json", "--require", "faster", "--filter", "assay/",
                             "--gate-single-session"}).code, 0);
  // Throughput keeps the direction: the faster candidate is FASTER in TFLOP/s too.
  EXPECT_EQ(run_assay_in(d, {"compare", "base.json", "cand.json", "--metric", "tflops", "--require", "faster", "--filter",
                      "assay/", "--gate-single-session"}).code,
            0);
}

TEST(CompareCli, FailedCheckInTheCandidateAlwaysFails) {
  const fs::path d = assay::test::fresh_test_dir("failed");
  write_pair(d, 1.0, true);
  const Outcome r = run_assay_in(d, {"compare", "base.json", "cand.json"});
  EXPECT_EQ(r.code, 1) << r.out;
  EXPECT_NE(r.out.find("FAILED their check"), std::string::npos) << r.out;
}

TEST(CompareCli, BadInputIsOneLineAndExitThree) {
  const fs::path d = assay::test::fresh_test_dir("bad");
  write_pair(d, 1.0);
  const std::string good = read_text_file(d / "base.json");
  write_file_atomically(d / "truncated.json", good.substr(0, good.size() - 100));
  write_file_atomically(d / "foreign.json", R"({"hello": "world"})");
  auto newer = nlohmann::json::parse(good);
  newer["schema_version"] = 2;
  write_file_atomically(d / "newer.json", newer.dump());
  const std::vector<std::vector<std::string>> bad = {
      {"compare", "base.json", "truncated.json"},
      {"compare", "foreign.json", "cand.json"},
      {"compare", "base.json", "newer.json"},
      {"compare", "base.json", "no-such-tag"},
      {"compare", "base.json", "cand.json", "--fail-on", "worse"},
      {"compare", "base.json", "cand.json", "--filter", "("},
      {"compare", "base.json", "cand.json", "--also-cycles", "--metric", "tflops"},
      {"history"},
  };
  for (const auto& args : bad) {
    const Outcome r = run_assay_in(d, args);
    EXPECT_EQ(r.code, 3) << args[args.size() - 1] << ": " << r.out;
    EXPECT_EQ(line_count(r.out), 1u) << r.out;
    EXPECT_EQ(r.out.rfind("assay: error: ", 0), 0u) << r.out;
  }
  EXPECT_FALSE(fs::exists(d / ".assay"));  // reading never created a history
}

// An output must not replace what the comparison reads: a results file, a document in a results
// folder, the history database (each was overwritten with exit 0), or another output. Paths the
// system refuses (a name over 255 bytes) are bad input too, not an internal error; --resamples
// is bounded.
TEST(CompareCli, OutputsNeverReplaceInputsAndBadPathsAreBadInput) {
  const fs::path d = assay::test::fresh_test_dir("outputs_over_inputs");
  write_pair(d, 1.0);
  fs::create_directories(d / "fold");
  fs::copy_file(d / "cand.json", d / "fold" / "cand.json");
  write_file_atomically(d / "history.db", "not touched");
  const std::string base = read_text_file(d / "base.json");
  const std::string long_name(300, 'a');
  const std::vector<std::vector<std::string>> bad = {
      {"compare", "base.json", "cand.json", "--markdown", "base.json"},
      {"compare", "base.json", "cand.json", "--csv", "./cand.json"},
      {"compare", "base.json", "fold", "--bmf", "fold/cand.json"},
      {"compare", "base.json", "cand.json", "--history", "history.db", "--junit", "history.db"},
      {"compare", "base.json", "cand.json", "--markdown", "o.md", "--csv", "o.md"},
      {"compare", "base.json", "cand.json", "--markdown", long_name + "/o.md"},
      {"compare", "base.json", long_name},
      {"compare", "base.json", "cand.json", "--resamples", "2000000000"},
  };
  for (const auto& args : bad) {
    const Outcome r = run_assay_in(d, args);
    EXPECT_EQ(r.code, 3) << args.back().substr(0, 40) << ": " << r.out;
    EXPECT_EQ(line_count(r.out), 1u) << r.out;
    EXPECT_EQ(r.out.rfind("assay: error: ", 0), 0u) << r.out;
  }
  EXPECT_EQ(read_text_file(d / "base.json"), base);
  EXPECT_EQ(read_text_file(d / "history.db"), "not touched");
  EXPECT_TRUE(fs::exists(d / "fold" / "cand.json"));
  EXPECT_FALSE(fs::exists(d / "o.md"));
}

TEST(CompareCli, RunRepeatHistoryAndCompareByTag) {
  const fs::path d = assay::test::fresh_test_dir("e2e");
  const std::string suite = source_dir() + "/tests/data/cpu_small.toml";
  const std::string db = (d / "h.db").string();
  const Outcome first = run_assay_in(d, {"run", suite, "--device", "cpu", "--tag", "base", "--out", "res", "--history", db, "--quiet"});
  ASSERT_EQ(first.code, 0) << first.out;
  const Outcome repeated =
      run_assay_in(d, {"run", suite, "--device", "cpu", "--tag", "cand", "--out", "res", "--history", db, "--quiet", "--repeat", "2"});
  ASSERT_EQ(repeated.code, 0) << repeated.out;
  EXPECT_NE(repeated.out.find("2 of 2 sessions ran"), std::string::npos) << repeated.out;

  // The group folder holds both sessions and the combined summary.
  fs::path group;
  for (const auto& e : fs::directory_iterator(d / "res"))
    if (e.is_directory()) group = e.path();
  ASSERT_FALSE(group.empty());
  EXPECT_NE(group.filename().string().find("cpu-small-cand-"), std::string::npos);
  std::size_t sessions = 0;
  for (const auto& e : fs::directory_iterator(group))
    if (e.path().extension() == ".json" && e.path().filename() != "sessions.json") ++sessions;
  EXPECT_EQ(sessions, 2u);
  const auto summary = nlohmann::json::parse(read_text_file(group / "sessions.json"));
  EXPECT_EQ(summary["cases"].size(), 4u);
  EXPECT_EQ(summary["cases"][0]["session_medians_ns"].size(), 2u);

  const Outcome runs = run_assay_in(d, {"history", "--history", db});
  EXPECT_EQ(runs.code, 0) << runs.out;
  EXPECT_EQ(line_count(runs.out), 4u) << runs.out;  // header + 3 runs
  EXPECT_NE(runs.out.find("2/2"), std::string::npos) << runs.out;

  const Outcome by_tag = run_assay_in(d, {"compare", "base", "cand", "--history", db});
  EXPECT_NE(by_tag.code, 3) << by_tag.out;
  EXPECT_NE(by_tag.out.find("history tag 'cand' (2 sessions)"), std::string::npos) << by_tag.out;
  const Outcome by_folder = run_assay_in(d, {"compare", "base", group.string(), "--history", db, "--quiet"});
  EXPECT_NE(by_folder.code, 3) << by_folder.out;

  // The --out folder of a --repeat run is taken as it is: its one session folder is found.
  const std::string other_db = (d / "h2.db").string();  // keeps the trend below to the runs above
  ASSERT_EQ(run_assay_in(d, {"run", suite, "--device", "cpu", "--out", "rep", "--history", other_db, "--quiet", "--repeat", "2"}).code, 0);
  const Outcome by_out = run_assay_in(d, {"compare", "base", "rep", "--history", db});
  EXPECT_NE(by_out.code, 3) << by_out.out;
  EXPECT_NE(by_out.out.find("(2 sessions)"), std::string::npos) << by_out.out;
  EXPECT_NE(by_out.out.find("rep/cpu-small-untagged-"), std::string::npos) << by_out.out;
  ASSERT_EQ(run_assay_in(d, {"run", suite, "--device", "cpu", "--out", "rep", "--history", other_db, "--quiet", "--repeat", "2"}).code, 0);
  const Outcome two = run_assay_in(d, {"compare", "base", "rep", "--history", db});
  EXPECT_EQ(two.code, 3) << two.out;
  EXPECT_NE(two.out.find("rep: holds 2 session folders (cpu-small-untagged-"), std::string::npos) << two.out;
  // A --repeat run whose group folder name is taken (another run started in the same second)
  // gets its own folder, NAME-2, and leaves the other one as it was.
  fs::create_directories(d / "taken");
  const auto now = std::chrono::system_clock::now();
  std::vector<fs::path> taken;
  for (int ahead = 0; ahead < 6; ++ahead) {
    const std::time_t t = std::chrono::system_clock::to_time_t(now + std::chrono::seconds(ahead));
    char stamp[32];
    std::strftime(stamp, sizeof stamp, "%Y%m%dT%H%M%SZ", std::gmtime(&t));
    taken.push_back(d / "taken" / ("cpu-small-untagged-" + std::string(stamp) + "-x2"));
    fs::create_directories(taken.back());
    write_file_atomically(taken.back() / "mine.txt", "another run's\n");
  }
  ASSERT_EQ(run_assay_in(d, {"run", suite, "--device", "cpu", "--out", "taken", "--history", other_db, "--quiet", "--repeat", "2"}).code, 0);
  std::size_t suffixed = 0;
  for (const auto& e : fs::directory_iterator(d / "taken"))
    if (e.path().filename().string().ends_with("-x2-2")) {
      ++suffixed;
      EXPECT_TRUE(fs::exists(e.path() / "sessions.json")) << e.path();
    }
  EXPECT_EQ(suffixed, 1u);
  for (const auto& t : taken) {
    std::size_t entries = 0;
    for ([[maybe_unused]] const auto& e : fs::directory_iterator(t)) ++entries;
    EXPECT_EQ(entries, 1u) << t;  // only mine.txt
  }

  fs::create_directories(d / "empty" / "nothing");
  const Outcome empty = run_assay_in(d, {"compare", "base", "empty", "--history", db});
  EXPECT_EQ(empty.code, 3) << empty.out;
  EXPECT_NE(empty.out.find("empty: no results documents (*.json, *.json.xz) in this folder or in a session folder inside it"),
            std::string::npos) << empty.out;

  const Outcome trend = run_assay_in(d, {"history", "--bench", "gemm-cpu", "--since", "1d", "--history", db});
  EXPECT_EQ(trend.code, 0) << trend.out;
  EXPECT_NE(trend.out.find("gemm/cpu/f32/k=33,m=17,n=17 [cpu] @ host CPU\n  2 points"), std::string::npos) << trend.out;
  const Outcome none = run_assay_in(d, {"history", "--bench", "no-such-bench", "--history", db});
  EXPECT_EQ(none.code, 3) << none.out;

  // A bad suite is refused before the history is touched.
  const auto before = read_text_file(db);
  EXPECT_EQ(run_assay_in(d, {"run", source_dir() + "/tests/data/malformed.toml", "--device", "cpu", "--history", db}).code, 3);
  EXPECT_EQ(run_assay_in(d, {"compare", "base", "no-such-tag", "--history", db}).code, 3);
  EXPECT_EQ(read_text_file(db), before);

  // A history file that is not a history stops the run before any case, and stays as it was.
  write_file_atomically(d / "notes.db", "my notes\n");
  for (const std::string repeat : {"1", "2"}) {
    const Outcome foreign = run_assay_in(d, {"run", suite, "--device", "cpu", "--out", "other", "--history", "notes.db",
                                          "--repeat", repeat});
    EXPECT_EQ(foreign.code, 3) << foreign.out;
    EXPECT_NE(foreign.out.find("notes.db"), std::string::npos) << foreign.out;
  }
  EXPECT_EQ(read_text_file(d / "notes.db"), "my notes\n");
  EXPECT_FALSE(fs::exists(d / "other"));
}

// A history that cannot be read costs the verdicts their between-session noise, not the comparison.
TEST(CompareCli, AnUnreadableHistoryIsANoteNotAnError) {
  const fs::path d = assay::test::fresh_test_dir("bad-history");
  write_pair(d, 1.05);
  write_file_atomically(d / "not-a-history.db", "plain text, not SQLite\n");
  const Outcome r = run_assay_in(d, {"compare", "base.json", "cand.json", "--history", "not-a-history.db"});
  EXPECT_EQ(r.code, 0) << r.out;
  EXPECT_NE(r.out.find("note: no between-session spread from the history: "), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("SLOWER?"), std::string::npos) << r.out;
}

// `assay sessions`: documents of one suite that ran as separate commands get the summary that
// `run --repeat` writes, in the order they ran; anything that is not such a set is refused with
// one line and exit 3, before anything is written.
TEST(CompareCli, SessionsSummariseSeparateRuns) {
  const fs::path d = assay::test::fresh_test_dir("sessions");
  assay::test::SampleSource src(7);
  auto session = [&](const std::string& started, double median) {
    auto doc = doc_on(kH100, {ok_case("gemm", "assay", 1024, src.lognormal(40, median, 0.01))});
    doc.run.started_utc = started;
    return doc;
  };
  fs::create_directories(d / "late");
  write_file_atomically(d / "late" / "c.json", to_json_text(session("2026-11-20T12:00:00Z", 130000)));
  write_file_atomically(d / "a.json", to_json_text(session("2026-11-20T10:00:00Z", 100000)));
  write_file_atomically(d / "b.json", to_json_text(session("2026-11-20T11:00:00Z", 110000)));
  const Outcome r = run_assay_in(d, {"sessions", "late", "b.json", "a.json", "--out", "group-x3"});
  ASSERT_EQ(r.code, 0) << r.out;
  const auto summary = nlohmann::json::parse(read_text_file(d / "group-x3" / "sessions.json"));
  EXPECT_EQ(summary["run_group"], "group-x3");
  ASSERT_EQ(summary["cases"].size(), 1u);
  const auto medians = summary["cases"][0]["session_medians_ns"];
  ASSERT_EQ(medians.size(), 3u);
  EXPECT_LT(medians[0].get<double>(), medians[1].get<double>());  // a, b, c: the order they ran in
  EXPECT_LT(medians[1].get<double>(), medians[2].get<double>());
  EXPECT_NEAR(summary["cases"][0]["median_of_medians_ns"].get<double>(), medians[1].get<double>(), 1e-9);
  EXPECT_TRUE(fs::exists(d / "group-x3" / "sessions.md"));

  auto other_suite = session("2026-11-20T13:00:00Z", 100000);
  other_suite.run.suite_hash = "fedcba9876543210";
  write_file_atomically(d / "other.json", to_json_text(other_suite));
  auto other_gpu = doc_on("NVIDIA H200", {ok_case("gemm", "assay", 1024, src.lognormal(40, 100000, 0.01))});
  other_gpu.run.started_utc = "2026-11-20T15:00:00Z";
  write_file_atomically(d / "h200.json", to_json_text(other_gpu));
  auto shard = session("2026-11-20T14:00:00Z", 100000);
  shard.run.shard = "1/2";
  write_file_atomically(d / "shard.json", to_json_text(shard));
  fs::copy_file(d / "b.json", d / "copy-of-b.json");
  // Another session that started in b's second (as `run --repeat` sessions can) is not b.
  write_file_atomically(d / "same-second.json", to_json_text(session("2026-11-20T11:00:00Z", 110000)));
  const Outcome same_second = run_assay_in(d, {"sessions", "b.json", "same-second.json", "--out", "g0"});
  EXPECT_EQ(same_second.code, 0) << same_second.out;
  const std::vector<std::pair<std::vector<std::string>, std::string>> bad = {
      {{"sessions", "a.json", "--out", "g1"}, "two or more"},
      {{"sessions", "a.json", "other.json", "--out", "g2"}, "different suites"},
      {{"sessions", "a.json", "h200.json", "--out", "g3"}, "different devices"},
      {{"sessions", "a.json", "shard.json", "--out", "g4"}, "assay merge"},
      {{"sessions", "a.json", "missing.json", "--out", "g5"}, "no such file"},
      {{"sessions", "a.json", "b.json", "--out", "a.json"}, "not a folder"},
      {{"sessions", "a.json", "b.json", "copy-of-b.json", "--out", "g6"}, "same session"},
  };
  for (const auto& [args, says] : bad) {
    const Outcome e = run_assay_in(d, args);
    EXPECT_EQ(e.code, 3) << e.out;
    EXPECT_EQ(line_count(e.out), 1u) << e.out;
    EXPECT_NE(e.out.find(says), std::string::npos) << e.out;
  }
  for (const char* g : {"g1", "g2", "g3", "g4", "g5", "g6"}) EXPECT_FALSE(fs::exists(d / g)) << g;
}
