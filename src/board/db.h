#pragma once
// One SQL connection behind one interface, so the service's storage (store.h) is written once
// for both databases: SQLite (embedded, the default: one file, WAL) and PostgreSQL (libpq, for
// several service instances sharing one database). Statements use `?` placeholders; the
// PostgreSQL connection numbers them ($1, $2, ...). Values travel as text or NULL.
#include <cstdint>
#include <memory>
#include <optional>
#include <stdexcept>
#include <string>
#include <vector>

namespace kjudge::board {

using Value = std::optional<std::string>;  // nullopt: SQL NULL

struct Row {
  std::vector<Value> cols;
  bool null(std::size_t i) const { return !cols.at(i).has_value(); }
  const std::string& text(std::size_t i) const;  // throws DbError on NULL
  std::int64_t integer(std::size_t i) const;
  double real(std::size_t i) const;
};

class DbError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

// A unique or primary key was violated (e.g. a name taken, an idempotency key reused).
class DbConflict : public DbError {
 public:
  using DbError::DbError;
};

class Db {
 public:
  virtual ~Db() = default;
  virtual const char* dialect() const = 0;  // "sqlite" or "postgresql"
  virtual std::vector<Row> query(const std::string& sql, const std::vector<Value>& params = {}) = 0;
  // Several statements without parameters (migrations).
  virtual void script(const std::string& sql) = 0;
  // A transaction that writes: SQLite takes the write lock at once (BEGIN IMMEDIATE), so two
  // writers never deadlock upgrading their locks.
  virtual void begin() = 0;
  virtual void commit() = 0;
  virtual void rollback() = 0;
};

// "sqlite:PATH", a path ending in .db/.sqlite, or "postgresql://..." / "postgres://...".
std::unique_ptr<Db> open_db(const std::string& url);
std::unique_ptr<Db> open_sqlite(const std::string& path);
std::unique_ptr<Db> open_postgresql(const std::string& conninfo);

// Commits at scope exit unless commit() or rollback() ran first; an exception rolls back.
class Transaction {
 public:
  explicit Transaction(Db& db) : db_(db) { db_.begin(); }
  ~Transaction();
  void commit() {
    db_.commit();
    done_ = true;
  }
  Transaction(const Transaction&) = delete;
  Transaction& operator=(const Transaction&) = delete;

 private:
  Db& db_;
  bool done_ = false;
};

Value v(const std::string& s);
Value v(std::int64_t i);
Value v(double d);
Value v(bool b);
inline Value null() { return std::nullopt; }

}  // namespace kjudge::board
