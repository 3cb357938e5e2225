#include "store/sqlite_db.hpp"

#include <sqlite3.h>

#include <utility>

#include "core/error.hpp"

namespace assay::store {

void throw_sqlite_error(int rc, const std::string& origin, const std::string& what) {
  const std::string message = origin + ": " + what + ": " + sqlite3_errstr(rc);
  const int primary = rc & 0xff;
  if (primary == SQLITE_NOTADB || primary == SQLITE_CORRUPT) throw InputError(message + " (not an assay history database)");
  throw InternalError(message);
}

Statement::Statement(sqlite3* db, const std::string& sql, const std::string& origin) : db_(db), origin_(origin) {
  const int rc = sqlite3_prepare_v2(db_, sql.c_str(), static_cast<int>(sql.size()), &stmt_, nullptr);
  if (rc != SQLITE_OK) throw_sqlite_error(rc, origin_, std::string("cannot prepare query: ") + sqlite3_errmsg(db_));
}

Statement::~Statement() { sqlite3_finalize(stmt_); }

Statement& Statement::bind(int index, std::int64_t value) {
  sqlite3_bind_int64(stmt_, index, value);
  return *this;
}
Statement& Statement::bind(int index, double value) {
  sqlite3_bind_double(stmt_, index, value);
  return *this;
}
Statement& Statement::bind(int index, const std::string& value) {
  sqlite3_bind_text(stmt_, index, value.data(), static_cast<int>(value.size()), SQLITE_TRANSIENT);
  return *this;
}
Statement& Statement::bind_null(int index) {
  sqlite3_bind_null(stmt_, index);
  return *this;
}

bool Statement::step() {
  const int rc = sqlite3_step(stmt_);
  if (rc == SQLITE_ROW) return true;
  if (rc == SQLITE_DONE) return false;
  throw_sqlite_error(rc, origin_, sqlite3_errmsg(db_));
}

void Statement::reset() {
  sqlite3_reset(stmt_);
  sqlite3_clear_bindings(stmt_);
}

std::int64_t Statement::integer(int column) const { return sqlite3_column_int64(stmt_, column); }
double Statement::real(int column) const { return sqlite3_column_double(stmt_, column); }
std::string Statement::text(int column) const {
  const auto* p = reinterpret_cast<const char*>(sqlite3_column_text(stmt_, column));
  return p ? std::string(p, static_cast<std::size_t>(sqlite3_column_bytes(stmt_, column))) : std::string();
}
bool Statement::is_null(int column) const { return sqlite3_column_type(stmt_, column) == SQLITE_NULL; }

SqliteDb::SqliteDb(const std::string& path, Access access, int busy_timeout_ms, const std::string& uri) : path_(path) {
  const int flags = access == Access::read_write ? SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE
                    : access == Access::read_only ? SQLITE_OPEN_READONLY
                                                  : SQLITE_OPEN_READONLY | SQLITE_OPEN_URI;  // immutable
  const int rc = sqlite3_open_v2((uri.empty() ? path : uri).c_str(), &db_, flags | SQLITE_OPEN_NOMUTEX, nullptr);
  if (rc != SQLITE_OK) {
    sqlite3_close(db_);
    db_ = nullptr;
    throw_sqlite_error(rc, path_, "cannot open");
  }
  sqlite3_busy_timeout(db_, busy_timeout_ms);
  sqlite3_extended_result_codes(db_, 1);
}

SqliteDb::SqliteDb(SqliteDb&& other) noexcept : db_(std::exchange(other.db_, nullptr)), path_(std::move(other.path_)) {}

SqliteDb::~SqliteDb() { sqlite3_close(db_); }

void SqliteDb::exec(const std::string& sql) {
  if (!exec_unless_busy(sql)) throw_sqlite_error(SQLITE_BUSY, path_, sql);
}

bool SqliteDb::exec_unless_busy(const std::string& sql) {
  char* message = nullptr;
  const int rc = sqlite3_exec(db_, sql.c_str(), nullptr, nullptr, &message);
  if ((rc & 0xff) == SQLITE_BUSY) {
    sqlite3_free(message);
    return false;
  }
  if (rc != SQLITE_OK) {
    const std::string text = message ? message : "";
    sqlite3_free(message);
    throw_sqlite_error(rc, path_, sql + ": " + text);
  }
  return true;
}

SqliteDb::WriteTransaction::WriteTransaction(SqliteDb& db) : db_(db) { db_.exec("BEGIN IMMEDIATE"); }

SqliteDb::WriteTransaction::~WriteTransaction() {
  if (!done_) sqlite3_exec(db_.db_, "ROLLBACK", nullptr, nullptr, nullptr);
}

void SqliteDb::WriteTransaction::commit() {
  db_.exec("COMMIT");
  done_ = true;
}

}  // namespace assay::store
