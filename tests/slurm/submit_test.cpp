// The pure half of the Slurm submission (slurm/submit.h): sbatch argv, batch script, quoting,
// and the parsers of squeue/scontrol output captured from a real Slurm (tests/slurm/fixtures).
#include "slurm/submit.h"

#include <gtest/gtest.h>
#include <sys/wait.h>

#include <algorithm>
#include <cstdio>
#include <fstream>
#include <sstream>
#include <stdexcept>

namespace kjudge::slurm {
namespace {

std::string fixture(const std::string& name) {
  std::ifstream in(std::string(KJUDGE_SOURCE_DIR) + "/tests/slurm/fixtures/" + name);
  EXPECT_TRUE(in) << name;
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

std::map<int, TaskState> states(const std::map<int, ArrayTask>& tasks) {
  std::map<int, TaskState> out;
  for (const auto& [i, t] : tasks) out[i] = t.state;
  return out;
}

TEST(SlurmSubmit, ParsesStatesAsPrintedBySqueueScontrolAndSacct) {
  EXPECT_EQ(parse_state("COMPLETED"), TaskState::Completed);
  EXPECT_EQ(parse_state("CANCELLED by 0"), TaskState::Cancelled);
  EXPECT_EQ(parse_state("CANCELLED+"), TaskState::Cancelled);
  EXPECT_EQ(parse_state(" NODE_FAIL\n"), TaskState::NodeFail);
  EXPECT_EQ(parse_state("COMPLETING"), TaskState::Running);
  EXPECT_EQ(parse_state("REQUEUE_HOLD"), TaskState::Requeued);
  EXPECT_EQ(parse_state("WEIRD"), TaskState::Unknown);
  EXPECT_EQ(state_name(TaskState::Running), "RUNNING");
  EXPECT_EQ(state_name(TaskState::NodeFail), "NODE_FAIL");
}

TEST(SlurmSubmit, OnlyNodeFailurePreemptionAndBootFailureAreMachineFailures) {
  EXPECT_EQ(classify(TaskState::NodeFail), Failure::Machine);
  EXPECT_EQ(classify(TaskState::Preempted), Failure::Machine);
  EXPECT_EQ(classify(TaskState::BootFail), Failure::Machine);
  for (auto s : {TaskState::Failed, TaskState::Cancelled, TaskState::Timeout,
                 TaskState::OutOfMemory, TaskState::Deadline})
    EXPECT_EQ(classify(s), Failure::Job) << state_name(s);
  for (auto s : {TaskState::Completed, TaskState::Pending, TaskState::Running, TaskState::Requeued,
                 TaskState::Suspended, TaskState::Unknown})
    EXPECT_EQ(classify(s), Failure::None) << state_name(s);
  EXPECT_FALSE(is_terminal(TaskState::Unknown));
  EXPECT_FALSE(is_terminal(TaskState::Requeued));
  EXPECT_TRUE(is_terminal(TaskState::Preempted));
}

TEST(SlurmSubmit, ArraySpecCompressesRangesAndThrottles) {
  EXPECT_EQ(array_spec({0, 1, 2, 3}, 2), "0-3%2");
  EXPECT_EQ(array_spec({5, 0, 1, 3, 8, 7, 1}, 0), "0-1,3,5,7-8");
  EXPECT_EQ(array_spec({4}, 0), "4");
  EXPECT_THROW(array_spec({}, 0), std::invalid_argument);
  EXPECT_THROW(array_spec({-1, 2}, 0), std::invalid_argument);
}

TEST(SlurmSubmit, ExpandsWhatArraySpecAndScontrolPrint) {
  EXPECT_EQ(expand_indices("2-5%2"), (std::vector<int>{2, 3, 4, 5}));
  EXPECT_EQ(expand_indices("[0-1,3,7-8]"), (std::vector<int>{0, 1, 3, 7, 8}));
  EXPECT_EQ(expand_indices("0-8:4"), (std::vector<int>{0, 4, 8}));
  EXPECT_EQ(expand_indices(array_spec({9, 2, 3, 4, 11}, 3)), (std::vector<int>{2, 3, 4, 9, 11}));
  EXPECT_THROW(expand_indices("4294967294x"), std::invalid_argument);
  EXPECT_THROW(expand_indices("5-2"), std::invalid_argument);
  EXPECT_THROW(expand_indices(""), std::invalid_argument);
}

TEST(SlurmSubmit, SbatchArgvCarriesEveryOptionAndUserArgsLast) {
  SubmitOptions o;
  o.partition = "gpu";
  o.gpus_per_task = 2;
  o.max_parallel = 3;
  o.extra_args = {"--time=01:00:00", "--account=lab"};
  o.run_dir = "/shared/runs/r1";
  auto argv = sbatch_argv(o, {0, 1, 2, 3, 4}, "/shared/runs/r1/slurm/array.sh");
  const std::vector<std::string> want = {"sbatch",
                                         "--parsable",
                                         "--job-name=kjudge",
                                         "--array=0-4%3",
                                         "--output=/shared/runs/r1/slurm/shard-%a.job-%A.out",
                                         "--open-mode=append",
                                         "--no-requeue",
                                         "--partition=gpu",
                                         "--gres=gpu:2",
                                         "--time=01:00:00",
                                         "--account=lab",
                                         "/shared/runs/r1/slurm/array.sh"};
  EXPECT_EQ(argv, want);
}

TEST(SlurmSubmit, SbatchArgvForAHostOnlyResubmission) {
  SubmitOptions o;
  o.run_dir = "/r";
  auto argv = sbatch_argv(o, {3, 1}, "/r/a.sh");
  EXPECT_EQ(std::count(argv.begin(), argv.end(), "--array=1,3"), 1);
  for (const auto& a : argv) {
    EXPECT_EQ(a.rfind("--gres", 0), std::string::npos) << a;
    EXPECT_EQ(a.rfind("--partition", 0), std::string::npos) << a;
  }
}

TEST(SlurmSubmit, ShellQuoteSurvivesBash) {
  EXPECT_EQ(shell_quote("/a/b-c_d.e"), "/a/b-c_d.e");
  EXPECT_EQ(shell_quote("--out=/x"), "--out=/x");
  EXPECT_EQ(shell_quote(""), "''");
  EXPECT_EQ(shell_quote("a b"), "'a b'");
  EXPECT_EQ(shell_quote("it's $HOME"), "'it'\\''s $HOME'");
}

TEST(SlurmSubmit, BatchScriptRunsTheTasksShard) {
  auto script = batch_script({{"/opt/kjudge", "evaluate", "--shard", "0"},
                              {"/opt/kjudge", "evaluate", "--out", "/runs/my run"}});
  EXPECT_EQ(script.rfind("#!/bin/bash\n", 0), 0u);
  EXPECT_NE(script.find("  0) exec /opt/kjudge evaluate --shard 0 ;;\n"), std::string::npos);
  EXPECT_NE(script.find("  1) exec /opt/kjudge evaluate --out '/runs/my run' ;;\n"),
            std::string::npos);
  EXPECT_NE(script.find("*) echo"), std::string::npos);
  EXPECT_THROW(batch_script({{}}), std::invalid_argument);
}

TEST(SlurmSubmit, BatchScriptExecsUnderBash) {
  // The script is run for real (no Slurm needed) to prove the quoting and dispatch.
  auto script = batch_script({{"printf", "%s|", "zero"}, {"printf", "%s|", "it's", "a b"}});
  const std::string path = ::testing::TempDir() + "/kjudge-slurm-batch.sh";
  std::ofstream(path) << script;
  auto run = [&](const std::string& env) {
    std::string out;
    FILE* p = popen((env + " bash " + path + " 2>&1").c_str(), "r");
    char buf[256];
    std::size_t n;
    while ((n = fread(buf, 1, sizeof buf, p)) > 0) out.append(buf, n);
    int rc = pclose(p);
    return std::make_pair(WEXITSTATUS(rc), out);
  };
  EXPECT_EQ(run("SLURM_ARRAY_TASK_ID=0"), std::make_pair(0, std::string("zero|")));
  EXPECT_EQ(run("SLURM_ARRAY_TASK_ID=1"), std::make_pair(0, std::string("it's|a b|")));
  EXPECT_EQ(run("SLURM_ARRAY_TASK_ID=2").first, 2);
  EXPECT_NE(run("env -u SLURM_ARRAY_TASK_ID").first, 0);
  std::remove(path.c_str());
}

TEST(SlurmSubmit, ParsesSbatchParsableOutput) {
  EXPECT_EQ(parse_sbatch_job_id("1234\n"), "1234");
  EXPECT_EQ(parse_sbatch_job_id("77;kjtest\n"), "77");
  EXPECT_THROW(parse_sbatch_job_id("sbatch: error: invalid partition"), std::runtime_error);
  EXPECT_THROW(parse_sbatch_job_id(""), std::runtime_error);
}

TEST(SlurmSubmit, ScontrolWhileRunningExpandsThePendingRange) {
  auto tasks = parse_scontrol(fixture("scontrol-running.txt"), "6");
  EXPECT_EQ(states(tasks), (std::map<int, TaskState>{{0, TaskState::Running},
                                                     {1, TaskState::Failed},
                                                     {2, TaskState::Pending},
                                                     {3, TaskState::Pending},
                                                     {4, TaskState::Pending},
                                                     {5, TaskState::Pending}}));
  EXPECT_EQ(tasks.at(1).exit_code, "3:0");
  EXPECT_EQ(tasks.at(1).reason, "NonZeroExitCode");
  EXPECT_EQ(tasks.at(4).reason, "JobArrayTaskLimit");
  EXPECT_TRUE(parse_scontrol(fixture("scontrol-running.txt"), "7").empty());
}

TEST(SlurmSubmit, ScontrolAndSqueueAgreeWhenDone) {
  const std::map<int, TaskState> want = {{0, TaskState::Completed},
                                         {1, TaskState::Failed},
                                         {2, TaskState::Failed},
                                         {3, TaskState::Completed},
                                         {4, TaskState::Completed}};
  auto sc = parse_scontrol(fixture("scontrol-done.txt"), "6");
  EXPECT_EQ(states(sc), want);  // task 5 was cancelled while pending: Slurm forgot it
  EXPECT_EQ(sc.at(2).exit_code, "0:9");
  EXPECT_EQ(states(parse_squeue(fixture("squeue-done.txt"), "6")), want);
}

TEST(SlurmSubmit, SqueueWhileRunning) {
  auto tasks = parse_squeue(fixture("squeue-running.txt"), "6");
  ASSERT_EQ(tasks.size(), 6u);
  EXPECT_EQ(tasks.at(0).state, TaskState::Running);
  EXPECT_EQ(tasks.at(5).state, TaskState::Pending);
  // Without -r squeue folds pending tasks into one line.
  auto folded = parse_squeue("6_[2-5%2]|PENDING|JobArrayTaskLimit\n6_0|RUNNING|None\n", "6");
  EXPECT_EQ(folded.size(), 5u);
  EXPECT_TRUE(parse_squeue("slurm_load_jobs error: Invalid job id specified\n", "6").empty());
  EXPECT_TRUE(parse_squeue("16_1|RUNNING|None\n", "6").empty());
}

TEST(SlurmSubmit, MachineFailuresFromScontrol) {
  auto tasks = parse_scontrol(fixture("scontrol-machine-failures.txt"), "40");
  ASSERT_EQ(tasks.size(), 7u);  // job 98's line is not ours
  std::vector<int> machine, job;
  for (const auto& [i, t] : tasks) {
    if (classify(t.state) == Failure::Machine) machine.push_back(i);
    if (classify(t.state) == Failure::Job) job.push_back(i);
  }
  EXPECT_EQ(machine, (std::vector<int>{0, 1, 2}));
  EXPECT_EQ(job, (std::vector<int>{3, 4, 5}));
  EXPECT_EQ(tasks.at(6).state, TaskState::Pending);
  EXPECT_EQ(tasks.at(6).restarts, 2);
}

TEST(SlurmSubmit, StatusQueryArgv) {
  EXPECT_EQ(squeue_argv("12"), (std::vector<std::string>{"squeue", "-h", "-r", "-t", "all", "-j",
                                                         "12", "-o", "%i|%T|%r"}));
  EXPECT_EQ(scontrol_argv("12"), (std::vector<std::string>{"scontrol", "show", "job", "-o", "12"}));
}

}  // namespace
}  // namespace kjudge::slurm
