#pragma once
// The service's schema, as numbered migrations applied in order and recorded in
// schema_version. One text serves both databases; the few words that differ are filled in per
// dialect (schema_sql).
#include <string>
#include <vector>

#include "board/db.h"

namespace kjudge::board {

struct Migration {
  int version;
  const char* what;
  const char* sql;  // with {{PK}} for an auto-numbered primary key
};

const std::vector<Migration>& migrations();
std::string schema_sql(const std::string& sql, const char* dialect);

// Applies what the database lacks, in one transaction (PostgreSQL: under an advisory lock, so
// two service instances starting together migrate once). Returns the version reached.
int migrate(Db& db);
int schema_version(Db& db);

}  // namespace kjudge::board
