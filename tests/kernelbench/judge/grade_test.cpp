// A run's report turned into a verdict: every stage's failure charged (or not) as KernelBench
// would, every timed pair's check, the tails that say work was left running, the run-time
// evidence, and the hack policy.
#include "kernelbench/judge/grade.h"

#include <gtest/gtest.h>

namespace kjudge::kernelbench {
namespace {

struct Fixture {
  Problem p;
  Solution s;
  Fixture() {
    p.level = 1;
    p.id = 19;
    p.file = "19_ReLU.py";
    p.name = "ReLU";
    s.problem = &p;
    s.sample = 2;
    s.code = "x";
    s.origin = "f.jsonl:3";
  }
};

RunOutcome ok_run(int trials = 3, int pairs = 0, double sol = 1.0, double ref = 2.0) {
  RunOutcome o;
  o.status = RunStatus::ok;
  for (int i = 0; i < trials; ++i) {
    TrialCheck t;
    t.ok = true;
    o.trials.push_back(t);
  }
  for (int k = 0; k < pairs; ++k) {
    TimedPair p;
    p.sol_ms = sol * (1 + 0.001 * (k % 3));
    p.ref_ms = ref * (1 + 0.001 * ((k + 1) % 3));
    p.sol_dev_ms = p.sol_ms + 0.02;
    p.ref_dev_ms = p.ref_ms + 0.02;
    p.ok = true;
    o.pairs.push_back(p);
  }
  o.timed = pairs > 0;
  return o;
}

Verdict verdict_of(const RunOutcome& o, HackPolicy policy = HackPolicy::fail,
                   std::vector<Finding> found = {}) {
  Fixture f;
  GradeOptions opt;
  opt.hacks = policy;
  return grade(f.s, o, std::move(found), {}, nullptr, opt).verdict;
}

TEST(KernelBenchGrade, EachStagesFailureIsChargedOrNotAsItsCauseIs) {
  auto failed = [](const std::string& stage, const std::string& type = "RuntimeError") {
    RunOutcome o;
    o.status = RunStatus::error;
    o.error.stage = stage;
    o.error.exception_type = type;
    o.detail = "boom";
    return o;
  };
  EXPECT_EQ(verdict_of(failed("setup", "ModuleNotFoundError")), Verdict::env_error);
  EXPECT_EQ(verdict_of(failed("reference")), Verdict::reference_failed);
  EXPECT_EQ(verdict_of(failed("syntax", "SyntaxError")), Verdict::compile_error);
  EXPECT_EQ(verdict_of(failed("import")), Verdict::compile_error);
  EXPECT_EQ(verdict_of(failed("init")), Verdict::runtime_error);
  EXPECT_EQ(verdict_of(failed("correctness")), Verdict::runtime_error);
  EXPECT_EQ(verdict_of(failed("time")), Verdict::timed_mismatch);
  EXPECT_EQ(verdict_of(failed("runner")), Verdict::judge_error);
  RunOutcome o;
  o.status = RunStatus::timeout;
  EXPECT_EQ(verdict_of(o), Verdict::timeout);
  o.status = RunStatus::limit;
  EXPECT_EQ(verdict_of(o), Verdict::crash);
  o.status = RunStatus::refused;
  EXPECT_EQ(verdict_of(o), Verdict::refused);
  EXPECT_FALSE(charged(Verdict::env_error));
  EXPECT_FALSE(charged(Verdict::reference_failed));
  EXPECT_TRUE(charged(Verdict::timeout));
}

TEST(KernelBenchGrade, ATrialOrATimedPairThatDiffersFails) {
  RunOutcome o = ok_run(3);
  EXPECT_EQ(verdict_of(o), Verdict::correct);
  o.trials[1].ok = false;
  o.trials[1].why = "16 of 16 values differ";
  Fixture f;
  const Result r = grade(f.s, o, {}, {}, nullptr, {});
  EXPECT_EQ(r.verdict, Verdict::incorrect);
  EXPECT_NE(r.detail.find("trial 2 of 3: 16 of 16"), std::string::npos) << r.detail;
  EXPECT_EQ(r.json["correctness"], false);
  EXPECT_EQ(r.json["compiled"], true);
  EXPECT_EQ(r.json["trials"]["passed"], 2);
  RunOutcome t = ok_run(3, 12);
  t.pairs[5].ok = false;
  t.pairs[5].why = "a cached answer";
  const Result rt = grade(f.s, t, {}, {}, nullptr, {});
  EXPECT_EQ(rt.verdict, Verdict::timed_mismatch);
  EXPECT_FALSE(rt.eager.has_value());
}

TEST(KernelBenchGrade, ACorrectTimedSolutionHasItsSpeedupsAndItsLine) {
  Fixture f;
  RunOutcome o = ok_run(3, 20, 1.0, 2.0);
  for (TimedPair& p : o.pairs) {
    p.cmp_ms = 1.5;
    p.cmp_dev_ms = 1.52;
  }
  const Result r = grade(f.s, o, {}, {}, nullptr, {});
  ASSERT_EQ(r.verdict, Verdict::correct);
  ASSERT_TRUE(r.eager && r.compiled);
  EXPECT_NEAR(r.eager->estimate, 2.0, 0.01);
  EXPECT_NEAR(r.compiled->estimate, 1.5, 0.01);
  EXPECT_EQ(r.end, "stream");
  EXPECT_EQ(r.json["key"], "L1/19#2");
  EXPECT_EQ(r.json["problem"], "19_ReLU.py");
  EXPECT_EQ(r.json["timing"]["pairs"], 20);
  const Graded g = graded_from_json(r.json);
  EXPECT_EQ(g.verdict, Verdict::correct);
  EXPECT_NEAR(g.eager->estimate, 2.0, 0.01);
  EXPECT_EQ(g.sample, 2);
}

TEST(KernelBenchGrade, WorkLeftRunningIsTimedToTheDevicesEndAndFlagged) {
  Fixture f;
  RunOutcome o = ok_run(3, 20, 0.1, 2.0);
  for (TimedPair& p : o.pairs) p.sol_dev_ms = p.sol_ms + 1.9;  // the work went on elsewhere
  GradeOptions opt;
  opt.hacks = HackPolicy::flag;
  const Result r = grade(f.s, o, {}, {}, nullptr, opt);
  EXPECT_EQ(r.end, "device");
  ASSERT_TRUE(r.eager);
  EXPECT_NEAR(r.eager->estimate, 2.02 / 2.0, 0.02);  // no speedup left
  bool flagged = false;
  for (const Finding& x : r.findings) flagged = flagged || x.check == "unsynced_work";
  EXPECT_TRUE(flagged);
  EXPECT_EQ(r.verdict, Verdict::correct);  // --hacks flag
  EXPECT_EQ(grade(f.s, o, {}, {}, nullptr, {}).verdict, Verdict::hack);
}

TEST(KernelBenchGrade, RunTimeEvidenceIsFound) {
  RunOutcome o = ok_run(3);
  o.trials[1].alias_earlier = true;
  o.trials[2].alias_input = true;
  o.torch_patched = {"torch.relu"};
  o.watch = {"thread 'worker'"};
  o.flags_changed = {"torch.backends.cudnn.allow_tf32 = False (was True)"};
  std::set<std::string> checks;
  for (const Finding& f : runtime_findings(o))
    checks.insert(f.check + "/" + std::string(severity_name(f.severity)));
  EXPECT_EQ(checks,
            (std::set<std::string>{"cached_output/hack", "returns_input/hack", "torch_patched/hack",
                                   "left_running/hack", "flags_changed/warning"}));
  // An input the reference itself hands back is no finding.
  RunOutcome same = ok_run(1);
  same.trials[0].alias_input = same.trials[0].reference_alias_input = true;
  EXPECT_TRUE(runtime_findings(same).empty());
}

TEST(KernelBenchGrade, TheHackPolicyDecidesWhatAHackFindingDoes) {
  const std::vector<Finding> hack = {{"try_except", Severity::hack, 4, "try/except", "static"}};
  const std::vector<Finding> warn = {{"no_kernel", Severity::warning, 0, "no kernel", "static"}};
  EXPECT_EQ(verdict_of(ok_run(), HackPolicy::fail, hack), Verdict::hack);
  EXPECT_EQ(verdict_of(ok_run(), HackPolicy::flag, hack), Verdict::correct);
  EXPECT_EQ(verdict_of(ok_run(), HackPolicy::fail, warn), Verdict::correct);
  RunOutcome wrong = ok_run();
  wrong.trials[0].ok = false;
  EXPECT_EQ(verdict_of(wrong, HackPolicy::fail, hack), Verdict::incorrect);
}

TEST(KernelBenchGrade, AnExcessiveSpeedupIsAWarning) {
  Fixture f;
  const Result r = grade(f.s, ok_run(3, 12, 0.1, 5.0), {}, {}, nullptr, {});
  EXPECT_EQ(r.verdict, Verdict::correct);
  bool seen = false;
  for (const Finding& x : r.findings) seen = seen || x.check == "excessive_speedup";
  EXPECT_TRUE(seen);
}

TEST(KernelBenchGrade, AResultWithoutARunSaysWhy) {
  Fixture f;
  const Result r = not_run(f.s, Verdict::env_error, "level 4 needs HF_HOME", {}, {});
  EXPECT_EQ(r.json["verdict"], "env_error");
  EXPECT_EQ(r.json["detail"], "level 4 needs HF_HOME");
  EXPECT_TRUE(r.json["run"].is_null());
  EXPECT_THROW(graded_from_json(nlohmann::ordered_json::parse(R"({"level":1})")),
               std::runtime_error);
}

}  // namespace
}  // namespace kjudge::kernelbench
