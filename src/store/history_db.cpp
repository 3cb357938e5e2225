#include "store/history_db.hpp"

#include <unistd.h>

#include <chrono>
#include <cstdlib>
#include <filesystem>
#include <regex>
#include <thread>

#include "core/error.hpp"
#include "store/case_key.hpp"

namespace assay::store {
namespace fs = std::filesystem;

namespace {

constexpr const char* kSchema = R"sql(
CREATE TABLE runs (
  id INTEGER PRIMARY KEY,
  recorded_utc TEXT NOT NULL,
  started_utc TEXT NOT NULL,
  suite_name TEXT NOT NULL,
  suite_hash TEXT NOT NULL,
  tag TEXT NOT NULL,
  git_commit TEXT NOT NULL,
  git_dirty INTEGER NOT NULL,
  host TEXT NOT NULL,
  gpu TEXT NOT NULL,
  mode TEXT NOT NULL,
  run_group TEXT NOT NULL,
  session_index INTEGER NOT NULL,
  session_count INTEGER NOT NULL,
  results_path TEXT NOT NULL,
  document TEXT NOT NULL
);
CREATE TABLE cases (
  run_id INTEGER NOT NULL REFERENCES runs(id),
  case_id TEXT NOT NULL,
  case_key TEXT NOT NULL,
  bench TEXT NOT NULL,
  status TEXT NOT NULL,
  median_ns REAL
);
CREATE INDEX cases_by_key ON cases(case_key);
CREATE INDEX cases_by_run ON cases(run_id);
CREATE INDEX runs_by_tag ON runs(tag);
CREATE INDEX runs_by_group ON runs(run_group);
PRAGMA user_version = 1;
)sql";

}  // namespace

std::string history_path(const std::string& flag_value) {
  if (!flag_value.empty()) return flag_value;
  if (const char* env = std::getenv("ASSAY_HISTORY"); env && *env) return env;
  return ".assay/history.db";
}

namespace {
fs::path folder_of(const std::string& path) {
  const fs::path p = fs::path(path).parent_path();
  return p.empty() ? fs::path(".") : p;
}

// A reader of a WAL database makes its -shm file beside it: in a folder it cannot write (nor can
// a writer), it opens the file as immutable.
SqliteDb open_history(const std::string& path, SqliteDb::Access access) {
  if (access != SqliteDb::Access::read_only || ::access(folder_of(path).c_str(), W_OK) == 0)
    return SqliteDb(path, access, kHistoryBusyTimeoutMs);
  std::string uri = "file:";
  for (char c : fs::absolute(path).string()) uri += c == '?' ? "%3F" : c == '#' ? "%23" : c == '%' ? "%25" : std::string(1, c);
  return SqliteDb(path, SqliteDb::Access::immutable, kHistoryBusyTimeoutMs, uri + "?immutable=1");
}
}  // namespace

HistoryDb::HistoryDb(const std::string& path, SqliteDb::Access access) : db_(open_history(path, access)) {}

HistoryDb HistoryDb::open_for_writing(const std::string& path) {
  const fs::path p(path);
  std::error_code ec;
  if (p.has_parent_path()) fs::create_directories(p.parent_path(), ec);
  HistoryDb h(path, SqliteDb::Access::read_write);
  // Check before changing anything, so that a foreign file is left as it was.
  h.check_schema_version();
  h.use_wal();
  SqliteDb::WriteTransaction tx(h.db_);
  if (h.check_schema_version() == 0) h.db_.exec(kSchema);  // the first writer creates the tables
  tx.commit();
  return h;
}

void HistoryDb::use_wal() {
  // Changing the journal mode does not wait on the busy handler, and two writers that open a
  // new database together both try it: retry while the other holds the lock.
  const auto deadline = std::chrono::steady_clock::now() + std::chrono::milliseconds(kHistoryBusyTimeoutMs);
  for (;;) {
    std::string current;
    {
      auto mode = db_.prepare("PRAGMA journal_mode");  // finished before the change below
      mode.step();
      current = mode.text(0);
    }
    if (current == "wal" || db_.exec_unless_busy("PRAGMA journal_mode = WAL")) return;
    if (std::chrono::steady_clock::now() > deadline) db_.exec("PRAGMA journal_mode = WAL");  // throws the error
    std::this_thread::sleep_for(std::chrono::milliseconds(5));
  }
}

void HistoryDb::verify_writable(const std::string& path) {
  if (!fs::exists(path)) {
    // The writer creates the missing folders and the file: the nearest folder that exists must
    // take them, or the run would measure everything and then lose its history.
    fs::path existing = fs::path(path).parent_path();
    while (!existing.empty() && !fs::exists(existing)) existing = existing.parent_path();
    if (existing.empty()) existing = ".";
    if (!fs::is_directory(existing))
      throw InputError(path + ": cannot create the history there: " + existing.string() + " is not a folder");
    if (::access(existing.c_str(), W_OK | X_OK) != 0)
      throw InputError(path + ": cannot create the history there: " + existing.string() + " is not writable");
    return;
  }
  // An existing history: an assay history (checked without changing it), and one this process
  // can write with its -wal and -shm files beside it; else the run would lose its record at the end.
  HistoryDb(path, SqliteDb::Access::read_only).check_schema_version();
  const fs::path folder = folder_of(path);
  if (::access(path.c_str(), W_OK) != 0) throw InputError(path + ": the history is not writable (a run records itself there)");
  if (::access(folder.c_str(), W_OK | X_OK) != 0)
    throw InputError(path + ": the history's folder " + folder.string() + " is not writable (SQLite keeps its -wal file there)");
}

HistoryDb HistoryDb::open_for_reading(const std::string& path) {
  if (!fs::is_regular_file(path))
    throw InputError(path + ": no history database here (every `assay run` records one; see --history)");
  HistoryDb h(path, SqliteDb::Access::read_only);
  if (h.check_schema_version() == 0) throw InputError(path + ": the history is empty (no run recorded yet)");
  return h;
}

int HistoryDb::check_schema_version() {
  auto version = db_.prepare("PRAGMA user_version");
  version.step();
  const auto v = version.integer(0);
  auto tables = db_.prepare("SELECT count(*) FROM sqlite_master WHERE type = 'table'");
  tables.step();
  // The writer creates the tables and sets the version in one transaction: version 0 with any
  // table (even one named runs) is another program's database.
  if (v == 0 && tables.integer(0) == 0) return 0;  // new, empty: the writer creates the tables
  if (v == 0) throw InputError(path() + ": an SQLite database, but not an assay history");
  if (v != kHistorySchemaVersion)
    throw InputError(path() + ": history schema version " + std::to_string(v) + "; this assay reads version " +
                     std::to_string(kHistorySchemaVersion));
  // Version 1 set by hand on another schema: the columns this assay reads and writes must be there.
  for (const auto& [table, columns] : {std::pair<const char*, int>{"runs", 16}, {"cases", 6}}) {
    auto info = db_.prepare(std::string("SELECT count(*) FROM pragma_table_info('") + table + "')");
    info.step();
    if (info.integer(0) != columns)
      throw InputError(path() + ": schema version 1, but its table '" + table + "' is not an assay history's");
  }
  return kHistorySchemaVersion;
}

std::int64_t HistoryDb::record_run(const ResultsDocument& doc, const std::string& results_path,
                                   const SessionInfo& session) {
  SqliteDb::WriteTransaction tx(db_);
  auto run = db_.prepare(
      "INSERT INTO runs (recorded_utc, started_utc, suite_name, suite_hash, tag, git_commit, git_dirty, host, gpu, "
      "mode, run_group, session_index, session_count, results_path, document) "
      "VALUES (strftime('%Y-%m-%dT%H:%M:%SZ', 'now'), ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10, ?11, ?12, ?13, ?14, ?15)");
  const RunRecord& r = doc.run;
  run.bind(2, r.started_utc).bind(3, r.suite_name).bind(4, r.suite_hash).bind(5, r.tag);
  run.bind(6, r.git_commit).bind(7, std::int64_t{r.git_dirty}).bind(8, r.host).bind(9, r.device.name).bind(10, r.mode);
  run.bind(11, session.group).bind(12, std::int64_t{session.index}).bind(13, std::int64_t{session.count});
  run.bind(14, results_path).bind(15, to_json_text(doc, -1));
  run.step();
  auto last = db_.prepare("SELECT last_insert_rowid()");
  last.step();
  const std::int64_t id = last.integer(0);
  if (session.group.empty())
    db_.prepare("UPDATE runs SET run_group = 'run-' || id WHERE id = ?1").bind(1, id).step();

  auto add_case = db_.prepare(
      "INSERT INTO cases (run_id, case_id, case_key, bench, status, median_ns) VALUES (?1, ?2, ?3, ?4, ?5, ?6)");
  for (const CaseRecord& c : doc.cases) {
    add_case.bind(1, id).bind(2, c.id).bind(3, case_key(r, c).text()).bind(4, c.bench).bind(5, case_status_name(c.status));
    if (c.summary) add_case.bind(6, c.summary->median);
    else add_case.bind_null(6);
    add_case.step();
    add_case.reset();
  }
  tx.commit();
  return id;
}

std::int64_t HistoryDb::run_count() {
  auto n = db_.prepare("SELECT count(*) FROM runs");
  n.step();
  return n.integer(0);
}

std::vector<RunRow> HistoryDb::runs(const RunFilter& f) {
  auto q = db_.prepare(
      "SELECT id, started_utc, suite_name, tag, git_commit, git_dirty, host, gpu, mode, run_group, session_index, "
      "session_count, results_path, "
      "(SELECT count(*) FROM cases WHERE run_id = runs.id AND status = 'ok'), "
      "(SELECT count(*) FROM cases WHERE run_id = runs.id AND status IN ('check-failed', 'error')) "
      "FROM runs WHERE started_utc >= ?1 AND (?2 = '' OR suite_name = ?2) ORDER BY id DESC LIMIT ?3");
  q.bind(1, f.since_utc).bind(2, f.suite).bind(3, std::int64_t{f.limit > 0 ? f.limit : -1});
  std::vector<RunRow> rows;
  while (q.step()) {
    RunRow r;
    r.id = q.integer(0);
    r.started_utc = q.text(1);
    r.suite_name = q.text(2);
    r.tag = q.text(3);
    r.git_commit = q.text(4);
    r.git_dirty = q.integer(5) != 0;
    r.host = q.text(6);
    r.gpu = q.text(7);
    r.mode = q.text(8);
    r.run_group = q.text(9);
    r.session_index = static_cast<int>(q.integer(10));
    r.session_count = static_cast<int>(q.integer(11));
    r.results_path = q.text(12);
    r.cases_ok = static_cast<int>(q.integer(13));
    r.cases_not_ok = static_cast<int>(q.integer(14));
    rows.push_back(std::move(r));
  }
  return rows;
}

std::vector<ResultsDocument> HistoryDb::group_documents(const std::string& group) {
  auto q = db_.prepare("SELECT id, document FROM runs WHERE run_group = ?1 ORDER BY session_index, id");
  q.bind(1, group);
  std::vector<ResultsDocument> docs;
  while (q.step()) docs.push_back(parse_results_json(q.text(1), path() + " run " + std::to_string(q.integer(0))));
  return docs;
}

std::vector<ResultsDocument> HistoryDb::latest_group_tagged(const std::string& tag) {
  auto q = db_.prepare("SELECT run_group FROM runs WHERE tag = ?1 ORDER BY id DESC LIMIT 1");
  q.bind(1, tag);
  if (!q.step()) return {};
  return group_documents(q.text(0));
}

std::vector<ResultsDocument> HistoryDb::latest_group_at_commit(const std::string& prefix) {
  if (!std::regex_match(prefix, std::regex("[0-9a-fA-F]{4,40}"))) return {};
  auto q = db_.prepare("SELECT run_group FROM runs WHERE substr(git_commit, 1, ?2) = lower(?1) ORDER BY id DESC LIMIT 1");
  q.bind(1, prefix).bind(2, static_cast<std::int64_t>(prefix.size()));
  if (!q.step()) return {};
  return group_documents(q.text(0));
}

std::vector<CasePoint> HistoryDb::case_points(const std::string& bench, const std::string& since_utc) {
  auto q = db_.prepare(
      "SELECT r.id, r.run_group, r.started_utc, r.git_commit, r.tag, c.case_key, c.case_id, c.median_ns "
      "FROM cases c JOIN runs r ON r.id = c.run_id "
      "WHERE c.status = 'ok' AND c.median_ns IS NOT NULL AND (?1 = '' OR c.bench = ?1) AND r.started_utc >= ?2 "
      "ORDER BY r.started_utc, r.id");
  q.bind(1, bench).bind(2, since_utc);
  std::vector<CasePoint> points;
  while (q.step())
    points.push_back({q.integer(0), q.text(1), q.text(2), q.text(3), q.text(4), q.text(5), q.text(6), q.real(7)});
  return points;
}

std::vector<CasePoint> HistoryDb::case_points_of_suite(const std::string& suite_hash) {
  auto q = db_.prepare(
      "SELECT r.id, r.run_group, r.started_utc, r.git_commit, r.tag, c.case_key, c.case_id, c.median_ns "
      "FROM cases c JOIN runs r ON r.id = c.run_id "
      "WHERE c.status = 'ok' AND c.median_ns IS NOT NULL AND r.suite_hash = ?1 ORDER BY r.started_utc, r.id");
  q.bind(1, suite_hash);
  std::vector<CasePoint> points;
  while (q.step())
    points.push_back({q.integer(0), q.text(1), q.text(2), q.text(3), q.text(4), q.text(5), q.text(6), q.real(7)});
  return points;
}

}  // namespace assay::store
