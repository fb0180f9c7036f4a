// The planner of validate|evaluate|run (issue 33) on the example pack: the jobs and the skips
// decided without running anything, a fingerprint that is stable and independent of the jobs'
// order, and a --resume of another run refused naming the field that differs. Nothing is run and
// nothing is written.
#include "plan/run_plan.h"

#include <gtest/gtest.h>

#include <algorithm>

#include "core/input_error.h"
#include "test_util.h"

namespace kjudge::plan {
namespace {

namespace fs = std::filesystem;

const fs::path kExamples = fs::path(KJUDGE_SOURCE_DIR) / "examples";

// The example pack with one problem's baseline taken away.
fs::path pack_without_a_baseline(const fs::path& dir) {
  const fs::path pack = dir / "pack";
  fs::copy(kExamples / "pack", pack, fs::copy_options::recursive);
  fs::remove_all(pack / "prefix_sum" / "solution");
  return pack;
}

RunOptions options(const fs::path& problems, const fs::path& out) {
  RunOptions o;
  o.problems = problems.string();
  o.out = out.string();
  o.quiet = true;
  return o;
}

TEST(RunPlan, ValidatePlansTheBaselinesAndSkipsAProblemWithout) {
  testing::TempDir dir;
  const fs::path pack = pack_without_a_baseline(dir.path());
  const RunPlan p = plan_run("validate", options(pack, dir / "run"));
  EXPECT_EQ(p.command, "validate");
  ASSERT_EQ(p.problems.size(), 5u);
  EXPECT_EQ(p.jobs.size(), 4u);
  for (const auto& j : p.jobs) {
    EXPECT_EQ(j.solution.sample, 0);
    EXPECT_EQ(j.solution.task_id, j.problem->task_id);
    EXPECT_FALSE(j.build_only);
  }
  ASSERT_EQ(p.pre_graded.size(), 1u);
  EXPECT_EQ(p.pre_graded[0].task_id, "example/prefix_sum");
  EXPECT_EQ(p.pre_graded[0].verdict, Verdict::skipped);
  EXPECT_EQ(p.pre_graded[0].skip_code, "no_baseline");
  EXPECT_EQ(p.out, dir / "run");
  EXPECT_FALSE(p.on_slurm());
  EXPECT_FALSE(fs::exists(dir / "run")) << "planning writes nothing";
}

TEST(RunPlan, EvaluatePlansTheSolutionsOfTheSelectedProblems) {
  testing::TempDir dir;
  RunOptions o = options(kExamples / "pack", dir / "run");
  o.solutions = (kExamples / "solutions").string();
  o.filter.task_ids = {"example/saxpy"};
  const RunPlan p = plan_run("evaluate", o);
  ASSERT_EQ(p.problems.size(), 1u);
  ASSERT_FALSE(p.jobs.empty());
  for (const auto& j : p.jobs) EXPECT_EQ(j.problem->task_id, "example/saxpy");
  EXPECT_TRUE(p.pre_graded.empty());
}

TEST(RunPlan, TheFingerprintIsStableAndIndependentOfTheJobsOrder) {
  testing::TempDir dir;
  const RunOptions o = options(kExamples / "pack", dir / "run");
  RunPlan a = plan_run("validate", o);
  const RunPlan b = plan_run("validate", o);
  EXPECT_EQ(a.fingerprint, b.fingerprint);
  EXPECT_EQ(a.fingerprint.size(), 64u);
  EXPECT_EQ(jobs_fingerprint(a.jobs), a.fingerprint);
  std::reverse(a.jobs.begin(), a.jobs.end());
  EXPECT_EQ(jobs_fingerprint(a.jobs), b.fingerprint);
  // Other jobs, or builds instead of tests, are another run.
  RunOptions fewer = o;
  fewer.filter.task_ids = {"example/saxpy"};
  EXPECT_NE(plan_run("validate", fewer).fingerprint, b.fingerprint);
  RunOptions built = o;
  built.build_only = true;
  const RunPlan c = plan_run("validate", built);
  EXPECT_NE(c.fingerprint, b.fingerprint);
  for (const auto& j : c.jobs) EXPECT_TRUE(j.build_only);
}

TEST(RunPlan, AnotherRunInTheDirectoryIsRefusedNamingTheField) {
  testing::TempDir dir;
  const fs::path out = dir / "run";
  fs::create_directories(out);
  testing::write_text(out / "results.jsonl", "");
  testing::write_text(out / "run.json", R"({"jobs_fingerprint": "another run"})");
  RunOptions o = options(kExamples / "pack", out);
  const InputError busy = testing::expect_input_error([&] { plan_run("validate", o); });
  EXPECT_NE(std::string(busy.what()).find("pass --resume"), std::string::npos) << busy.what();

  o.resume = true;
  const InputError other = testing::expect_input_error([&] { plan_run("validate", o); });
  EXPECT_EQ(other.file(), (out / "run.json").string());
  EXPECT_EQ(other.field(), "jobs_fingerprint");
  EXPECT_NE(std::string(other.what()).find("the problems, solutions or filters"), std::string::npos)
      << other.what();

  // The run.json of this very run resumes.
  const std::string fp = plan_run("validate", options(kExamples / "pack", dir / "x")).fingerprint;
  testing::write_text(out / "run.json", R"({"jobs_fingerprint": ")" + fp + R"("})");
  EXPECT_EQ(plan_run("validate", o).fingerprint, fp);
}

TEST(RunPlan, OptionsThatExcludeEachOtherAreRefused) {
  testing::TempDir dir;
  RunOptions o = options(kExamples / "pack", dir / "run");
  o.build_only = true;
  o.benchmark = true;
  const InputError e = testing::expect_input_error([&] { plan_run("validate", o); });
  EXPECT_EQ(e.file(), "--build-only");
  RunOptions none = options(kExamples / "pack", dir / "run");
  none.filter.task_ids = {"no/such/task"};
  EXPECT_THROW(plan_run("validate", none), InputError);
}

// Issue 34: --memcheck folds into --sanitize; the checks need tests, and a resumed run keeps the
// checks it was started with (a run from before them had none).
TEST(RunPlan, LuckChecksAreNormalisedRefusedWithoutTestsAndPartOfTheRun) {
  testing::TempDir dir;
  RunOptions o = options(kExamples / "pack", dir / "run");
  o.memcheck = true;
  o.sanitize = {"racecheck,memcheck"};
  o.repeat = 2;
  const RunPlan p = plan_run("validate", o);
  EXPECT_EQ(p.options.sanitize, (std::vector<std::string>{"memcheck", "racecheck"}));
  EXPECT_EQ(run_checks(p.options),
            nlohmann::json({{"repeat", 2}, {"sanitize", {"memcheck", "racecheck"}}}));
  EXPECT_TRUE(run_checks(options(kExamples / "pack", dir / "x")).is_null());

  RunOptions bad = options(kExamples / "pack", dir / "run");
  bad.sanitize = {"memchek"};
  EXPECT_EQ(testing::expect_input_error([&] { plan_run("validate", bad); }).file(), "--sanitize");
  RunOptions built = options(kExamples / "pack", dir / "run");
  built.build_only = true;
  built.repeat = 3;
  EXPECT_EQ(testing::expect_input_error([&] { plan_run("validate", built); }).file(),
            "--build-only");

  const fs::path out = dir / "resumed";
  fs::create_directories(out);
  testing::write_text(out / "results.jsonl", "");
  o.out = out.string();
  o.resume = true;
  const std::string fp = p.fingerprint;
  testing::write_text(out / "run.json", R"({"jobs_fingerprint": ")" + fp + R"("})");
  const InputError older = testing::expect_input_error([&] { plan_run("validate", o); });
  EXPECT_EQ(older.field(), "checks");
  EXPECT_NE(std::string(older.what()).find("--repeat or --sanitize (was null"), std::string::npos)
      << older.what();
  testing::write_text(out / "run.json",
                      R"({"jobs_fingerprint": ")" + fp +
                          R"(", "checks": {"repeat": 2, "sanitize": ["memcheck", "racecheck"]}})");
  EXPECT_EQ(plan_run("validate", o).fingerprint, fp);
  RunOptions plain = options(kExamples / "pack", out);
  plain.resume = true;
  EXPECT_EQ(testing::expect_input_error([&] { plan_run("validate", plain); }).field(), "checks");
}

}  // namespace
}  // namespace kjudge::plan
