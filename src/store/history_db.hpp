// The history of runs: an embedded SQLite database (default .assay/history.db). Every
// `assay run` records its results document here; `assay history` reads trends from it and
// `assay compare` resolves tags and commits through it.
//
// Concurrency: WAL journal, a busy timeout, and every write in one BEGIN IMMEDIATE
// transaction, so that processes writing at once queue instead of losing rows. Readers open
// the file read-only and never create or change it.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "core/results.hpp"
#include "store/sqlite_db.hpp"

namespace assay::store {

inline constexpr int kHistorySchemaVersion = 1;  // PRAGMA user_version
inline constexpr int kHistoryBusyTimeoutMs = 30000;

// The database path: --history when given, else $ASSAY_HISTORY, else .assay/history.db.
std::string history_path(const std::string& flag_value);

// Which repeat group a run belongs to (`assay run --repeat N` runs N sessions of one group).
struct SessionInfo {
  std::string group;  // "" for a run on its own: the database then names it "run-<id>"
  int index = 1, count = 1;
};

struct RunRow {
  std::int64_t id = 0;
  std::string started_utc, suite_name, tag, git_commit, host, gpu, mode, run_group, results_path;
  bool git_dirty = false;
  int session_index = 1, session_count = 1;
  int cases_ok = 0, cases_not_ok = 0;
};

struct RunFilter {
  std::string since_utc;  // "YYYY-MM-DDTHH:MM:SSZ"; "" for all
  std::string suite;      // "" for all
  int limit = 0;          // 0 for all
};

// One ok case of one run, for trends.
struct CasePoint {
  std::int64_t run_id = 0;
  std::string run_group, started_utc, git_commit, tag;
  std::string case_key, case_id;
  double median_ns = 0;
};

class HistoryDb {
 public:
  // Creates the folder, the file and the tables when missing. Refuses (InputError) a file
  // that is not an assay history or has another schema version.
  static HistoryDb open_for_writing(const std::string& path);
  // InputError when a file exists at `path` and is not an assay history of this version; a
  // missing file is fine (the writer creates it). Reads only: a run checks this before it starts.
  static void verify_writable(const std::string& path);
  // Read-only. InputError when the file is missing, empty, not a database, or another version.
  static HistoryDb open_for_reading(const std::string& path);

  std::int64_t record_run(const ResultsDocument& doc, const std::string& results_path, const SessionInfo& session);

  std::vector<RunRow> runs(const RunFilter& filter);
  std::int64_t run_count();
  // The documents of the newest group with this tag, or whose git commit starts with this
  // hex prefix (at least 4 digits), sessions in order; empty when none.
  std::vector<ResultsDocument> latest_group_tagged(const std::string& tag);
  std::vector<ResultsDocument> latest_group_at_commit(const std::string& commit_prefix);
  // ok cases with a median, oldest run first; bench "" for all benches.
  std::vector<CasePoint> case_points(const std::string& bench, const std::string& since_utc);
  // ok cases with a median of the runs of a suite with this hash, oldest run first: the sessions
  // from which compare learns a case's between-session spread.
  std::vector<CasePoint> case_points_of_suite(const std::string& suite_hash);

  const std::string& path() const { return db_.path(); }

 private:
  HistoryDb(const std::string& path, SqliteDb::Access access);
  int check_schema_version();
  void use_wal();  // 0 for a new, empty file
  std::vector<ResultsDocument> group_documents(const std::string& group);

  SqliteDb db_;
};

}  // namespace assay::store
