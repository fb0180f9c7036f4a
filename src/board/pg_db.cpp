// PostgreSQL through libpq: several service instances share one database, and job claiming
// uses FOR UPDATE SKIP LOCKED (store.cpp) so they never hand out one job twice.
#include <libpq-fe.h>

#include "board/db.h"

namespace kjudge::board {

namespace {

// `?` → `$1`, `$2`, ... (the statements this project writes have no `?` inside literals).
std::string number_placeholders(const std::string& sql) {
  std::string out;
  int n = 0;
  for (char c : sql) {
    if (c == '?')
      out += "$" + std::to_string(++n);
    else
      out += c;
  }
  return out;
}

class PgDb : public Db {
 public:
  explicit PgDb(const std::string& conninfo) {
    conn_ = PQconnectdb(conninfo.c_str());
    if (PQstatus(conn_) != CONNECTION_OK) {
      std::string why = PQerrorMessage(conn_);
      PQfinish(conn_);
      conn_ = nullptr;
      throw DbError("cannot connect to PostgreSQL: " + why);
    }
    script("SET client_min_messages TO warning");
  }
  ~PgDb() override { PQfinish(conn_); }

  const char* dialect() const override { return "postgresql"; }

  std::vector<Row> query(const std::string& sql, const std::vector<Value>& params) override {
    std::vector<const char*> values;
    for (const auto& p : params) values.push_back(p ? p->c_str() : nullptr);
    const std::string text = number_placeholders(sql);
    PGresult* res = PQexecParams(conn_, text.c_str(), static_cast<int>(values.size()), nullptr,
                                 values.data(), nullptr, nullptr, 0);
    check(res, sql);
    std::vector<Row> rows;
    const int nr = PQntuples(res), nc = PQnfields(res);
    for (int r = 0; r < nr; ++r) {
      Row row;
      for (int c = 0; c < nc; ++c)
        row.cols.emplace_back(PQgetisnull(res, r, c) ? Value() : Value(PQgetvalue(res, r, c)));
      rows.push_back(std::move(row));
    }
    PQclear(res);
    return rows;
  }

  void script(const std::string& sql) override {
    PGresult* res = PQexec(conn_, sql.c_str());
    check(res, sql);
    PQclear(res);
  }
  void begin() override { script("BEGIN"); }
  void commit() override { script("COMMIT"); }
  void rollback() override { script("ROLLBACK"); }

 private:
  void check(PGresult* res, const std::string& sql) {
    ExecStatusType s = PQresultStatus(res);
    if (s == PGRES_COMMAND_OK || s == PGRES_TUPLES_OK) return;
    const char* state = PQresultErrorField(res, PG_DIAG_SQLSTATE);
    std::string why = PQresultErrorMessage(res);
    const bool unique = state && std::string(state) == "23505";
    PQclear(res);
    if (unique) throw DbConflict("PostgreSQL: " + why);
    throw DbError("PostgreSQL: " + why + " in: " + sql);
  }
  PGconn* conn_ = nullptr;
};

}  // namespace

std::unique_ptr<Db> open_postgresql(const std::string& conninfo) {
  return std::make_unique<PgDb>(conninfo);
}

}  // namespace kjudge::board
