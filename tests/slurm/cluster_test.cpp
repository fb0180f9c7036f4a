// End-to-end check of the Slurm pieces against a real cluster: the single-node cluster of
// tests/slurm/start-cluster.sh, started here on free loopback ports and stopped at the end.
// Skips (does not fail) where Slurm is not installed or the test is not root, so developer
// machines without Slurm stay green; CI installs it (scripts/install-deps) and runs as root.
#include <gtest/gtest.h>

#include <chrono>
#include <fstream>
#include <map>
#include <thread>

#include "slurm_fixture.h"

namespace kjudge::slurm {
namespace {

namespace fs = std::filesystem;
using test::SlurmCluster;

TEST(SlurmCluster, ArrayTasksRunAndReportTheirStates) {
  SlurmCluster c;
  if (!c.why().empty()) GTEST_SKIP() << c.why();
  ASSERT_TRUE(c.start_error().empty()) << c.start_error();

  const fs::path run_dir = c.dir() / "run";
  fs::create_directories(run_dir / "slurm");
  // Shards 0-2 leave a marker naming their array task; shard 3 fails on purpose, to see a
  // job failure told apart from success through the same parser.
  std::vector<std::vector<std::string>> commands;
  for (int i = 0; i < 3; ++i)
    commands.push_back({"bash", "-c", "echo \"$SLURM_ARRAY_TASK_ID\" > \"$1\"", "marker",
                        (run_dir / ("done " + std::to_string(i))).string()});
  commands.push_back({"bash", "-c", "exit 3"});
  const fs::path script = run_dir / "slurm" / "array.sh";
  std::ofstream(script) << batch_script(commands);

  SubmitOptions o;
  o.run_dir = run_dir;
  o.max_parallel = 2;
  o.extra_args = {"--time=5"};
  auto sub = c.run(sbatch_argv(o, {0, 1, 2, 3}, script));
  ASSERT_EQ(sub.rc, 0) << sub.out;
  const std::string job = parse_sbatch_job_id(sub.out);

  std::map<int, ArrayTask> tasks;
  const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(90);
  for (;;) {
    tasks = parse_scontrol(c.run(scontrol_argv(job)).out, job);
    bool done = tasks.size() == 4;
    for (const auto& [i, t] : tasks) done = done && is_terminal(t.state);
    if (done) break;
    ASSERT_LT(std::chrono::steady_clock::now(), deadline)
        << "array " << job << " not finished; squeue says:\n"
        << c.run(squeue_argv(job)).out;
    std::this_thread::sleep_for(std::chrono::milliseconds(300));
  }
  for (int i = 0; i < 3; ++i) {
    EXPECT_EQ(tasks.at(i).state, TaskState::Completed) << i << " " << tasks.at(i).raw_state;
    std::ifstream marker(run_dir / ("done " + std::to_string(i)));
    std::string got;
    marker >> got;
    EXPECT_EQ(got, std::to_string(i));
    // The log lands where task_log_pattern says, %a and %A filled in.
    EXPECT_TRUE(
        fs::exists(run_dir / "slurm" / ("shard-" + std::to_string(i) + ".job-" + job + ".out")));
  }
  EXPECT_EQ(tasks.at(3).state, TaskState::Failed);
  EXPECT_EQ(tasks.at(3).exit_code, "3:0");
  EXPECT_EQ(classify(tasks.at(3).state), Failure::Job);

  // squeue -t all tells the same story while Slurm remembers the job (MinJobAge=600).
  auto q = parse_squeue(c.run(squeue_argv(job)).out, job);
  ASSERT_EQ(q.size(), 4u);
  for (const auto& [i, t] : q) EXPECT_EQ(t.state, tasks.at(i).state) << i;
}

}  // namespace
}  // namespace kjudge::slurm
