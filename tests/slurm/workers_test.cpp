// kjudge serve workers as Slurm jobs, on the real single-node cluster and a real PostgreSQL:
// a front end that judges nothing (--no-judge) takes submissions; `serve --slurm-workers 1`
// submits a worker array task that pulls them from the shared queue. A worker cancelled
// (scancel) while judging gives its job back to the queue, recording nothing, and a new worker
// judges it once. Host-only problems; skips without Slurm, root or PostgreSQL.
#include "slurm/workers.h"

#include <gtest/gtest.h>
#include <httplib.h>

#include <chrono>
#include <nlohmann/json.hpp>
#include <string>
#include <thread>

#include "pg_fixture.h"
#include "serve_process.h"
#include "slurm_fixture.h"
#include "test_util.h"
#include "timed_problem.h"

namespace kjudge::slurm {
namespace {

namespace fs = std::filesystem;
using nlohmann::json;
const std::string kBin = KJUDGE_BINARY;

std::string trimmed(std::string s) {
  while (!s.empty() && (s.back() == '\n' || s.back() == ' ')) s.pop_back();
  return s;
}

TEST(SlurmWorkers, WorkerArgvDropsTheSubmittersOptions) {
  auto a = worker_argv({"kjudge", "serve", "--db", "postgresql://x/y", "--slurm-workers", "4",
                        "--partition=gpu", "--sbatch-arg", "--time=5", "--log-dir", "/l",
                        "--worker-id", "w", "--pack", "p=/x"});
  std::vector<std::string> tail(a.begin() + 1, a.end());
  EXPECT_EQ(tail, (std::vector<std::string>{"serve", "--db", "postgresql://x/y", "--pack", "p=/x",
                                            "--workers-only", "--slurm-worker-task"}));
}

TEST(SlurmWorkers, WorkerIdComesFromTheArrayTask) {
  setenv("SLURM_ARRAY_JOB_ID", "41", 1);
  setenv("SLURM_ARRAY_TASK_ID", "3", 1);
  EXPECT_EQ(worker_id_from_env(), "slurm-41-3");
  unsetenv("SLURM_ARRAY_JOB_ID");
  unsetenv("SLURM_ARRAY_TASK_ID");
}

class SlurmWorkersE2E : public ::testing::Test {
 protected:
  void SetUp() override {
    cluster_ = std::make_unique<slurm::test::SlurmCluster>();
    if (!cluster_->why().empty()) GTEST_SKIP() << cluster_->why();
    ASSERT_TRUE(cluster_->start_error().empty()) << cluster_->start_error();
    static testing::PostgresServer pg;
    if (!pg.ok()) GTEST_SKIP() << pg.why();
    url_ = pg.new_database();
    auto t = testing::run_capture(kBin + " users add alice --db " + url_);
    ASSERT_EQ(t.rc, 0) << t.out;
    token_ = t.out.substr(0, t.out.find('\n'));
    testing::write_timed_problem(dir_ / "pack/answer", "w/answer", "w");
  }
  // SQL on the shared database, through psql.
  std::string sql(const std::string& q) const {
    return trimmed(testing::run_capture("psql '" + url_ + "' -Atc \"" + q + "\"").out);
  }
  std::string submit_workers() const {
    auto r =
        cluster_->run({kBin, "serve", "--db", url_, "--pack", "timed=" + (dir_ / "pack").string(),
                       "--cache-dir", (dir_ / "cache").string(), "--slurm-workers", "1",
                       "--log-dir", (dir_ / "workers").string(), "--sbatch-arg=--time=10"});
    EXPECT_EQ(r.rc, 0) << r.out;
    return trimmed(r.out).substr(trimmed(r.out).rfind('\n') + 1);
  }
  json post(int port, const std::string& code) const {
    httplib::Client c("127.0.0.1", port);
    auto r =
        c.Post("/api/v1/submissions", {{"Authorization", "Bearer " + token_}},
               json({{"target", "pack:timed#w/answer"}, {"files", {{"solution.c", code}}}}).dump(),
               "application/json");
    EXPECT_TRUE(r);
    EXPECT_EQ(r->status, 202) << r->body;
    return json::parse(r->body);
  }
  json wait(int port, std::int64_t id) const {
    httplib::Client c("127.0.0.1", port);
    c.set_read_timeout(200, 0);
    auto r = c.Get("/api/v1/submissions/" + std::to_string(id) + "?wait=180",
                   {{"Authorization", "Bearer " + token_}});
    EXPECT_TRUE(r);
    return json::parse(r->body);
  }
  // Until `q` gives `want` (at most `seconds`).
  bool until(const std::string& q, const std::string& want, int seconds) const {
    for (int i = 0; i < seconds * 5; ++i) {
      if (sql(q) == want) return true;
      std::this_thread::sleep_for(std::chrono::milliseconds(200));
    }
    return false;
  }

  std::unique_ptr<slurm::test::SlurmCluster> cluster_;
  testing::TempDir dir_;
  std::string url_, token_;
};

TEST_F(SlurmWorkersE2E, AFrontEndsSubmissionsAreJudgedByWorkersRunningAsSlurmJobs) {
  testing::ServeProcess front(
      kBin, {"--db", url_, "--no-judge", "--pack", "timed=" + (dir_ / "pack").string()});
  ASSERT_GT(front.port(), 0);
  const auto fast = post(front.port(),
                         "int solve(void) { return 42; }\n"
                         "double bench_ms(void) { return 10.0; }\n");
  const std::string job = submit_workers();
  ASSERT_FALSE(job.empty());

  const json a = wait(front.port(), fast["id"].get<std::int64_t>());
  ASSERT_EQ(a["status"], "done")
      << a << "\n"
      << testing::run_capture("cat " + (dir_ / "workers/slurm").string() + "/*.out").out;
  ASSERT_EQ(a["runs"].size(), 1u);
  EXPECT_TRUE(a["runs"][0]["passed"].get<bool>()) << a;
  EXPECT_EQ(sql("SELECT worker FROM jobs WHERE submission_id = " + a["id"].dump()),
            "slurm-" + job + "-0/0")
      << "judged by the Slurm array task";

  // A slow one: cancelled while its test runs, it goes back to the queue with nothing recorded.
  const auto slow = post(front.port(),
                         "#include <unistd.h>\nint solve(void) { sleep(6); "
                         "return 42; }\ndouble bench_ms(void) { return 10.0; }\n");
  const std::string id = slow["id"].dump();
  ASSERT_TRUE(until("SELECT status FROM jobs WHERE submission_id = " + id, "running", 60));
  std::this_thread::sleep_for(std::chrono::seconds(2));  // into its test
  auto c = cluster_->run({"scancel", job});
  ASSERT_EQ(c.rc, 0) << c.out;
  ASSERT_TRUE(
      until("SELECT status || ',' || COALESCE(worker, '-') FROM jobs WHERE "
            "submission_id = " +
                id,
            "queued,-", 60));
  EXPECT_EQ(sql("SELECT COUNT(*) FROM runs WHERE submission_id = " + id), "0");
  const std::string log = testing::run_capture("cat " + (dir_ / "workers/slurm").string() +
                                               "/worker-0.job-" + job + ".out")
                              .out;
  EXPECT_NE(log.find("1 job(s) back in the queue"), std::string::npos) << log;

  // Another worker judges it, once.
  const std::string job2 = submit_workers();
  const json b = wait(front.port(), slow["id"].get<std::int64_t>());
  ASSERT_EQ(b["status"], "done") << b;
  ASSERT_EQ(b["runs"].size(), 1u) << b;
  EXPECT_TRUE(b["runs"][0]["passed"].get<bool>()) << b;
  EXPECT_EQ(sql("SELECT attempts FROM jobs WHERE submission_id = " + id), "2");
  cluster_->run({"scancel", job2});
}

}  // namespace
}  // namespace kjudge::slurm
