// A thin RAII layer over the SQLite C API: one connection, prepared statements, transactions.
// Errors become assay errors: a file that is not a database is bad input (exit 3), anything
// else (locks that outlast the busy timeout, I/O) is an infrastructure error (exit 4).
#pragma once

#include <cstdint>
#include <string>

struct sqlite3;
struct sqlite3_stmt;

namespace assay::store {

class Statement {
 public:
  Statement(sqlite3* db, const std::string& sql, const std::string& origin);
  ~Statement();
  Statement(const Statement&) = delete;
  Statement& operator=(const Statement&) = delete;

  Statement& bind(int index, std::int64_t value);
  Statement& bind(int index, double value);
  Statement& bind(int index, const std::string& value);
  Statement& bind_null(int index);
  bool step();  // true while there is a row to read
  void reset();  // ready to bind and step again

  std::int64_t integer(int column) const;
  double real(int column) const;
  std::string text(int column) const;
  bool is_null(int column) const;

 private:
  sqlite3* db_;
  sqlite3_stmt* stmt_ = nullptr;
  const std::string& origin_;
};

class SqliteDb {
 public:
  enum class Access { read_only, read_write, immutable };
  // read_write creates the file when missing; immutable opens `uri` (file:...?immutable=1: no
  // locks, no -shm file), named `path` in messages. Sets the busy timeout on every connection.
  SqliteDb(const std::string& path, Access access, int busy_timeout_ms, const std::string& uri = "");
  ~SqliteDb();
  SqliteDb(const SqliteDb&) = delete;
  SqliteDb& operator=(const SqliteDb&) = delete;
  SqliteDb(SqliteDb&& other) noexcept;

  void exec(const std::string& sql);
  // exec, but false instead of an error when the database is locked (SQLITE_BUSY): for the
  // statements that do not wait on the busy handler (PRAGMA journal_mode).
  bool exec_unless_busy(const std::string& sql);
  Statement prepare(const std::string& sql) { return Statement(db_, sql, path_); }
  const std::string& path() const { return path_; }

  // Holds a write lock from the start (BEGIN IMMEDIATE), so that two writers queue on the busy
  // timeout instead of failing half-way; rolls back unless commit() was called.
  class WriteTransaction {
   public:
    explicit WriteTransaction(SqliteDb& db);
    ~WriteTransaction();
    void commit();

   private:
    SqliteDb& db_;
    bool done_ = false;
  };

 private:
  sqlite3* db_ = nullptr;
  std::string path_;
};

// Throws the assay error for SQLite result code `rc`, naming `origin` and `what`.
[[noreturn]] void throw_sqlite_error(int rc, const std::string& origin, const std::string& what);

}  // namespace assay::store
