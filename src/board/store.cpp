#include "board/store.h"

#include <openssl/rand.h>

#include <algorithm>
#include <chrono>
#include <set>

#include "board/migrations.h"
#include "core/sha256.h"

namespace kjudge::board {

namespace {

std::string random_token() {
  unsigned char b[24];
  if (RAND_bytes(b, sizeof b) != 1) throw DbError("cannot draw a random token");
  static const char* hex = "0123456789abcdef";
  std::string s = "kj_";
  for (unsigned char c : b) {
    s += hex[c >> 4];
    s += hex[c & 15];
  }
  return s;
}

Submission submission_of(const Row& r) {
  Submission s;
  s.id = r.integer(0);
  s.user_id = r.integer(1);
  if (!r.null(2)) s.leaderboard_id = r.integer(2);
  s.target = r.text(3);
  s.mode = r.text(4);
  s.file_name = r.text(5);
  s.code_id = r.integer(6);
  s.idempotency_key = r.null(7) ? "" : r.text(7);
  s.status = r.text(8);
  s.created_us = r.integer(9);
  return s;
}

const char* kRunCols =
    "id, submission_id, mode, secret, gpu_type, score, passed, started_us, ended_us, result, "
    "system_info, review, review_note";
// The same, of a run aliased r in a join.
const char* kRunColsR =
    "r.id, r.submission_id, r.mode, r.secret, r.gpu_type, r.score, r.passed, r.started_us, "
    "r.ended_us, r.result, r.system_info, r.review, r.review_note";
constexpr std::size_t kRunColCount = 13;

Run run_of(const Row& r) {
  Run x;
  x.id = r.integer(0);
  x.submission_id = r.integer(1);
  x.mode = r.text(2);
  x.secret = r.integer(3) != 0;
  x.gpu_type = r.text(4);
  if (!r.null(5)) x.score = r.real(5);
  x.passed = r.integer(6) != 0;
  x.started_us = r.integer(7);
  x.ended_us = r.integer(8);
  x.result = r.text(9);
  x.system_info = r.text(10);
  x.review = r.text(11);
  x.review_note = r.text(12);
  return x;
}

const char* kSubmissionCols =
    "id, user_id, leaderboard_id, target, mode, file_name, code_id, idempotency_key, status, "
    "created_us";

}  // namespace

std::int64_t now_us() {
  return std::chrono::duration_cast<std::chrono::microseconds>(
             std::chrono::system_clock::now().time_since_epoch())
      .count();
}

Store::Store(std::unique_ptr<Db> db) : db_(std::move(db)) { migrate(*db_); }

int Store::schema_version() {
  std::lock_guard<std::mutex> lock(mu_);
  return board::schema_version(*db_);
}

std::int64_t Store::create_user(const std::string& name, const std::string& role) {
  std::lock_guard<std::mutex> lock(mu_);
  auto rows = db_->query("INSERT INTO users (name, role, created_us) VALUES (?, ?, ?) RETURNING id",
                         {v(name), v(role), v(now_us())});
  return rows.at(0).integer(0);
}

std::optional<User> Store::user_by_name(const std::string& name) {
  std::lock_guard<std::mutex> lock(mu_);
  auto rows = db_->query("SELECT id, name, role FROM users WHERE name = ?", {v(name)});
  if (rows.empty()) return std::nullopt;
  return User{rows[0].integer(0), rows[0].text(1), rows[0].text(2)};
}

std::string Store::issue_token(std::int64_t user_id, const std::string& label) {
  std::string token = random_token();
  std::lock_guard<std::mutex> lock(mu_);
  db_->query("INSERT INTO tokens (user_id, token_sha256, label, created_us) VALUES (?, ?, ?, ?)",
             {v(user_id), v(sha256_hex(token)), v(label), v(now_us())});
  return token;
}

std::optional<User> Store::user_by_token(const std::string& token) {
  std::lock_guard<std::mutex> lock(mu_);
  auto rows = db_->query(
      "SELECT u.id, u.name, u.role FROM tokens t JOIN users u ON u.id = t.user_id "
      "WHERE t.token_sha256 = ?",
      {v(sha256_hex(token))});
  if (rows.empty()) return std::nullopt;
  return User{rows[0].integer(0), rows[0].text(1), rows[0].text(2)};
}

std::vector<UserInfo> Store::users() {
  std::lock_guard<std::mutex> lock(mu_);
  std::vector<UserInfo> out;
  for (const auto& r : db_->query("SELECT id, name, role, created_us FROM users ORDER BY name", {}))
    out.push_back({User{r.integer(0), r.text(1), r.text(2)}, r.integer(3), {}});
  for (auto& u : out)
    for (const auto& r :
         db_->query("SELECT id, label, created_us FROM tokens WHERE user_id = ? ORDER BY id",
                    {v(u.user.id)}))
      u.tokens.push_back({r.integer(0), r.text(1), r.integer(2)});
  return out;
}

int Store::revoke_tokens(std::int64_t user_id, std::optional<std::int64_t> token_id) {
  std::lock_guard<std::mutex> lock(mu_);
  const auto rows =
      token_id ? db_->query("DELETE FROM tokens WHERE user_id = ? AND id = ? RETURNING id",
                            {v(user_id), v(*token_id)})
               : db_->query("DELETE FROM tokens WHERE user_id = ? RETURNING id", {v(user_id)});
  return static_cast<int>(rows.size());
}

std::int64_t Store::put_code(const std::string& text) {
  std::lock_guard<std::mutex> lock(mu_);
  const std::string h = sha256_hex(text);
  db_->query("INSERT INTO code_files (sha256, code) VALUES (?, ?) ON CONFLICT (sha256) DO NOTHING",
             {v(h), v(text)});
  return db_->query("SELECT id FROM code_files WHERE sha256 = ?", {v(h)}).at(0).integer(0);
}

std::string Store::code(std::int64_t code_id) {
  std::lock_guard<std::mutex> lock(mu_);
  auto rows = db_->query("SELECT code FROM code_files WHERE id = ?", {v(code_id)});
  if (rows.empty()) throw DbError("no code " + std::to_string(code_id));
  return rows[0].text(0);
}

std::int64_t Store::create_leaderboard(const Leaderboard& b, std::int64_t creator_id) {
  std::lock_guard<std::mutex> lock(mu_);
  Transaction tx(*db_);
  auto rows = db_->query(
      "INSERT INTO leaderboards (name, task_dir, task_json, description, deadline_us, secret_seed, "
      "creator_id, created_us, target) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?) RETURNING id",
      {v(b.name), v(b.task_dir), v(b.task_json), v(b.description),
       b.deadline_us ? v(*b.deadline_us) : null(), v(b.secret_seed), v(creator_id), v(now_us()),
       b.target.empty() ? null() : v(b.target)});
  const std::int64_t id = rows.at(0).integer(0);
  for (const auto& g : b.gpu_types)
    db_->query("INSERT INTO gpu_types (leaderboard_id, gpu_type) VALUES (?, ?)", {v(id), v(g)});
  tx.commit();
  return id;
}

std::optional<Leaderboard> Store::leaderboard(const std::string& name) {
  return find_leaderboard("name = ?", v(name));
}

std::optional<Leaderboard> Store::leaderboard(std::int64_t id) {
  return find_leaderboard("id = ?", v(id));
}

std::optional<Leaderboard> Store::find_leaderboard(const char* where, const Value& key) {
  std::lock_guard<std::mutex> lock(mu_);
  auto rows = db_->query(
      std::string("SELECT id, name, task_dir, task_json, description, deadline_us, secret_seed, "
                  "target FROM leaderboards WHERE ") +
          where,
      {key});
  if (rows.empty()) return std::nullopt;
  const Row& r = rows[0];
  Leaderboard b{
      r.integer(0), r.text(1), r.text(2),
      r.text(3),    r.text(4), r.null(5) ? std::nullopt : std::optional<std::int64_t>(r.integer(5)),
      r.integer(6), {},        r.null(7) ? std::string() : r.text(7)};
  for (const auto& g : db_->query(
           "SELECT gpu_type FROM gpu_types WHERE leaderboard_id = ? ORDER BY gpu_type", {v(b.id)}))
    b.gpu_types.push_back(g.text(0));
  return b;
}

std::vector<Leaderboard> Store::leaderboards() {
  std::vector<std::string> names;
  {
    std::lock_guard<std::mutex> lock(mu_);
    for (const auto& r : db_->query("SELECT name FROM leaderboards ORDER BY name"))
      names.push_back(r.text(0));
  }
  std::vector<Leaderboard> out;
  for (const auto& n : names)
    if (auto b = leaderboard(n)) out.push_back(*b);
  return out;
}

bool Store::delete_leaderboard(const std::string& name) {
  std::lock_guard<std::mutex> lock(mu_);
  return !db_->query("DELETE FROM leaderboards WHERE name = ? RETURNING id", {v(name)}).empty();
}

std::int64_t Store::submit(const NewSubmission& s, bool* created) {
  std::lock_guard<std::mutex> lock(mu_);
  Transaction tx(*db_);
  if (s.idempotency_key) {
    auto seen = db_->query("SELECT id FROM submissions WHERE user_id = ? AND idempotency_key = ?",
                           {v(s.user_id), v(*s.idempotency_key)});
    if (!seen.empty()) {
      if (created) *created = false;
      tx.commit();
      return seen[0].integer(0);
    }
  }
  if (s.max_unfinished > 0) {
    auto n = db_->query(
        "SELECT COUNT(*) FROM jobs j JOIN submissions s ON j.submission_id = s.id "
        "WHERE s.user_id = ? AND j.status IN ('queued', 'running')",
        {v(s.user_id)});
    if (n.at(0).integer(0) >= s.max_unfinished) throw OverLimit(s.max_unfinished);
  }
  // The quota is checked, and the code stored, inside the transaction: code refused is never
  // kept, and two submissions at once cannot both pass on one reading.
  const auto size = static_cast<std::int64_t>(s.code.size());
  if (const std::int64_t quota = storage_quota_.load(); quota > 0) {
    auto u = db_->query("SELECT stored_bytes, role FROM users WHERE id = ?", {v(s.user_id)});
    if (!u.empty() && u[0].text(1) != "admin" && u[0].integer(0) + size > quota)
      throw OverLimit("this submission (" + std::to_string(size) + " bytes) would take your " +
                          "stored code past your quota of " + std::to_string(quota) + " bytes (" +
                          std::to_string(u[0].integer(0)) + " used)",
                      quota);
  }
  const std::string h = sha256_hex(s.code);
  db_->query("INSERT INTO code_files (sha256, code) VALUES (?, ?) ON CONFLICT (sha256) DO NOTHING",
             {v(h), v(s.code)});
  const std::int64_t code_id =
      db_->query("SELECT id FROM code_files WHERE sha256 = ?", {v(h)}).at(0).integer(0);
  db_->query("UPDATE users SET stored_bytes = stored_bytes + ? WHERE id = ?",
             {v(size), v(s.user_id)});
  const std::int64_t t = now_us();
  auto rows = db_->query(
      "INSERT INTO submissions (user_id, leaderboard_id, target, mode, file_name, code_id, "
      "idempotency_key, status, created_us) VALUES (?, ?, ?, ?, ?, ?, ?, 'queued', ?) RETURNING id",
      {v(s.user_id), s.leaderboard_id ? v(*s.leaderboard_id) : null(), v(s.target), v(s.mode),
       v(s.file_name), v(code_id), s.idempotency_key ? v(*s.idempotency_key) : null(), v(t)});
  const std::int64_t id = rows.at(0).integer(0);
  db_->query(
      "INSERT INTO jobs (submission_id, priority, status, enqueued_us) VALUES (?, ?, 'queued', ?)",
      {v(id), v(static_cast<std::int64_t>(s.priority)), v(t)});
  tx.commit();
  if (created) *created = true;
  return id;
}

std::optional<Submission> Store::submission(std::int64_t id) {
  std::lock_guard<std::mutex> lock(mu_);
  auto rows = db_->query(
      std::string("SELECT ") + kSubmissionCols + " FROM submissions WHERE id = ?", {v(id)});
  if (rows.empty()) return std::nullopt;
  return submission_of(rows[0]);
}

std::vector<Submission> Store::submissions_of(std::int64_t user_id,
                                              std::optional<std::int64_t> leaderboard_id) {
  std::lock_guard<std::mutex> lock(mu_);
  std::string sql =
      std::string("SELECT ") + kSubmissionCols + " FROM submissions WHERE user_id = ?";
  std::vector<Value> params = {v(user_id)};
  if (leaderboard_id) {
    sql += " AND leaderboard_id = ?";
    params.push_back(v(*leaderboard_id));
  }
  std::vector<Submission> out;
  for (const auto& r : db_->query(sql + " ORDER BY id", params)) out.push_back(submission_of(r));
  return out;
}

std::vector<std::int64_t> Store::finished_among(const std::vector<std::int64_t>& ids) {
  std::vector<std::int64_t> out;
  std::lock_guard<std::mutex> lock(mu_);
  for (std::size_t a = 0; a < ids.size(); a += 500) {
    const std::size_t n = std::min<std::size_t>(500, ids.size() - a);
    std::string sql = "SELECT id FROM submissions WHERE status IN ('done', 'failed') AND id IN (";
    std::vector<Value> params;
    for (std::size_t i = 0; i < n; ++i) {
      sql += i ? ", ?" : "?";
      params.push_back(v(ids[a + i]));
    }
    for (const auto& r : db_->query(sql + ")", params)) out.push_back(r.integer(0));
  }
  return out;
}

void Store::set_status(std::int64_t submission_id, const std::string& status) {
  std::lock_guard<std::mutex> lock(mu_);
  db_->query("UPDATE submissions SET status = ? WHERE id = ?", {v(status), v(submission_id)});
}

std::string like_literal(const std::string& text) {
  std::string out;
  for (char c : text) {
    if (c == '%' || c == '_' || c == '\\') out += '\\';
    out += c;
  }
  return out;
}

std::optional<Job> Store::claim(const std::string& worker, bool with_tasks,
                                const std::vector<std::string>& refused) {
  std::lock_guard<std::mutex> lock(mu_);
  const bool pg = std::string(db_->dialect()) == "postgresql";
  Transaction tx(*db_);
  std::vector<std::string> patterns = refused;
  if (!with_tasks) patterns.push_back("task:%");
  std::string skip;
  std::vector<Value> params = {v(worker), v(now_us())};
  for (const auto& p : patterns) {
    skip += std::string(skip.empty() ? "" : " OR") + " s.target LIKE ? ESCAPE '\\'";
    params.push_back(v(p));
  }
  // One statement: the subquery picks, the update takes. SQLite's write transaction (BEGIN
  // IMMEDIATE) makes it atomic; PostgreSQL's row lock with SKIP LOCKED lets concurrent
  // claimers pass over each other's pick.
  auto rows = db_->query(
      std::string("UPDATE jobs SET status = 'running', worker = ?, started_us = ?, attempts = "
                  "attempts + 1 WHERE id = (SELECT id FROM jobs WHERE status = 'queued'") +
          (skip.empty() ? ""
                        : " AND NOT EXISTS (SELECT 1 FROM submissions s WHERE s.id = "
                          "jobs.submission_id AND (" +
                              skip + "))") +
          " ORDER BY priority DESC, id LIMIT 1" + (pg ? " FOR UPDATE SKIP LOCKED" : "") +
          ") RETURNING id, submission_id, priority, attempts",
      params);
  if (rows.empty()) {
    tx.commit();
    return std::nullopt;
  }
  Job j{rows[0].integer(0), rows[0].integer(1), static_cast<int>(rows[0].integer(2)),
        static_cast<int>(rows[0].integer(3)), worker};
  db_->query("UPDATE submissions SET status = 'running' WHERE id = ?", {v(j.submission_id)});
  tx.commit();
  return j;
}

void Store::finish(std::int64_t job_id, bool ok) {
  std::lock_guard<std::mutex> lock(mu_);
  db_->query("UPDATE jobs SET status = ?, finished_us = ? WHERE id = ?",
             {v(std::string(ok ? "done" : "failed")), v(now_us()), v(job_id)});
}

bool Store::requeue(std::int64_t job_id) {
  std::lock_guard<std::mutex> lock(mu_);
  Transaction tx(*db_);
  auto rows = db_->query(
      "UPDATE jobs SET status = 'queued', worker = NULL WHERE status = 'running' AND id = ? "
      "RETURNING submission_id",
      {v(job_id)});
  // Judged again from the start: the runs it recorded go, as in requeue_running.
  for (const auto& r : rows) {
    db_->query("UPDATE submissions SET status = 'queued' WHERE id = ?", {v(r.integer(0))});
    db_->query("DELETE FROM runs WHERE submission_id = ?", {v(r.integer(0))});
  }
  tx.commit();
  return !rows.empty();
}

int Store::requeue_running(const std::string& worker_prefix) {
  std::lock_guard<std::mutex> lock(mu_);
  Transaction tx(*db_);
  auto rows = db_->query(
      "UPDATE jobs SET status = 'queued', worker = NULL WHERE status = 'running' AND "
      "worker LIKE ? RETURNING submission_id",
      {v(worker_prefix + "%")});
  // The job is judged again from the start, so runs it had recorded (a pack board's test run
  // whose timing was cut off) go: a submission never shows one stage twice.
  for (const auto& r : rows) {
    db_->query("UPDATE submissions SET status = 'queued' WHERE id = ?", {v(r.integer(0))});
    db_->query("DELETE FROM runs WHERE submission_id = ?", {v(r.integer(0))});
  }
  tx.commit();
  return static_cast<int>(rows.size());
}

int Store::queued() {
  std::lock_guard<std::mutex> lock(mu_);
  return static_cast<int>(
      db_->query("SELECT COUNT(*) FROM jobs WHERE status = 'queued'").at(0).integer(0));
}

std::int64_t Store::add_run(const Run& r) {
  std::lock_guard<std::mutex> lock(mu_);
  return db_
      ->query(
          "INSERT INTO runs (submission_id, mode, secret, gpu_type, score, passed, started_us, "
          "ended_us, result, system_info, review) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?) "
          "RETURNING id",
          {v(r.submission_id), v(r.mode), v(static_cast<std::int64_t>(r.secret)), v(r.gpu_type),
           r.score ? v(*r.score) : null(), v(static_cast<std::int64_t>(r.passed)), v(r.started_us),
           v(r.ended_us), v(r.result), v(r.system_info), v(r.review)})
      .at(0)
      .integer(0);
}

std::vector<Run> Store::runs_of(std::int64_t submission_id) {
  std::lock_guard<std::mutex> lock(mu_);
  std::vector<Run> out;
  for (const auto& r : db_->query(
           std::string("SELECT ") + kRunCols + " FROM runs WHERE submission_id = ? ORDER BY id",
           {v(submission_id)}))
    out.push_back(run_of(r));
  return out;
}

std::vector<ReviewItem> Store::pending_reviews() {
  std::lock_guard<std::mutex> lock(mu_);
  std::vector<ReviewItem> out;
  for (const auto& r :
       db_->query(std::string("SELECT ") + kRunColsR +
                  ", u.name, b.name, s.target, s.file_name FROM runs r "
                  "JOIN submissions s ON s.id = r.submission_id JOIN users u ON u.id = s.user_id "
                  "LEFT JOIN leaderboards b ON b.id = s.leaderboard_id "
                  "WHERE r.review = 'pending' ORDER BY r.ended_us, r.id")) {
    ReviewItem it;
    it.run = run_of(r);
    it.user = r.text(kRunColCount);
    it.leaderboard = r.null(kRunColCount + 1) ? "" : r.text(kRunColCount + 1);
    it.target = r.text(kRunColCount + 2);
    it.file_name = r.text(kRunColCount + 3);
    out.push_back(std::move(it));
  }
  return out;
}

ReviewOutcome Store::review(std::int64_t run_id, const std::string& state, const std::string& note,
                            std::int64_t reviewer_id) {
  if (state != "cleared" && state != "rejected") throw DbError("a review is cleared or rejected");
  std::lock_guard<std::mutex> lock(mu_);
  Transaction tx(*db_);
  const bool changed =
      !db_->query(
              "UPDATE runs SET review = ?, review_note = ?, reviewer_id = ?, reviewed_us = ? "
              "WHERE id = ? AND review = 'pending' RETURNING id",
              {v(state), v(note), v(reviewer_id), v(now_us()), v(run_id)})
           .empty();
  const bool exists =
      changed || !db_->query("SELECT id FROM runs WHERE id = ?", {v(run_id)}).empty();
  tx.commit();
  return changed ? ReviewOutcome::done
                 : (exists ? ReviewOutcome::not_pending : ReviewOutcome::no_such_run);
}

std::vector<RankEntry> Store::ranking(std::int64_t leaderboard_id, const std::string& gpu_type) {
  std::lock_guard<std::mutex> lock(mu_);
  // Each user's best (lowest) score; ties go to the earlier run.
  auto rows = db_->query(
      "SELECT u.name, r.score, r.submission_id, r.ended_us FROM runs r "
      "JOIN submissions s ON s.id = r.submission_id JOIN users u ON u.id = s.user_id "
      "WHERE s.leaderboard_id = ? AND r.gpu_type = ? AND r.passed = 1 AND r.secret = 0 AND "
      "r.score IS NOT NULL AND r.mode = 'leaderboard' AND "
      "r.review IN ('none', 'cleared') ORDER BY r.score, r.ended_us",
      {v(leaderboard_id), v(gpu_type)});
  std::vector<RankEntry> out;
  std::set<std::string> seen;
  for (const auto& r : rows) {
    const std::string& user = r.text(0);
    if (!seen.insert(user).second) continue;  // a better run of this user came first
    out.push_back({static_cast<int>(out.size()) + 1, user, r.real(1), r.integer(2), r.integer(3)});
  }
  return out;
}

std::vector<std::pair<std::int64_t, double>> Store::score_history(std::int64_t leaderboard_id,
                                                                  const std::string& gpu_type) {
  std::lock_guard<std::mutex> lock(mu_);
  std::vector<std::pair<std::int64_t, double>> out;
  for (const auto& r : db_->query(
           "SELECT r.ended_us, r.score FROM runs r JOIN submissions s ON s.id = r.submission_id "
           "WHERE s.leaderboard_id = ? AND r.gpu_type = ? AND r.passed = 1 AND r.secret = 0 AND "
           "r.score IS NOT NULL AND r.mode = 'leaderboard' AND "
           "r.review IN ('none', 'cleared') ORDER BY r.ended_us",
           {v(leaderboard_id), v(gpu_type)}))
    out.emplace_back(r.integer(0), r.real(1));
  return out;
}

}  // namespace kjudge::board
