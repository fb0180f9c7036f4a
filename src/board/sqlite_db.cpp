// The embedded database: one file, WAL (readers never wait for the writer), a busy timeout
// so concurrent writers queue instead of failing, foreign keys on.
#include <fcntl.h>
#include <sqlite3.h>
#include <unistd.h>

#include "board/db.h"

namespace kjudge::board {

namespace {

// The database holds password hashes and session tokens, so nobody but its owner may read it.
// SQLite would create it 0644 (less the umask); made here first with 0600, it gets that mode,
// and SQLite gives its -wal, -shm and -journal files the database file's own mode.
void create_private(const std::string& path) {
  if (path.empty() || path == ":memory:" || path.rfind("file:", 0) == 0) return;
  const int fd = ::open(path.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC | O_NOFOLLOW, 0600);
  // EEXIST: an existing database keeps the mode its owner gave it. Any other failure is
  // reported by sqlite3_open_v2 below, in its words.
  if (fd >= 0) ::close(fd);
}

class SqliteDb : public Db {
 public:
  explicit SqliteDb(const std::string& path) {
    create_private(path);
    int rc = sqlite3_open_v2(path.c_str(), &db_,
                             SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE | SQLITE_OPEN_FULLMUTEX,
                             nullptr);
    if (rc != SQLITE_OK) {
      std::string why = db_ ? sqlite3_errmsg(db_) : "out of memory";
      sqlite3_close(db_);
      db_ = nullptr;
      throw DbError("cannot open SQLite database " + path + ": " + why);
    }
    sqlite3_busy_timeout(db_, 10000);
    script("PRAGMA journal_mode=WAL; PRAGMA foreign_keys=ON; PRAGMA synchronous=NORMAL;");
  }
  ~SqliteDb() override { sqlite3_close(db_); }

  const char* dialect() const override { return "sqlite"; }

  std::vector<Row> query(const std::string& sql, const std::vector<Value>& params) override {
    sqlite3_stmt* st = nullptr;
    if (sqlite3_prepare_v2(db_, sql.c_str(), -1, &st, nullptr) != SQLITE_OK)
      throw DbError(std::string("SQLite: ") + sqlite3_errmsg(db_) + " in: " + sql);
    for (std::size_t i = 0; i < params.size(); ++i) {
      int rc = params[i] ? sqlite3_bind_text(st, static_cast<int>(i + 1), params[i]->data(),
                                             static_cast<int>(params[i]->size()), SQLITE_TRANSIENT)
                         : sqlite3_bind_null(st, static_cast<int>(i + 1));
      if (rc != SQLITE_OK) {
        sqlite3_finalize(st);
        throw DbError(std::string("SQLite bind: ") + sqlite3_errmsg(db_));
      }
    }
    std::vector<Row> rows;
    for (;;) {
      int rc = sqlite3_step(st);
      if (rc == SQLITE_DONE) break;
      if (rc != SQLITE_ROW) {
        std::string why = sqlite3_errmsg(db_);
        int ext = sqlite3_extended_errcode(db_);
        sqlite3_finalize(st);
        if (ext == SQLITE_CONSTRAINT_UNIQUE || ext == SQLITE_CONSTRAINT_PRIMARYKEY)
          throw DbConflict("SQLite: " + why);
        throw DbError("SQLite: " + why + " in: " + sql);
      }
      Row r;
      const int n = sqlite3_column_count(st);
      for (int c = 0; c < n; ++c) {
        if (sqlite3_column_type(st, c) == SQLITE_NULL) {
          r.cols.emplace_back(std::nullopt);
        } else {
          const unsigned char* t = sqlite3_column_text(st, c);
          r.cols.emplace_back(std::string(reinterpret_cast<const char*>(t),
                                          static_cast<std::size_t>(sqlite3_column_bytes(st, c))));
        }
      }
      rows.push_back(std::move(r));
    }
    sqlite3_finalize(st);
    return rows;
  }

  void script(const std::string& sql) override {
    char* err = nullptr;
    if (sqlite3_exec(db_, sql.c_str(), nullptr, nullptr, &err) != SQLITE_OK) {
      std::string why = err ? err : "error";
      sqlite3_free(err);
      throw DbError("SQLite: " + why);
    }
  }
  void begin() override { script("BEGIN IMMEDIATE"); }
  void commit() override { script("COMMIT"); }
  void rollback() override { script("ROLLBACK"); }

 private:
  sqlite3* db_ = nullptr;
};

}  // namespace

std::unique_ptr<Db> open_sqlite(const std::string& path) {
  return std::make_unique<SqliteDb>(path);
}

}  // namespace kjudge::board
