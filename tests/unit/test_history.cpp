// The history database: what a run records, what comes back, concurrent writers, files that
// are not an assay history, and trends with change points.
#include <gtest/gtest.h>
#include <sys/wait.h>
#include <unistd.h>

#include <fmt/format.h>

#include <filesystem>

#include "compare_test_docs.hpp"
#include "compare_test_samples.hpp"
#include "core/atomic_file.hpp"
#include "core/error.hpp"
#include "report/history_report.hpp"
#include "store/history_db.hpp"
#include "store/sqlite_db.hpp"

namespace fs = std::filesystem;
using namespace assay;
using namespace assay::store;
using assay::test::doc_on;
using assay::test::kH100;
using assay::test::ok_case;

namespace {
// A database path whose folder does not exist yet: the writer creates it.
fs::path fresh_db(const std::string& name) { return assay::test::fresh_test_dir("history-" + name) / "sub" / "history.db"; }

ResultsDocument run_doc(const std::string& tag, const std::string& commit, const std::string& started, double median) {
  ResultsDocument d = doc_on(kH100,
                             {ok_case("gemm", "assay", 1024, {median, median * 1.01, median * 0.99}),
                              ok_case("gemm", "cublas", 1024, {900, 910, 890})},
                             tag, commit);
  d.run.started_utc = started;
  return d;
}

std::string started_at(int minute) { return fmt::format("2026-11-20T10:{:02d}:00Z", minute); }
}  // namespace

TEST(History, RecordsRunsAndFindsThemByTagAndCommit) {
  const fs::path db_path = fresh_db("record");
  {
    HistoryDb db = HistoryDb::open_for_writing(db_path);
    EXPECT_EQ(db.record_run(run_doc("main", "3f2c9e1b7d0a", started_at(1), 1000), "r/a.json", {}), 1);
    EXPECT_EQ(db.record_run(run_doc("pr-7", "aa11bb22cc33", started_at(2), 1100), "r/b.json", {}), 2);
    EXPECT_EQ(db.record_run(run_doc("main", "bbbbbbbbbbbb", started_at(3), 1200), "r/c.json", {}), 3);
  }
  HistoryDb db = HistoryDb::open_for_reading(db_path);
  EXPECT_EQ(db.run_count(), 3);
  const auto rows = db.runs({});
  ASSERT_EQ(rows.size(), 3u);
  EXPECT_EQ(rows[0].id, 3);  // newest first
  EXPECT_EQ(rows[0].tag, "main");
  EXPECT_EQ(rows[0].gpu, kH100);
  EXPECT_EQ(rows[0].run_group, "run-3");
  EXPECT_EQ(rows[0].cases_ok, 2);
  EXPECT_EQ(rows[2].results_path, "r/a.json");
  EXPECT_EQ(db.runs({started_at(2), "", 0}).size(), 2u);
  EXPECT_EQ(db.runs({"", "", 1}).size(), 1u);
  EXPECT_EQ(db.runs({"", "other-suite", 0}).size(), 0u);

  const auto main = db.latest_group_tagged("main");  // the newest run tagged main
  ASSERT_EQ(main.size(), 1u);
  EXPECT_EQ(main[0].run.git_commit, "bbbbbbbbbbbb");
  EXPECT_EQ(main[0].cases[0].measurement->samples_ns.size(), 3u);  // the whole document is kept
  const auto by_commit = db.latest_group_at_commit("AA11B");
  ASSERT_EQ(by_commit.size(), 1u);
  EXPECT_EQ(by_commit[0].run.tag, "pr-7");
  EXPECT_TRUE(db.latest_group_tagged("nope").empty());
  EXPECT_TRUE(db.latest_group_at_commit("aa1").empty());  // too short to be a commit
  EXPECT_TRUE(db.latest_group_at_commit("zzzz").empty());

  SqliteDb raw(db_path, SqliteDb::Access::read_only, 1000);
  auto mode = raw.prepare("PRAGMA journal_mode");
  ASSERT_TRUE(mode.step());
  EXPECT_EQ(mode.text(0), "wal");
}

TEST(History, SessionsOfARepeatFormOneGroup) {
  const fs::path db_path = fresh_db("sessions");
  HistoryDb db = HistoryDb::open_for_writing(db_path);
  db.record_run(run_doc("rep", "", started_at(1), 1000), "a.json", {"g-x3", 1, 3});
  db.record_run(run_doc("rep", "", started_at(2), 1010), "b.json", {"g-x3", 2, 3});
  db.record_run(run_doc("rep", "", started_at(3), 990), "c.json", {"g-x3", 3, 3});
  const auto docs = db.latest_group_tagged("rep");
  ASSERT_EQ(docs.size(), 3u);
  EXPECT_EQ(docs[1].cases[0].summary->median, 1010);
  EXPECT_EQ(db.runs({})[0].session_count, 3);
}

TEST(History, TwoProcessesWritingAtOnceLoseNothing) {
  // Two forked writers start together on a database that does not exist yet, so they also race
  // to create it; each records 40 runs, every one its own transaction.
  const fs::path db_path = fresh_db("concurrent");
  constexpr int kRunsEach = 40;
  int gate[2];
  ASSERT_EQ(pipe(gate), 0);
  std::vector<pid_t> writers;
  for (int w = 0; w < 2; ++w) {
    const pid_t pid = fork();
    ASSERT_GE(pid, 0);
    if (pid == 0) {
      close(gate[1]);
      char ch;
      (void)!read(gate[0], &ch, 1);  // wait until both exist
      int code = 0;
      try {
        for (int i = 0; i < kRunsEach; ++i) {
          HistoryDb db = HistoryDb::open_for_writing(db_path);
          db.record_run(run_doc("w" + std::to_string(w), "", started_at(i), 1000 + i), "x.json", {});
        }
      } catch (const std::exception& e) {
        std::fprintf(stderr, "writer %d: %s\n", w, e.what());
        code = 1;
      }
      _exit(code);
    }
    writers.push_back(pid);
  }
  close(gate[0]);
  close(gate[1]);  // releases both writers at once
  for (pid_t pid : writers) {
    int status = 0;
    ASSERT_EQ(waitpid(pid, &status, 0), pid);
    EXPECT_TRUE(WIFEXITED(status) && WEXITSTATUS(status) == 0);
  }
  HistoryDb db = HistoryDb::open_for_reading(db_path);
  EXPECT_EQ(db.run_count(), 2 * kRunsEach);
  EXPECT_EQ(db.runs({"", "", 0}).size(), 2u * kRunsEach);
  EXPECT_EQ(db.case_points("", "").size(), 2u * 2 * kRunsEach);
}

TEST(History, ForeignFilesAreRefusedAndLeftAsTheyWere) {
  const fs::path text = fresh_db("foreign");
  fs::create_directories(text.parent_path());
  write_file_atomically(text, "this is not a database\n");
  EXPECT_THROW(HistoryDb::open_for_writing(text), InputError);
  EXPECT_THROW(HistoryDb::open_for_reading(text), InputError);
  EXPECT_EQ(read_text_file(text), "this is not a database\n");

  const fs::path other = text.parent_path() / "other.db";
  {
    SqliteDb db(other, SqliteDb::Access::read_write, 1000);
    db.exec("CREATE TABLE recipes (name TEXT)");
  }
  const std::string before = read_text_file(other);
  try {
    HistoryDb::open_for_writing(other);
    ADD_FAILURE() << "a foreign database was accepted";
  } catch (const InputError& e) {
    EXPECT_NE(std::string(e.what()).find("not an assay history"), std::string::npos) << e.what();
  }
  EXPECT_EQ(read_text_file(other), before);

  const fs::path newer = text.parent_path() / "newer.db";
  {
    SqliteDb db(newer, SqliteDb::Access::read_write, 1000);
    db.exec("CREATE TABLE runs (id INTEGER); PRAGMA user_version = 7");
  }
  try {
    HistoryDb::open_for_reading(newer);
    ADD_FAILURE() << "another schema version was accepted";
  } catch (const InputError& e) {
    EXPECT_NE(std::string(e.what()).find("schema version 7; this assay reads version 1"), std::string::npos) << e.what();
  }
  // Another program's table named runs, or version 1 set on other tables: refused before a run
  // (verify_writable) and left as they were (it was taken as new, changed to WAL, and the run's
  // record was lost at the end).
  for (const char* sql : {"CREATE TABLE runs (name TEXT)", "CREATE TABLE runs (x); PRAGMA user_version = 1"}) {
    const fs::path db_path = text.parent_path() / "runs-of-another.db";
    fs::remove(db_path);
    {
      SqliteDb db(db_path, SqliteDb::Access::read_write, 1000);
      db.exec(sql);
    }
    const std::string kept = read_text_file(db_path);
    EXPECT_THROW(HistoryDb::verify_writable(db_path), InputError) << sql;
    EXPECT_THROW(HistoryDb::open_for_writing(db_path), InputError) << sql;
    EXPECT_EQ(read_text_file(db_path), kept) << sql;
  }
}

TEST(History, MissingOrEmptyHistoryIsBadInput) {
  const fs::path missing = fresh_db("missing");
  EXPECT_THROW(HistoryDb::open_for_reading(missing), InputError);
  EXPECT_FALSE(fs::exists(missing));  // reading never creates it
  fs::create_directories(missing.parent_path());
  write_file_atomically(missing, "");
  try {
    HistoryDb::open_for_reading(missing);
    ADD_FAILURE() << "an empty file was accepted";
  } catch (const InputError& e) {
    EXPECT_NE(std::string(e.what()).find("the history is empty"), std::string::npos) << e.what();
  }
  EXPECT_EQ(fs::file_size(missing), 0u);
}

TEST(History, TrendsNameTheRunAndCommitOfAStep) {
  const fs::path db_path = fresh_db("trends");
  {
    HistoryDb db = HistoryDb::open_for_writing(db_path);
    assay::test::SampleSource src(17);
    for (int i = 0; i < 30; ++i) {
      const double level = i < 18 ? 1000 : 1080;  // run 19 made it 8% slower
      db.record_run(run_doc("", fmt::format("c{:02d}aaaaaaaa", i), started_at(i), level * (1 + 0.005 * src.standard_normal())),
                    "x.json", {});
    }
  }
  HistoryDb db = HistoryDb::open_for_reading(db_path);
  const auto trends = report::case_trends(db.case_points("gemm", ""), "assay", {});
  ASSERT_EQ(trends.size(), 1u);  // the cublas case is filtered out by --case
  ASSERT_EQ(trends[0].points.size(), 30u);
  ASSERT_EQ(trends[0].change_points.size(), 1u);
  const auto& cp = trends[0].change_points[0];
  EXPECT_EQ(cp.index, 18u);
  EXPECT_EQ(trends[0].points[cp.index].run_id, 19);
  EXPECT_EQ(trends[0].points[cp.index].git_commit, "c18aaaaaaaa");
  EXPECT_NEAR(cp.magnitude, 0.08, 0.01);
  const std::string text = report::trends_text(trends);
  EXPECT_NE(text.find("change point at run 19 (2026-11-20T10:18:00Z, commit c18aaaaaaa"), std::string::npos) << text;
  EXPECT_TRUE(report::case_trends(db.case_points("no-such-bench", ""), "", {}).empty());
  EXPECT_THROW(report::case_trends({}, "(", {}), InputError);
}

TEST(History, SessionsCountOnceInATrend) {
  const fs::path db_path = fresh_db("trend-sessions");
  HistoryDb db = HistoryDb::open_for_writing(db_path);
  db.record_run(run_doc("", "", started_at(1), 1000), "a.json", {"g", 1, 3});
  db.record_run(run_doc("", "", started_at(2), 1100), "b.json", {"g", 2, 3});
  db.record_run(run_doc("", "", started_at(3), 1040), "c.json", {"g", 3, 3});
  db.record_run(run_doc("", "", started_at(4), 1200), "d.json", {});
  const auto trends = report::case_trends(db.case_points("", ""), "assay", {});
  ASSERT_EQ(trends[0].points.size(), 2u);
  EXPECT_EQ(trends[0].points[0].sessions, 3u);
  EXPECT_EQ(trends[0].points[0].median_ns, 1040);  // median of the session medians
  EXPECT_EQ(trends[0].points[1].median_ns, 1200);
}

TEST(History, SinceParsesDurationsAndDates) {
  const std::time_t now = 1795305600;  // 2026-11-22T00:00:00Z
  EXPECT_EQ(report::since_to_utc("30d", now), "2026-10-23T00:00:00Z");
  EXPECT_EQ(report::since_to_utc("12h", now), "2026-11-21T12:00:00Z");
  EXPECT_EQ(report::since_to_utc("2w", now), "2026-11-08T00:00:00Z");
  EXPECT_EQ(report::since_to_utc("45m", now), "2026-11-21T23:15:00Z");
  EXPECT_EQ(report::since_to_utc("2026-11-01", now), "2026-11-01T00:00:00Z");
  EXPECT_THROW(report::since_to_utc("last week", now), InputError);
  EXPECT_EQ(report::since_to_utc("2028-02-29T23:59:59Z", now), "2028-02-29T23:59:59Z");
  for (const char* bad : {"2026-13-45", "2026-02-29", "2026-04-31", "2026-00-10", "2026-11-01T24:00:00Z"})
    EXPECT_THROW(report::since_to_utc(bad, now), InputError) << bad;  // not a calendar date and time
}

// A run checks its history before the first case: a history that could not be created after the
// cases ran would lose them from the history.
TEST(History, AMissingHistoryMustBeCreatableBeforeARun) {
  const fs::path d = assay::test::fresh_test_dir("history-creatable");
  EXPECT_NO_THROW(HistoryDb::verify_writable((d / "new" / "deeper" / "history.db").string()));
  write_file_atomically(d / "a-file", "not a folder\n");
  try {
    HistoryDb::verify_writable((d / "a-file" / "sub" / "history.db").string());
    FAIL() << "a history under a regular file was accepted";
  } catch (const InputError& e) {
    EXPECT_NE(std::string(e.what()).find("a-file is not a folder"), std::string::npos) << e.what();
  }
}
