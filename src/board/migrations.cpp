#include "board/migrations.h"

#include "board/store.h"

namespace kjudge::board {

namespace {

std::string replace_all(std::string s, const std::string& from, const std::string& to) {
  for (std::size_t i = s.find(from); i != std::string::npos; i = s.find(from, i + to.size()))
    s.replace(i, from.size(), to);
  return s;
}

}  // namespace

// Times are microseconds since the epoch (BIGINT), booleans 0/1 (INTEGER): the same text and the
// same values in both databases. JSON documents are TEXT.
const std::vector<Migration>& migrations() {
  static const std::vector<Migration> m = {
      {1, "users, tokens, leaderboards, GPU types, code, submissions, runs, jobs", R"SQL(
CREATE TABLE users (
  id {{PK}},
  name TEXT NOT NULL UNIQUE,
  role TEXT NOT NULL CHECK (role IN ('user', 'admin')),
  created_us BIGINT NOT NULL
);
CREATE TABLE tokens (
  id {{PK}},
  user_id BIGINT NOT NULL REFERENCES users(id) ON DELETE CASCADE,
  token_sha256 TEXT NOT NULL UNIQUE,
  label TEXT NOT NULL DEFAULT '',
  created_us BIGINT NOT NULL
);
CREATE TABLE leaderboards (
  id {{PK}},
  name TEXT NOT NULL UNIQUE,
  task_dir TEXT NOT NULL,
  task_json TEXT NOT NULL,
  description TEXT NOT NULL DEFAULT '',
  deadline_us BIGINT,
  secret_seed BIGINT NOT NULL,
  creator_id BIGINT REFERENCES users(id),
  created_us BIGINT NOT NULL
);
CREATE TABLE gpu_types (
  leaderboard_id BIGINT NOT NULL REFERENCES leaderboards(id) ON DELETE CASCADE,
  gpu_type TEXT NOT NULL,
  PRIMARY KEY (leaderboard_id, gpu_type)
);
CREATE TABLE code_files (
  id {{PK}},
  sha256 TEXT NOT NULL UNIQUE,
  code TEXT NOT NULL
);
CREATE TABLE submissions (
  id {{PK}},
  user_id BIGINT NOT NULL REFERENCES users(id),
  leaderboard_id BIGINT REFERENCES leaderboards(id) ON DELETE CASCADE,
  target TEXT NOT NULL,
  mode TEXT NOT NULL,
  file_name TEXT NOT NULL,
  code_id BIGINT NOT NULL REFERENCES code_files(id),
  idempotency_key TEXT,
  status TEXT NOT NULL DEFAULT 'queued',
  created_us BIGINT NOT NULL,
  UNIQUE (user_id, idempotency_key)
);
CREATE TABLE runs (
  id {{PK}},
  submission_id BIGINT NOT NULL REFERENCES submissions(id) ON DELETE CASCADE,
  mode TEXT NOT NULL,
  secret INTEGER NOT NULL DEFAULT 0,
  gpu_type TEXT NOT NULL DEFAULT '',
  score DOUBLE PRECISION,
  passed INTEGER NOT NULL DEFAULT 0,
  started_us BIGINT NOT NULL,
  ended_us BIGINT NOT NULL,
  result TEXT NOT NULL DEFAULT '{}',
  system_info TEXT NOT NULL DEFAULT '{}'
);
CREATE INDEX runs_rank ON runs (gpu_type, score);
CREATE TABLE jobs (
  id {{PK}},
  submission_id BIGINT NOT NULL REFERENCES submissions(id) ON DELETE CASCADE,
  priority INTEGER NOT NULL,
  status TEXT NOT NULL DEFAULT 'queued' CHECK (status IN ('queued', 'running', 'done', 'failed')),
  worker TEXT,
  attempts INTEGER NOT NULL DEFAULT 0,
  enqueued_us BIGINT NOT NULL,
  started_us BIGINT,
  finished_us BIGINT
);
CREATE INDEX jobs_queue ON jobs (status, priority, id);
)SQL"},
      // A board over a pack problem ("pack:NAME#TASK_ID") instead of a task folder, so a ranked
      // run needs no GPU when the problem is host-only. NULL: a task board, as before.
      {2, "leaderboards over a pack problem: leaderboards.target", R"SQL(
ALTER TABLE leaderboards ADD COLUMN target TEXT;
)SQL"},
      // Issue 9: a ranked run whose solution the static pass flagged waits for an admin before
      // it ranks. Per run, not per submission: only the ranked run is held back, and its flags
      // are in its own stored result. Existing runs get 'none' (the default), so nothing
      // already ranked disappears.
      {3, "review of flagged ranked runs: runs.review, review_note, reviewer_id, reviewed_us",
       R"SQL(
ALTER TABLE runs ADD COLUMN review TEXT NOT NULL DEFAULT 'none'
  CHECK (review IN ('none', 'pending', 'cleared', 'rejected'));
ALTER TABLE runs ADD COLUMN review_note TEXT NOT NULL DEFAULT '';
ALTER TABLE runs ADD COLUMN reviewer_id BIGINT REFERENCES users(id);
ALTER TABLE runs ADD COLUMN reviewed_us BIGINT;
CREATE INDEX runs_review ON runs (review);
)SQL"},
      // Issue 32: a per-user storage quota. What each user's submissions brought (their code's
      // bytes, counted per submission), kept as one number so a submission checks it in one
      // read. Existing users get what they already stored.
      {4, "per-user storage quota: users.stored_bytes", R"SQL(
ALTER TABLE users ADD COLUMN stored_bytes BIGINT NOT NULL DEFAULT 0;
UPDATE users SET stored_bytes = (SELECT COALESCE(SUM(LENGTH(c.code)), 0) FROM submissions s
  JOIN code_files c ON c.id = s.code_id WHERE s.user_id = users.id);
)SQL"},
  };
  return m;
}

std::string schema_sql(const std::string& sql, const char* dialect) {
  const bool pg = std::string(dialect) == "postgresql";
  return replace_all(sql, "{{PK}}",
                     pg ? "BIGSERIAL PRIMARY KEY" : "INTEGER PRIMARY KEY AUTOINCREMENT");
}

int schema_version(Db& db) {
  auto rows = db.query("SELECT COALESCE(MAX(version), 0) FROM schema_version");
  return rows.empty() ? 0 : static_cast<int>(rows[0].integer(0));
}

int migrate(Db& db) {
  const bool pg = std::string(db.dialect()) == "postgresql";
  Transaction tx(db);
  if (pg) db.query("SELECT pg_advisory_xact_lock(7461001)");
  db.script(
      "CREATE TABLE IF NOT EXISTS schema_version (version INTEGER PRIMARY KEY, "
      "what TEXT NOT NULL, applied_us BIGINT NOT NULL)");
  int have = schema_version(db);
  for (const auto& m : migrations()) {
    if (m.version <= have) continue;
    db.script(schema_sql(m.sql, db.dialect()));
    db.query("INSERT INTO schema_version (version, what, applied_us) VALUES (?, ?, ?)",
             {v(static_cast<std::int64_t>(m.version)), v(std::string(m.what)), v(now_us())});
    have = m.version;
  }
  tx.commit();
  return have;
}

}  // namespace kjudge::board
