#include "board/db.h"

#include <cstdlib>
#include <exception>

namespace kjudge::board {

const std::string& Row::text(std::size_t i) const {
  const Value& x = cols.at(i);
  if (!x) throw DbError("column " + std::to_string(i) + " is NULL");
  return *x;
}

std::int64_t Row::integer(std::size_t i) const { return std::stoll(text(i)); }
double Row::real(std::size_t i) const { return std::stod(text(i)); }

Transaction::~Transaction() {
  if (done_) return;
  try {
    if (std::uncaught_exceptions() > 0)
      db_.rollback();
    else
      db_.commit();
  } catch (...) {
    // A destructor must not throw; a failed commit leaves the transaction to the database.
  }
}

Value v(const std::string& s) { return s; }
Value v(std::int64_t i) { return std::to_string(i); }
Value v(double d) {
  char b[64];
  std::snprintf(b, sizeof b, "%.17g", d);
  return std::string(b);
}
Value v(bool b) { return std::string(b ? "1" : "0"); }

std::unique_ptr<Db> open_db(const std::string& url) {
  if (url.rfind("postgresql://", 0) == 0 || url.rfind("postgres://", 0) == 0)
    return open_postgresql(url);
  if (url.rfind("sqlite:", 0) == 0) return open_sqlite(url.substr(7));
  return open_sqlite(url);
}

}  // namespace kjudge::board
