// Triton results as soon as they are final, and the journals a killed run leaves: evaluate_triton
// handing each result out once it is graded (and timed), with the fake runner
// (tests/fixtures/fake_triton_runner.py); results.jsonl and references.jsonl lines read back for
// the summary; TritonJournal reopening a run directory. `kjudge triton eval --resume` end to end
// is in triton/cli_test.cpp.
#include "triton/judge/journal.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <fstream>
#include <mutex>

#include "core/input_error.h"
#include "test_util.h"

namespace kjudge::triton {
namespace {

namespace fs = std::filesystem;
using kjudge::testing::TempDir;
using nlohmann::json;

const fs::path kFake = fs::path(KJUDGE_SOURCE_DIR) / "tests/fixtures/fake_triton_runner.py";

TritonOperator make_op(const std::string& name, const std::string& ref, int difficulty) {
  TritonOperator op;
  op.channel = TritonChannel::G;
  op.name = name;
  op.file = name + ".py";
  op.difficulty = difficulty;
  op.reference_code = ref;
  op.test_code =
      "import random\n"
      "def test_op():\n"
      "    return {'test_case_1': op(random.random())}\n"
      "result_gold = test_op()\n";
  return op;
}

TritonEvalOptions fake_options(const TempDir& dir) {
  TritonEvalOptions opt;
  opt.runner.python = probe_python("/usr/bin/python3");
  opt.runner.script = kFake;
  opt.runner.step.sandbox = false;
  opt.runner.step.memory_limit_bytes = 2ull << 30;
  opt.runner.timeout_s = 20;
  opt.work_dir = dir / "work";
  return opt;
}

std::string key_of(const TritonJob& j) {
  return "G/" + j.op->name + "#" + std::to_string(j.sample);
}

// What evaluate_triton handed out, in order: "ref G/x" and "G/x#sample verdict".
struct Handed {
  std::mutex mu;
  std::vector<std::string> events;
  void hook(TritonEvalOptions& opt) {
    opt.on_result = [this](const TritonJobResult& r) {
      std::lock_guard<std::mutex> lock(mu);
      events.push_back(key_of(r.job) + " " + std::string(triton_verdict_name(r.graded.verdict)));
    };
    opt.on_reference = [this](const TritonOperator& op, const TritonRunOutcome&,
                              const TritonReferenceCheck& check, const TritonDefect*) {
      std::lock_guard<std::mutex> lock(mu);
      events.push_back("ref G/" + op.name + " " + check.status);
    };
  }
  std::ptrdiff_t at(const std::string& event) const {
    auto it = std::find(events.begin(), events.end(), event);
    return it == events.end() ? -1 : it - events.begin();
  }
};

// An operator whose runs have ended is graded and handed out while another's still run: here
// `fast`'s reference, its second run and both candidates end while `slow`'s candidate sleeps.
TEST(TritonResultsAsTheyEnd, AnOperatorIsHandedOutOnceItsOwnRunsHaveEnded) {
  TempDir dir;
  TritonOperator fast = make_op("fast", "#fake ok\n", 1);
  TritonOperator slow = make_op("slow", "#fake ok\n", 2);
  TritonDefect broken;
  broken.channel = TritonChannel::G;
  broken.op = "broken";
  broken.action = TritonDefectAction::exclude;
  broken.reason = "its test is broken";
  TritonOperator excluded = make_op("broken", "#fake ok\n", 3);
  TritonEvalOptions opt = fake_options(dir);
  opt.defects = {broken};
  opt.workers = 3;
  Handed handed;
  handed.hook(opt);
  std::mutex mu;
  std::vector<std::string> progress;
  opt.progress = [&](const std::string& line) {
    std::lock_guard<std::mutex> lock(mu);
    progress.push_back(line);
  };
  // What had ended when fast's results were handed out.
  std::vector<std::string> progress_then;
  auto on_result = opt.on_result;
  opt.on_result = [&](const TritonJobResult& r) {
    if (r.job.op == &fast && r.job.sample == 1) {
      std::lock_guard<std::mutex> lock(mu);
      progress_then = progress;
    }
    on_result(r);
  };
  // No job runs a reference's own code: each reference gets a second run.
  std::vector<TritonJob> jobs = {{&slow, "#fake ok\n#fake slow 2\n", 0, "s:1"},
                                 {&fast, "#fake ok\n# a candidate\n", 0, "s:2"},
                                 {&fast, "#fake ok 5\n", 1, "s:3"},
                                 {&excluded, "#fake ok\n", 0, "s:4"}};
  TritonEvalResult res = evaluate_triton(jobs, opt);
  ASSERT_EQ(handed.events.size(), 6u) << ::testing::PrintToString(handed.events);
  // The excluded operator's job at once; each operator's reference before its candidates.
  EXPECT_EQ(handed.events[0], "G/broken#0 excluded");
  EXPECT_EQ(handed.at("ref G/fast stable"), 1);
  EXPECT_EQ(handed.at("G/fast#0 pass"), 2);
  EXPECT_EQ(handed.at("G/fast#1 mismatch"), 3);
  EXPECT_EQ(handed.at("ref G/slow stable"), 4);
  EXPECT_EQ(handed.at("G/slow#0 pass"), 5);
  // fast was out before slow's candidate had ended.
  bool slow_ended = false;
  for (const std::string& line : progress_then)
    slow_ended |= line.find("G/slow sample 0") != std::string::npos;
  EXPECT_FALSE(slow_ended) << ::testing::PrintToString(progress_then);
  bool second_run = false;
  for (const std::string& line : progress_then)
    second_run |= line.find("G/fast reference (second run)") != std::string::npos;
  EXPECT_TRUE(second_run) << ::testing::PrintToString(progress_then);
  // The progress lines' count came out right: 2 references, their 2 second runs, 3 candidates.
  ASSERT_EQ(progress.size(), 7u);
  for (const std::string& line : progress) EXPECT_NE(line.find("/7]"), std::string::npos) << line;
  // The results stay in the jobs' order.
  EXPECT_EQ(res.results[0].job.op, &slow);
  EXPECT_EQ(res.results[3].graded.verdict, TritonVerdict::excluded);
  EXPECT_TRUE(fs::is_empty(dir / "work"));
}

// With --speedup a correct candidate is handed out once timed, the others as soon as graded;
// a reference that fails takes its second run out of the progress count.
TEST(TritonResultsAsTheyEnd, WithSpeedupACorrectCandidateOnceTimed) {
  TempDir dir;
  TritonOperator op = make_op("op", "#fake ok\n#fake time 1.0\n", 1);
  TritonOperator gone = make_op("gone", "#fake error\n", 2);
  TritonEvalOptions opt = fake_options(dir);
  opt.speedup = true;
  opt.timing.reps = 5;
  opt.rounds = 2;
  opt.warmup_rounds = 0;
  Handed handed;
  handed.hook(opt);
  std::mutex mu;
  std::vector<std::string> progress;
  std::size_t timing_lines_before_mismatch = 0;
  opt.progress = [&](const std::string& line) {
    std::lock_guard<std::mutex> lock(mu);
    progress.push_back(line);
  };
  auto on_result = opt.on_result;
  opt.on_result = [&](const TritonJobResult& r) {
    if (r.graded.verdict == TritonVerdict::mismatch) {
      std::lock_guard<std::mutex> lock(mu);
      for (const std::string& line : progress)
        timing_lines_before_mismatch += line.find("timing") != std::string::npos;
    }
    on_result(r);
  };
  std::vector<TritonJob> jobs = {{&op, "#fake ok\n#fake time 0.5\n", 0, "fast"},
                                 {&op, "#fake ok 3\n", 1, "wrong"},
                                 {&gone, "#fake ok\n", 0, "orphan"}};
  TritonEvalResult res = evaluate_triton(jobs, opt);
  ASSERT_TRUE(res.results[0].speedup) << res.results[0].speedup_note;
  ASSERT_EQ(handed.events.size(), 5u) << ::testing::PrintToString(handed.events);
  EXPECT_EQ(handed.events.back(), "G/op#0 pass");  // last: after its timing
  EXPECT_LT(handed.at("G/op#1 mismatch"), handed.at("G/op#0 pass"));
  EXPECT_EQ(timing_lines_before_mismatch, 0u);
  EXPECT_GE(handed.at("G/gone#0 reference_failed"), 0);
  EXPECT_EQ(res.results[1].speedup_note, "not timed: only correct candidates are");
  // 2 references, 1 second run (gone's reference failed: none), 3 candidates: the count of the
  // test runs ends at 6 of 6.
  std::size_t counted = 0;
  for (const std::string& line : progress) {
    if (line[0] != '[') continue;
    EXPECT_FALSE(line.starts_with("[7/")) << line;
    counted += line.starts_with("[6/6]");
  }
  EXPECT_EQ(counted, 1u) << ::testing::PrintToString(progress);
}

// A failure to hand a result out (a journal that cannot be written) ends the run with it.
TEST(TritonResultsAsTheyEnd, AThrowingHandlerEndsTheRun) {
  TempDir dir;
  TritonOperator op = make_op("op", "#fake ok\n", 1);
  TritonEvalOptions opt = fake_options(dir);
  opt.on_result = [](const TritonJobResult&) { throw std::runtime_error("disk full"); };
  std::vector<TritonJob> jobs = {{&op, "#fake ok\n", 0, "a"}, {&op, "#fake ok\n", 1, "b"}};
  try {
    evaluate_triton(jobs, opt);
    ADD_FAILURE() << "no throw";
  } catch (const std::runtime_error& e) {
    EXPECT_STREQ(e.what(), "disk full");
  }
}

// What results.jsonl and references.jsonl hold, read back, gives the summary the results gave:
// verdicts, exceptions, reference failures, unstable and empty references, speedups and the
// work of GPU efficiency.
TEST(TritonReadBack, TheSummaryOfLinesReadBackIsTheSummaryOfTheResults) {
  TempDir dir;
  TritonOperator timed = make_op("timed", "#fake ok\n#fake time 1.0\n#fake bytes 1000\n", 1);
  TritonOperator unstable = make_op("unstable", "#fake random\n", 2);
  TritonOperator empty = make_op("empty", "#fake none\n", 3);
  TritonOperator broken = make_op("broken", "#fake error\n", 4);
  TritonEvalOptions opt = fake_options(dir);
  opt.speedup = true;
  opt.timing.reps = 5;
  opt.rounds = 2;
  opt.warmup_rounds = 0;
  std::vector<TritonJob> jobs = {
      {&timed, "#fake ok\n#fake time 0.5\n#fake bytes 1000\n#fake no_persisting_l2 none here\n", 0,
       "fast"},
      {&timed, "#fake error\n", 1, "raises"},
      {&timed, "#fake ok 2\n", 2, "wrong"},
      {&unstable, "#fake ok\n", 0, "u"},
      {&empty, "#fake none\n", 0, "e"},
      {&broken, "#fake ok\n", 0, "b"}};
  TritonEvalResult res = evaluate_triton(jobs, opt);
  ASSERT_TRUE(res.results[0].efficiency.is_object()) << res.results[0].efficiency_note;
  const json info = {{"data_dir", "x"}};
  const json expected = triton_summary_json(res, info);
  EXPECT_EQ(expected["reference_unstable"].size(), 1u);
  EXPECT_EQ(expected["reference_failures"].size(), 1u);
  EXPECT_EQ(expected["work"].size(), 1u);
  // The reference's processes reset persisting L2, the candidate's could not: both are said.
  EXPECT_EQ(expected["env"]["persisting_l2"],
            "not reset: none here; reset before every timed repetition");

  TritonEvalResult back;
  for (const TritonJobResult& r : res.results)
    back.results.push_back(triton_result_from_json(triton_result_json(r), r.job));
  const std::vector<const TritonOperator*> ops = {&timed, &unstable, &empty, &broken};
  for (const TritonOperator* op : ops) {
    const std::string key = "G/" + op->name;
    auto [ref, check] = triton_reference_from_json(
        triton_reference_json(*op, res.references.at(key), &res.checks.at(key)));
    back.references.emplace(key, std::move(ref));
    back.checks.emplace(key, std::move(check));
  }
  std::vector<TritonGraded> graded;
  for (const TritonJobResult& r : back.results) graded.push_back(r.graded);
  back.scores = score_triton(graded);
  const json got = triton_summary_json(back, info);
  EXPECT_EQ(got, expected) << json::diff(expected, got).dump();

  // A line that is not one names the field.
  json line = triton_result_json(res.results[0]);
  line["verdict"] = "splendid";
  try {
    triton_result_from_json(line, jobs[0]);
    ADD_FAILURE() << "no throw";
  } catch (const std::runtime_error& e) {
    EXPECT_NE(std::string(e.what()).find("verdict"), std::string::npos) << e.what();
  }
}

// A run directory reopened: what is done, a torn last line dropped, the references' latest
// line per operator, and a line of another run refused.
TEST(TritonJournalFiles, ReopenedItSaysWhatIsDone) {
  TempDir dir;
  TritonOperator a = make_op("a", "#fake ok\n", 1);
  TritonOperator b = make_op("b", "#fake ok\n", 2);
  std::vector<TritonJob> jobs = {
      {&a, "#fake ok\n", 0, "1"}, {&a, "#fake ok 2\n", 1, "2"}, {&b, "#fake ok\n", 0, "3"}};
  EXPECT_EQ(triton_candidate_key(jobs[1]), "G/a#1");
  TritonEvalOptions opt = fake_options(dir);
  const fs::path run = dir / "run";
  fs::create_directories(run);
  {
    TritonJournal journal(run, jobs);
    EXPECT_EQ(journal.earlier(), 0u);
    EXPECT_EQ(journal.todo(jobs).size(), 3u);
    opt.on_result = [&](const TritonJobResult& r) { journal.append(r); };
    opt.on_reference = [&](const TritonOperator& op, const TritonRunOutcome& ref,
                           const TritonReferenceCheck& check,
                           const TritonDefect* d) { journal.append_reference(op, ref, check, d); };
    evaluate_triton({jobs[0], jobs[1]}, opt);  // b is left for later
  }
  // A kill in the middle of the next line.
  std::string text = kjudge::testing::read_text(run / "results.jsonl");
  ASSERT_EQ(std::count(text.begin(), text.end(), '\n'), 2);
  kjudge::testing::write_text(run / "results.jsonl", text + "{\"schema_version\": 1, \"oper");
  {
    TritonJournal journal(run, jobs);
    EXPECT_EQ(journal.earlier(), 2u);
    std::vector<TritonJob> todo = journal.todo(jobs);
    ASSERT_EQ(todo.size(), 1u);
    EXPECT_EQ(todo[0].op, &b);
    EXPECT_EQ(kjudge::testing::read_text(run / "results.jsonl"), text);  // the torn line cut
    opt.on_result = [&](const TritonJobResult& r) { journal.append(r); };
    opt.on_reference = [&](const TritonOperator& op, const TritonRunOutcome& ref,
                           const TritonReferenceCheck& check,
                           const TritonDefect* d) { journal.append_reference(op, ref, check, d); };
    TritonEvalResult res = evaluate_triton(todo, opt);
    journal.finish_references(jobs);
    journal.add_earlier(res, opt.defects);
    EXPECT_EQ(res.results.size(), 3u);
    EXPECT_EQ(res.scores.all.judged, 3u);
    EXPECT_EQ(res.scores.all.exec_ok, 2u);
    EXPECT_EQ(res.references.size(), 2u);  // a's read back, b's this run's
    EXPECT_EQ(res.checks.at("G/a").status, "stable");
  }
  std::vector<json> results = kjudge::testing::read_jsonl(run / "results.jsonl");
  ASSERT_EQ(results.size(), 3u);
  EXPECT_EQ(results[2]["operator"], "b");
  std::vector<json> refs = kjudge::testing::read_jsonl(run / "references.jsonl");
  ASSERT_EQ(refs.size(), 2u);  // one per operator, in the jobs' order
  EXPECT_EQ(refs[0]["operator"], "a");
  EXPECT_EQ(refs[1]["operator"], "b");

  // Another run's journal: a candidate this run does not have.
  std::vector<TritonJob> other = {jobs[0], jobs[2]};
  try {
    TritonJournal journal(run, other);
    ADD_FAILURE() << "no throw";
  } catch (const InputError& e) {
    EXPECT_NE(std::string(e.what()).find("results.jsonl:2"), std::string::npos) << e.what();
    EXPECT_NE(std::string(e.what()).find("G/a#1 is no candidate of this run"), std::string::npos)
        << e.what();
  }
  // A line that is not a result, before others: not ours.
  kjudge::testing::write_text(run / "results.jsonl", "{\"hello\": 1}\n" + text);
  EXPECT_THROW(TritonJournal(run, jobs), InputError);
}

}  // namespace
}  // namespace kjudge::triton
