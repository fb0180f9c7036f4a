#pragma once
// The service's storage (issue 7), written once over db.h for SQLite and PostgreSQL: users and
// their API tokens (only a token's sha256 is kept), leaderboards with their GPU types,
// submissions with their code (deduplicated by sha256), the work queue, runs and rankings.
// Thread-safe: one connection, one operation at a time.
#include <atomic>
#include <cstdint>
#include <memory>
#include <mutex>
#include <optional>
#include <stdexcept>
#include <string>
#include <vector>

#include "board/db.h"

namespace kjudge::board {

struct User {
  std::int64_t id = 0;
  std::string name, role;  // role: user or admin
};

// A user as `kjudge users list` shows them: their tokens by id and label, never the token.
struct TokenInfo {
  std::int64_t id = 0;
  std::string label;
  std::int64_t created_us = 0;
};
struct UserInfo {
  User user;
  std::int64_t created_us = 0;
  std::vector<TokenInfo> tokens;
};

struct Leaderboard {
  std::int64_t id = 0;
  std::string name, task_dir, task_json, description;
  std::optional<std::int64_t> deadline_us;
  std::int64_t secret_seed = 0;
  std::vector<std::string> gpu_types;
  // A pack board's problem, "pack:NAME#TASK_ID"; empty for a task board (task_dir names it).
  std::string target;
};

// `text` as a LIKE pattern matching itself alone (`%`, `_` and `\` escaped with `\`).
std::string like_literal(const std::string& text);

struct NewSubmission {
  std::int64_t user_id = 0;
  std::optional<std::int64_t> leaderboard_id;
  std::string target;  // what is judged: "task:NAME", "pack:PATH#TASK_ID"
  std::string mode;    // test, benchmark, leaderboard, judge, ...
  std::string file_name;
  std::string code;
  std::optional<std::string> idempotency_key;
  int priority = 0;  // higher first: interactive work before bulk batches
  // The most unfinished (queued or running) submissions the user may have; 0: no limit.
  int max_unfinished = 0;
};

// Store::submit refuses a submission over one of the user's limits: unfinished submissions, or
// bytes stored (the API answers 429 with the limit).
class OverLimit : public std::runtime_error {
 public:
  explicit OverLimit(int limit)
      : std::runtime_error("you have " + std::to_string(limit) +
                           " unfinished submissions, the most allowed; wait for some to finish"),
        limit_(limit) {}
  OverLimit(const std::string& why, std::int64_t limit) : std::runtime_error(why), limit_(limit) {}
  std::int64_t limit() const { return limit_; }

 private:
  std::int64_t limit_;
};

struct Submission {
  std::int64_t id = 0, user_id = 0, code_id = 0;
  std::optional<std::int64_t> leaderboard_id;
  std::string target, mode, file_name, status, idempotency_key;
  std::int64_t created_us = 0;
};

struct Job {
  std::int64_t id = 0, submission_id = 0;
  int priority = 0, attempts = 0;
  std::string worker;
};

struct Run {
  std::int64_t id = 0, submission_id = 0;
  std::string mode;
  bool secret = false;
  std::string gpu_type;
  std::optional<double> score;
  bool passed = false;
  std::int64_t started_us = 0, ended_us = 0;
  std::string result = "{}", system_info = "{}";  // JSON
  // Issue 9: none (ranks as usual), pending (a ranked run the static pass flagged: held off the
  // ranking until an admin looks), cleared (ranks), rejected (never ranks).
  std::string review = "none";
  std::string review_note;  // the admin's words, shown to the submitter
};

// A ranked run held back for review, with what an admin needs to decide: who, where, and the
// run's result (its `cheat_flags`).
struct ReviewItem {
  Run run;
  std::string user, leaderboard;
  std::string target, file_name;
};

enum class ReviewOutcome { done, no_such_run, not_pending };

struct RankEntry {
  int rank = 0;
  std::string user;
  double score = 0;
  std::int64_t submission_id = 0;
  std::int64_t ended_us = 0;
};

// Microseconds since the epoch: every time the store writes (the tables and their migrations).
std::int64_t now_us();

class Store {
 public:
  // Opens the database and brings its schema up to date.
  explicit Store(std::unique_ptr<Db> db);
  // The most bytes of code a user (not an admin) may store over all their submissions; past
  // it, submit() throws OverLimit. 0: no limit. `kjudge serve --max-stored`.
  void set_storage_quota(std::int64_t bytes) { storage_quota_ = bytes; }
  int schema_version();
  const char* dialect() const { return db_->dialect(); }

  std::int64_t create_user(const std::string& name, const std::string& role);  // DbConflict: taken
  std::optional<User> user_by_name(const std::string& name);
  // A new random token for the user; the caller shows it once, the store keeps its hash.
  std::string issue_token(std::int64_t user_id, const std::string& label);
  std::optional<User> user_by_token(const std::string& token);
  std::vector<UserInfo> users();  // by name
  // Deletes the user's tokens (all of them, or the one with `token_id`); returns how many.
  int revoke_tokens(std::int64_t user_id, std::optional<std::int64_t> token_id = std::nullopt);

  std::int64_t put_code(const std::string& text);  // the existing id when the text is known
  std::string code(std::int64_t code_id);

  std::int64_t create_leaderboard(const Leaderboard& b, std::int64_t creator_id);
  std::optional<Leaderboard> leaderboard(const std::string& name);
  std::optional<Leaderboard> leaderboard(std::int64_t id);
  std::vector<Leaderboard> leaderboards();
  bool delete_leaderboard(const std::string& name);

  // Records the submission and queues its job in one transaction. With an idempotency key the
  // user already used, nothing new is made: the earlier submission's id comes back, and
  // `created` is false. Over the user's `max_unfinished`, throws OverLimit (counted inside the
  // transaction: exact on SQLite, whose writers take turns; on PostgreSQL two instances
  // submitting for one user at the same instant may both pass).
  std::int64_t submit(const NewSubmission& s, bool* created = nullptr);
  std::optional<Submission> submission(std::int64_t id);
  std::vector<Submission> submissions_of(std::int64_t user_id,
                                         std::optional<std::int64_t> leaderboard_id);
  // Those of `ids` that are done or failed, in one query per 500 ids (the long polls' recheck).
  std::vector<std::int64_t> finished_among(const std::vector<std::int64_t>& ids);
  void set_status(std::int64_t submission_id, const std::string& status);

  // The next queued job, highest priority first, then oldest; marked running by `worker`.
  // PostgreSQL: SKIP LOCKED, so instances sharing the database never take one job twice.
  // `with_tasks` false: only jobs whose target is not a task (a worker without a usable GPU
  // leaves those to one with). `refused`: LIKE patterns of targets this worker leaves to others
  // ("kernelbench:%", "task:NAME" of a Python task, where its Python cannot run them), with `\`
  // escaping (like_literal()).
  std::optional<Job> claim(const std::string& worker, bool with_tasks = true,
                           const std::vector<std::string>& refused = {});
  void finish(std::int64_t job_id, bool ok);
  // Jobs left running by workers that are gone (a restarted service, a dead instance) go back
  // to the queue, their submissions' partial runs deleted (they are judged again from the
  // start). Returns how many.
  int requeue_running(const std::string& worker_prefix = "");
  // The same for one running job (its worker found the machine, not the code, at fault).
  bool requeue(std::int64_t job_id);
  int queued();

  std::int64_t add_run(const Run& r);
  std::vector<Run> runs_of(std::int64_t submission_id);
  // Runs waiting for review, oldest first (only flagged ranked runs of boards ever wait).
  std::vector<ReviewItem> pending_reviews();
  // An admin's decision on a pending run: "cleared" or "rejected". Only a pending run changes,
  // so two admins deciding at once cannot overwrite each other (the second gets not_pending).
  ReviewOutcome review(std::int64_t run_id, const std::string& state, const std::string& note,
                       std::int64_t reviewer_id);
  // Best passed, non-secret, scored run per user on the board and GPU type, among runs that
  // need no review or were cleared; lower is better.
  std::vector<RankEntry> ranking(std::int64_t leaderboard_id, const std::string& gpu_type);
  // Every passed, public, scored ranked run on the board and GPU type that ranks (not pending
  // or rejected), oldest first:
  // (ended_us, score), the data of the best-score-over-time chart.
  std::vector<std::pair<std::int64_t, double>> score_history(std::int64_t leaderboard_id,
                                                             const std::string& gpu_type);

 private:
  std::optional<Leaderboard> find_leaderboard(const char* where, const Value& key);
  std::mutex mu_;
  std::unique_ptr<Db> db_;
  std::atomic<std::int64_t> storage_quota_{0};
};

}  // namespace kjudge::board
