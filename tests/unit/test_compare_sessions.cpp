// The repeat protocol's pieces (session command lines, exit codes, the combined summary) and
// loading one side of a comparison from files and folders.
#include <gtest/gtest.h>
#include <nlohmann/json.hpp>
#include <unistd.h>

#include <filesystem>
#include <optional>

#include "compare_test_docs.hpp"
#include "core/atomic_file.hpp"
#include "core/error.hpp"
#include "report/session_summary.hpp"
#include "runner/repeat.hpp"
#include "store/run_set.hpp"

namespace fs = std::filesystem;
using namespace assay;
using assay::test::doc_on;
using assay::test::kH100;
using assay::test::ok_case;

namespace {
ResultsDocument session(double median) {
  return doc_on(kH100, {ok_case("gemm", "assay", 1024, {median * 0.99, median, median * 1.01}),
                       ok_case("gemm", "cublas", 1024, {500, 500, 500})});
}

std::string input_error_of(const std::string& argument, const std::string& history = "/nonexistent/history.db") {
  try {
    store::load_run_set(argument, history);
  } catch (const InputError& e) {
    return e.what();
  }
  return "(no error)";
}
}  // namespace

TEST(Repeat, SessionArgumentsDropRepeatAndRedirectOut) {
  using V = std::vector<std::string>;
  EXPECT_EQ(runner::session_arguments(V{"assay", "run", "s.toml", "--repeat", "3", "--out", "x", "--tag", "t"}, "g"),
            (V{"assay", "run", "s.toml", "--tag", "t", "--out", "g"}));
  EXPECT_EQ(runner::session_arguments(V{"assay", "run", "--repeat=3", "s.toml", "--out=x"}, "g"),
            (V{"assay", "run", "s.toml", "--out", "g"}));
}

TEST(Repeat, CombinedExitCode) {
  using S = runner::SessionOutcome;
  EXPECT_EQ(runner::combined_exit_code({S{0, "a"}, S{0, "b"}}), 0);
  EXPECT_EQ(runner::combined_exit_code({S{0, "a"}, S{4, "b"}, S{1, "c"}}), 1);  // a failed check wins
  EXPECT_EQ(runner::combined_exit_code({S{0, "a"}, S{4, "b"}}), 4);
  EXPECT_EQ(runner::combined_exit_code({S{2, ""}}), 2);
}

TEST(Repeat, SummaryIsTheMedianOfSessionMediansAndTheirSpread) {
  const auto s = report::summarize_sessions("g-x3", {session(100), session(104), session(98)}, {"a", "b", "c"});
  ASSERT_EQ(s.cases.size(), 2u);
  EXPECT_EQ(s.cases[0].case_id, "gemm/assay/f16/k=1024,m=1024,n=1024");
  EXPECT_EQ(s.cases[0].session_medians_ns, (std::vector<double>{100, 104, 98}));
  EXPECT_EQ(s.cases[0].median_of_medians_ns, 100);
  EXPECT_NEAR(s.cases[0].spread_rel, 0.06, 1e-12);
  EXPECT_EQ(s.cases[1].spread_rel, 0);
  const auto j = nlohmann::json::parse(report::sessions_json(s));
  EXPECT_EQ(j["schema"], "assay.sessions");
  EXPECT_EQ(j["cases"][0]["median_of_medians_ns"], 100.0);
  const std::string md = report::sessions_markdown(s);
  EXPECT_NE(md.find("| `gemm/assay/f16/k=1024,m=1024,n=1024` | 3 | 100.0 ns | 6.00% |"), std::string::npos) << md;
  // These sessions have no clock probe: no clock, and the JSON says 0.
  EXPECT_EQ(s.cases[0].session_sm_clock_mhz, (std::vector<double>{0, 0, 0}));
  EXPECT_EQ(j["cases"][0]["median_sm_clock_mhz"], 0.0);
  EXPECT_NE(md.find("| 100.0 ns, 104.0 ns, 98.0 ns | - |"), std::string::npos) << md;
}

TEST(Repeat, SummaryCarriesEachSessionsMedianSmClock) {
  auto probed = [](double median, std::vector<double> clocks) {
    ResultsDocument d = session(median);
    d.cases[0].measurement->sm_clock_mhz = std::move(clocks);  // assay's three samples
    return d;
  };
  const auto s = report::summarize_sessions(
      "g-x3", {probed(100, {1800, 1790, 1810}), probed(104, {1700, 1720, 1710}), session(98)}, {"a", "b", "c"});
  EXPECT_EQ(s.cases[0].session_sm_clock_mhz, (std::vector<double>{1800, 1710, 0}));
  EXPECT_EQ(s.cases[0].median_sm_clock_mhz, 1755);  // the two probed sessions
  EXPECT_EQ(s.cases[1].median_sm_clock_mhz, 0);
  const auto j = nlohmann::json::parse(report::sessions_json(s));
  EXPECT_EQ(j["cases"][0]["session_sm_clock_mhz"][1], 1710.0);
  EXPECT_NE(report::sessions_markdown(s).find("| 1755 |"), std::string::npos);
}

// Each session's speedups against the baseline, in time and at one clock, and their medians; the
// baseline's own case and sessions without a clock per sample give none ("-").
TEST(Repeat, SummaryCarriesTheSessionsSpeedups) {
  auto with_ratios = [](double median, double speedup, std::optional<double> at_clock) {
    ResultsDocument d = session(median);
    d.cases[0].baseline = d.cases[1].baseline = "cublas";
    d.cases[0].speedup_vs_baseline = speedup;
    d.cases[0].cycles_speedup_vs_baseline = at_clock;
    d.cases[1].speedup_vs_baseline = d.cases[1].cycles_speedup_vs_baseline = 1.0;
    return d;
  };
  const auto s = report::summarize_sessions(
      "g-x3", {with_ratios(100, 5.0, 4.5), with_ratios(104, 4.8, std::nullopt), with_ratios(98, 5.1, 4.7)}, {"a", "b", "c"});
  EXPECT_EQ(s.cases[0].session_speedups, (std::vector<double>{5.0, 4.8, 5.1}));
  EXPECT_EQ(s.cases[0].median_speedup, 5.0);
  EXPECT_EQ(s.cases[0].session_clock_speedups, (std::vector<double>{4.5, 4.7}));
  EXPECT_DOUBLE_EQ(s.cases[0].median_clock_speedup, 4.6);
  EXPECT_TRUE(s.cases[1].session_speedups.empty());  // the baseline itself
  const auto j = nlohmann::json::parse(report::sessions_json(s));
  EXPECT_EQ(j["cases"][0]["median_speedup"], 5.0);
  EXPECT_EQ(j["cases"][1]["median_clock_speedup"], 0.0);
  const std::string md = report::sessions_markdown(s);
  EXPECT_NE(md.find("| 5.000x | 4.600x |"), std::string::npos) << md;
  EXPECT_NE(md.find("| - | - | - |"), std::string::npos) << md;  // the baseline: no clock, no ratios
}

TEST(RunSet, FolderIsOneSideWithEverySession) {
  const fs::path d = assay::test::fresh_test_dir("folder");
  write_file_atomically(d / "s1.json", to_json_text(session(100)));
  ResultsDocument second = session(101);
  second.run.started_utc = "2026-11-20T10:05:00Z";  // another session (one session twice is refused)
  write_file_atomically(d / "s2.json", to_json_text(second));
  write_file_atomically(d / "sessions.json",
                        report::sessions_json(report::summarize_sessions("g", {session(100)}, {"s1.json"})));
  write_file_atomically(d / "s1.md", "not json, not read");
  const store::RunSet set = store::load_run_set(d, "/nonexistent/history.db");
  EXPECT_EQ(set.sessions.size(), 2u);
  EXPECT_EQ(set.origin, "folder " + d.string() + " (2 sessions)");
  const store::RunSet file = store::load_run_set(d / "s2.json", "/nonexistent/history.db");
  ASSERT_EQ(file.sessions.size(), 1u);
  EXPECT_EQ(file.sessions[0].cases[0].summary->median, 101);
}

TEST(RunSet, BadInputsNameTheArgumentOrFile) {
  const fs::path d = assay::test::fresh_test_dir("bad");
  EXPECT_NE(input_error_of(d).find("no results documents"), std::string::npos);
  const std::string good = to_json_text(session(100));
  write_file_atomically(d / "truncated.json", good.substr(0, good.size() / 2));
  EXPECT_NE(input_error_of(d / "truncated.json").find("not valid JSON"), std::string::npos);
  write_file_atomically(d / "foreign.json", R"({"name": "package.json", "version": "1.0.0"})");
  EXPECT_NE(input_error_of(d / "foreign.json").find("foreign.json: field '$.schema'"), std::string::npos)
      << input_error_of(d / "foreign.json");
  auto newer = nlohmann::json::parse(good);
  newer["schema_version"] = 2;
  write_file_atomically(d / "newer.json", newer.dump());
  EXPECT_NE(input_error_of(d / "newer.json").find("this assay reads version 1"), std::string::npos);
  // A folder holding one bad document is refused as a whole, naming that file.
  EXPECT_NE(input_error_of(d).find("foreign.json: field '$.schema'"), std::string::npos) << input_error_of(d);
  EXPECT_NE(input_error_of("no-such-tag").find("no-such-tag: no such file or folder, and no history database"),
            std::string::npos);
}
