// `kjudge triton eval` end to end on the real data folder, with the fake runner standing in for
// torch (tests/fixtures/fake_triton_runner.py): the run directory's files, the exit codes, and
// solutions files that are wrong in one field each.
#include <gtest/gtest.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <filesystem>
#include <fstream>
#include <map>
#include <set>
#include <thread>

#include "schema_validator.h"
#include "test_util.h"
#include "triton/data/tritonbench.h"

namespace kjudge::triton {
namespace {

namespace fs = std::filesystem;
using kjudge::testing::run_capture;
using kjudge::testing::TempDir;
using nlohmann::json;

const fs::path kData = fs::path(KJUDGE_SOURCE_DIR "/../shared/datasets/tritonbench");
const std::string kFake = KJUDGE_SOURCE_DIR "/tests/fixtures/fake_triton_runner.py";

class TritonEvalCli : public ::testing::Test {
 protected:
  void SetUp() override {
    if (!fs::is_directory(kData)) GTEST_SKIP() << "shared dataset missing: " << kData;
  }
  // A timed run uses the CUPTI profiler wherever its library is found (beside the test's kjudge
  // where CUPTI is installed): each test says which it gets, none unless it names one.
  std::string base() const {
    return "KJUDGE_PROFILER=" + profiler_ + " " + std::string(KJUDGE_BINARY) + " triton eval " +
           kData.string() + " --runner " + kFake +
           " --python /usr/bin/python3 --sandbox none --out " + (dir_ / "run").string() + " ";
  }
  std::string profiler_ = "none";
  std::vector<json> lines(const std::string& file) const {
    std::vector<json> out;
    std::ifstream in(dir_ / "run" / file);
    for (std::string l; std::getline(in, l);) out.push_back(json::parse(l));
    // Every results.jsonl line as docs/schemas/triton-result.schema.json says.
    if (file == "results.jsonl") {
      std::ifstream schema_file(std::string(KJUDGE_SOURCE_DIR) +
                                "/docs/schemas/triton-result.schema.json");
      kjudge::testing::SchemaValidator schema(json::parse(schema_file));
      for (const json& doc : out)
        for (const auto& e : schema.errors(doc)) ADD_FAILURE() << doc.dump() << ": " << e;
    }
    return out;
  }
  // results.jsonl's lines by candidate ("G/add_example#0"): the file holds them in the order
  // they were judged. Each candidate once.
  std::map<std::string, json> by_candidate(const std::vector<json>& results) const {
    std::map<std::string, json> out;
    for (const json& r : results) {
      const std::string key = r["channel"].get<std::string>() + "/" +
                              r["operator"].get<std::string>() + "#" +
                              std::to_string(r["sample"].get<int>());
      EXPECT_TRUE(out.emplace(key, r).second) << key << " twice";
    }
    return out;
  }
  TempDir dir_;
};

// Without torch (this machine's python3), the real runner cannot run any operator: the run stops
// before the first one with one message and exit 3, and leaves no run folder (issue 38; it
// used to run 96 s into a judge_error per operator).
TEST_F(TritonEvalCli, APythonWithoutTorchStopsTheRunBeforeItsFirstOperator) {
  if (run_capture("/usr/bin/python3 -c 'import torch'").rc == 0)
    GTEST_SKIP() << "this machine's python3 has torch";
  auto r = run_capture(std::string(KJUDGE_BINARY) + " triton eval " + kData.string() +
                       " --self --operator add_example --python /usr/bin/python3 --sandbox none" +
                       " --out " + (dir_ / "run").string());
  EXPECT_EQ(r.rc, 3) << r.out;
  EXPECT_NE(r.out.find("cannot import torch with /usr/bin/python3"), std::string::npos) << r.out;
  EXPECT_FALSE(fs::exists(dir_ / "run")) << r.out;
}

TEST_F(TritonEvalCli, SelfWritesTheRunDirectory) {
  auto r = run_capture(base() + "--self --operator add_example --operator torch.div --json");
  ASSERT_EQ(r.rc, 0) << r.out;
  json summary = json::parse(r.out.substr(r.out.find('{')));
  EXPECT_EQ(summary["kind"], "kjudge-triton-summary");
  EXPECT_EQ(summary["solutions"], "self");
  EXPECT_EQ(summary["totals"]["judged"], 2);
  EXPECT_EQ(summary["totals"]["exec_ok"], 2);
  EXPECT_EQ(summary["by_channel"]["T"]["call_accuracy"], 1.0);
  EXPECT_EQ(summary["env"]["torch"], "fake");
  std::vector<json> lines_in_file = lines("results.jsonl");
  ASSERT_EQ(lines_in_file.size(), 2u);
  std::map<std::string, json> results = by_candidate(lines_in_file);
  ASSERT_EQ(results.count("G/add_example#0"), 1u);
  EXPECT_EQ(results["G/add_example#0"]["verdict"], "pass");
  EXPECT_EQ(results["G/add_example#0"]["comparison"]["compared"], 1);
  EXPECT_EQ(results.count("T/torch.div#0"), 1u);
  // references.jsonl: one line per operator, in the order they were selected.
  std::vector<json> refs = lines("references.jsonl");
  ASSERT_EQ(refs.size(), 2u);
  EXPECT_EQ(refs[0]["operator"], "add_example");
  EXPECT_EQ(refs[1]["operator"], "torch.div");
  EXPECT_TRUE(fs::exists(dir_ / "run/summary.json"));
  EXPECT_FALSE(fs::exists(dir_ / "run/work"));
}

// The judge's bytecode (triton/runner/python_bytecode.h): made where --bytecode-cache says, for the
// interpreter the runs use, and said in the summary; none with --no-bytecode-cache. (What the
// runs do with it is python_bytecode_test's.)
TEST_F(TritonEvalCli, TheBytecodeCacheIsMadeWhereAskedAndReported) {
  const fs::path cache = dir_ / "bytecode";
  auto r = run_capture(base() + "--self --operator add_example --json --bytecode-cache " +
                       cache.string());
  ASSERT_EQ(r.rc, 0) << r.out;
  json options = json::parse(r.out.substr(r.out.find('{')))["options"];
  ASSERT_TRUE(options["bytecode_cache"].is_object()) << options.dump();
  const fs::path dir = options["bytecode_cache"]["dir"].get<std::string>();
  EXPECT_EQ(dir.parent_path(), cache);
  EXPECT_TRUE(fs::is_directory(dir));
  // numpy, torch and triton: each either compiled or missing on this interpreter, none failed.
  std::set<std::string> seen;
  for (const char* key : {"compiled", "missing"})
    for (const auto& m : options["bytecode_cache"][key]) seen.insert(m.get<std::string>());
  EXPECT_EQ(seen, (std::set<std::string>{"numpy", "torch", "triton"}));
  EXPECT_TRUE(options["bytecode_cache"]["failed"].empty());

  fs::remove_all(dir_ / "run");
  r = run_capture(base() + "--self --operator add_example --json --no-bytecode-cache");
  ASSERT_EQ(r.rc, 0) << r.out;
  EXPECT_TRUE(json::parse(r.out.substr(r.out.find('{')))["options"]["bytecode_cache"].is_null());
}

TEST_F(TritonEvalCli, SolutionsWithSpeedupAndTheTable) {
  std::ofstream(dir_ / "sol.jsonl")
      << json{{"operator", "add_example"}, {"code", "#fake ok\n#fake time 0.5\n"}}.dump() << "\n\n"
      << json{{"file", "add_example.py"}, {"channel", "G"}, {"code", "#fake ok 9\n"}}.dump() << "\n"
      << json{{"operator", "torch.div"}, {"code", "#fake error\n"}, {"sample", 4}}.dump() << "\n";
  auto r =
      run_capture(base() + "--solutions " + (dir_ / "sol.jsonl").string() + " --speedup --reps 6");
  ASSERT_EQ(r.rc, 0) << r.out;
  EXPECT_NE(r.out.find("GROUP"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("2.000 (1)"), std::string::npos) << r.out;  // G's speedup geomean
  std::vector<json> lines_in_file = lines("results.jsonl");
  ASSERT_EQ(lines_in_file.size(), 3u);
  // In the order judged: the timed candidate last, once timed.
  EXPECT_EQ(lines_in_file[2]["sample"], 0);
  std::map<std::string, json> by = by_candidate(lines_in_file);
  const json timed = by["G/add_example#0"], wrong = by["G/add_example#1"],
             raises = by["T/torch.div#4"];
  EXPECT_EQ(timed["verdict"], "pass");
  EXPECT_DOUBLE_EQ(timed["speedup"]["estimate"].get<double>(), 2.0);
  EXPECT_EQ(timed["origin"], (dir_ / "sol.jsonl").string() + ":1");
  EXPECT_EQ(wrong["verdict"], "mismatch");
  EXPECT_EQ(raises["verdict"], "call_error");
  EXPECT_EQ(raises["exception_type"], "NameError");
  // Failure classes per result and per channel and difficulty in the summary.
  EXPECT_TRUE(timed["failure"]["class"] == "none") << timed;
  EXPECT_EQ(wrong["failure"]["class"], "result_mismatch");
  EXPECT_EQ(raises["failure"]["class"], "name_reference");
  EXPECT_EQ(raises["failure"]["cause"], "NameError");
  // Timed in interleaved rounds: 4 by default, the first reference-first.
  ASSERT_EQ(timed["timing"]["rounds"].size(), 4u);
  EXPECT_EQ(timed["timing"]["rounds"][0]["first"], "reference");
  // Every timing process took persisting L2 back (the runner's env), and the summary says so.
  EXPECT_EQ(timed["timing"]["persisting_l2"], json::array({"reset before every timed repetition"}));
  std::ifstream summary_file(dir_ / "run/summary.json");
  EXPECT_EQ(json::parse(summary_file)["env"]["persisting_l2"],
            "reset before every timed repetition");
  std::vector<json> refs = lines("references.jsonl");
  ASSERT_EQ(refs.size(), 2u);  // one per operator
  // No self job here: each reference ran a second time to check it agrees with itself.
  EXPECT_EQ(refs[0]["self_check"]["status"], "stable");
  EXPECT_EQ(refs[0]["self_check"]["second_run"], "second reference run");
  std::ifstream sf(dir_ / "run/summary.json");
  json summary = json::parse(sf);
  EXPECT_EQ(summary["failure_classes"]["G"]["by_difficulty"]["2"]["result_mismatch"], 1);
  EXPECT_EQ(summary["failure_classes"]["G"]["by_difficulty"]["2"]["none"], 1);
  EXPECT_EQ(summary["failure_classes"]["T"]["total"]["name_reference"], 1);
  EXPECT_EQ(summary["options"]["timing"]["rounds"], 4);
  EXPECT_TRUE(summary["reference_unstable"].empty());
  EXPECT_FALSE(summary.contains("codebleu"));  // opt-in
}

// --peaks: each timed candidate's achieved bytes/s over the peak of the GPU its runs reported.
TEST_F(TritonEvalCli, PeaksGiveGpuEfficiency) {
  std::ofstream(dir_ / "peaks.json")
      << R"({"kind": "kjudge-gpu-peaks", "gpu": "Fake GPU", "memory_bandwidth_bytes_per_s": 1e9})";
  std::ofstream(dir_ / "sol.jsonl")
      << json{{"operator", "add_example"},
              {"code", "#fake ok\n#fake time 0.5\n#fake bytes 250000\n"}}
             .dump()
      << "\n";
  auto r = run_capture(base() + "--solutions " + (dir_ / "sol.jsonl").string() +
                       " --speedup --reps 5 --rounds 2 --warmup-rounds 0 --peaks " +
                       (dir_ / "peaks.json").string());
  ASSERT_EQ(r.rc, 0) << r.out;
  std::vector<json> results = lines("results.jsonl");
  ASSERT_EQ(results.size(), 1u);
  // 2 sites x 250000 bytes in 2 x 0.5 ms: 5e8 B/s, half of 1e9. (The reference, add_example's
  // own code, runs through the fake runner as "ok" without bytes: no efficiency for it.)
  EXPECT_TRUE(results[0]["gpu_efficiency"].is_null()) << results[0];
  EXPECT_NE(results[0]["gpu_efficiency_note"].get<std::string>().find("did not count"),
            std::string::npos);
  std::ifstream sf(dir_ / "run/summary.json");
  json summary = json::parse(sf);
  EXPECT_EQ(summary["options"]["peaks"]["gpu"], "Fake GPU");
  std::ofstream(dir_ / "bad.json") << "{}";
  auto bad = run_capture(base() + "--solutions " + (dir_ / "sol.jsonl").string() + " --peaks " +
                         (dir_ / "bad.json").string());
  EXPECT_EQ(bad.rc, 2) << bad.out;
  EXPECT_NE(bad.out.find("kjudge-gpu-peaks"), std::string::npos) << bad.out;
}

// The paper's published outputs ({instruction, predict, label}) rescored as candidates, with
// CodeBLEU asked for: a number where the package imports, else unavailable with the reason.
// --cupti: the profiler named by $KJUDGE_PROFILER (here a file that is no library; the fake
// runner plays the profiler) in every timing process, each line's `cupti` object, run.json's
// option; refused without --speedup, and where no profiler library is found.
TEST_F(TritonEvalCli, CuptiWatchesTheTimingProcesses) {
  std::ofstream(dir_ / "libkjudge_profiler.so") << "not a library\n";
  profiler_ = (dir_ / "libkjudge_profiler.so").string();
  auto r =
      run_capture(base() + "--self --operator add_example --speedup --cupti --rounds 2 --reps 5");
  ASSERT_EQ(r.rc, 0) << r.out;
  std::vector<json> results = lines("results.jsonl");
  ASSERT_EQ(results.size(), 1u);
  EXPECT_EQ(results[0]["cupti"]["used"], true) << results[0].dump();
  EXPECT_FALSE(results[0].contains("timing_flags")) << results[0]["timing_flags"].dump();
  std::ifstream run_json(dir_ / "run" / "run.json");
  const json run = json::parse(run_json);
  EXPECT_EQ(run["identity"]["timing"]["cupti"], true);

  auto no_speedup = run_capture(base() + "--self --operator add_example --cupti");
  EXPECT_EQ(no_speedup.rc, 2) << no_speedup.out;
  EXPECT_NE(no_speedup.out.find("needs --speedup"), std::string::npos) << no_speedup.out;
  auto both = run_capture(base() + "--self --operator add_example --speedup --cupti --no-cupti");
  EXPECT_EQ(both.rc, 2) << both.out;
  profiler_ = (dir_ / "nothing.so").string();
  auto missing = run_capture(base() + "--self --operator add_example --speedup --cupti");
  EXPECT_EQ(missing.rc, 3) << missing.out;
  EXPECT_NE(missing.out.find("libkjudge_profiler.so"), std::string::npos) << missing.out;
}

// Without --cupti a timed run uses the profiler where its library is found, and says so in
// run.json; where none is found it is timed without it (a note, run.json's cupti_why), and
// --no-cupti turns it off. A run started without it is resumed without it.
TEST_F(TritonEvalCli, TimedRunsUseTheProfilerWhereItIsFound) {
  std::ofstream(dir_ / "libkjudge_profiler.so") << "not a library\n";
  profiler_ = (dir_ / "libkjudge_profiler.so").string();
  const std::string timed = "--self --operator add_example --speedup --rounds 2 --reps 5 ";
  auto r = run_capture(base() + timed);
  ASSERT_EQ(r.rc, 0) << r.out;
  std::vector<json> results = lines("results.jsonl");
  ASSERT_EQ(results.size(), 1u);
  EXPECT_EQ(results[0]["cupti"]["used"], true) << results[0].dump();
  auto summary = [&] {
    std::ifstream in(dir_ / "run" / "summary.json");
    return json::parse(in);
  };
  EXPECT_EQ(summary()["options"]["cupti"], profiler_);

  fs::remove_all(dir_ / "run");
  auto off = run_capture(base() + timed + "--no-cupti");
  ASSERT_EQ(off.rc, 0) << off.out;
  results = lines("results.jsonl");
  ASSERT_EQ(results.size(), 1u);
  EXPECT_FALSE(results[0].contains("cupti")) << results[0].dump();
  EXPECT_EQ(summary()["options"]["cupti_why"], "turned off (--no-cupti)");

  fs::remove_all(dir_ / "run");
  profiler_ = "none";
  auto absent = run_capture(base() + timed);
  ASSERT_EQ(absent.rc, 0) << absent.out;
  EXPECT_NE(absent.out.find("timed without the CUPTI profiler"), std::string::npos) << absent.out;
  EXPECT_TRUE(summary()["options"]["cupti"].is_null());
  EXPECT_NE(summary()["options"]["cupti_why"].get<std::string>().find("was not found"),
            std::string::npos);
  std::ifstream run_json(dir_ / "run" / "run.json");
  EXPECT_FALSE(json::parse(run_json)["identity"]["timing"].contains("cupti"));

  // Resumed where the library is found now: the run goes on as it was started, without it.
  profiler_ = (dir_ / "libkjudge_profiler.so").string();
  auto resumed = run_capture(base() + timed + "--resume");
  ASSERT_EQ(resumed.rc, 0) << resumed.out;
  EXPECT_EQ(summary()["options"]["cupti_why"], "the run being resumed was started without it");
  auto required = run_capture(base() + timed + "--resume --cupti");
  EXPECT_EQ(required.rc, 2) << required.out;
  EXPECT_NE(required.out.find("cupti"), std::string::npos) << required.out;
}

TEST_F(TritonEvalCli, LlmGeneratedWithCodeBleu) {
  TritonBench bench = load_tritonbench(kData);
  const TritonOperator* op = bench.find("add_example", TritonChannel::G);
  ASSERT_NE(op, nullptr);
  std::ofstream(dir_ / "gen.jsonl")
      << json{{"instruction", op->simple_instruction},
              {"predict", "Here it is.\n```python\n#fake ok\ndef add(x, y):\n    return x\n```"},
              {"label", op->reference_code}}
             .dump()
      << "\n"
      << json{{"instruction", "not a TritonBench instruction"}, {"predict", "x"}, {"label", ""}}
             .dump()
      << "\n";
  auto r = run_capture(base() + "--llm-generated " + (dir_ / "gen.jsonl").string() +
                       " --codebleu --json");
  ASSERT_EQ(r.rc, 0) << r.out;
  json summary = json::parse(r.out.substr(r.out.find('{')));
  EXPECT_EQ(summary["solutions"], (dir_ / "gen.jsonl").string());
  EXPECT_EQ(summary["llm_generated"]["candidates"], 1);
  ASSERT_EQ(summary["llm_generated"]["unmatched"].size(), 1u);
  EXPECT_EQ(summary["llm_generated"]["unmatched"][0]["line"], 2);
  std::vector<json> results = lines("results.jsonl");
  ASSERT_EQ(results.size(), 1u);
  EXPECT_EQ(results[0]["operator"], "add_example");
  EXPECT_EQ(results[0]["verdict"], "pass");
  EXPECT_EQ(results[0]["origin"], "gen.jsonl:1");
  const json& cb = summary["codebleu"];
  EXPECT_EQ(cb["pairs"], 1);
  if (cb["available"].get<bool>()) {
    EXPECT_GT(cb["codebleu"].get<double>(), 0.0);
    EXPECT_LT(cb["codebleu"].get<double>(), 1.0);
  } else {
    EXPECT_FALSE(cb["reason"].get<std::string>().empty()) << cb;
  }

  // Exactly one source of candidates.
  auto both = run_capture(base() + "--self --llm-generated " + (dir_ / "gen.jsonl").string());
  EXPECT_EQ(both.rc, 2) << both.out;
}

TEST_F(TritonEvalCli, BadSolutionsNameTheLineAndField) {
  auto expect_usage = [&](const std::string& content, const std::string& where,
                          const std::string& what) {
    std::ofstream(dir_ / "bad.jsonl") << content;
    auto r = run_capture(base() + "--solutions " + (dir_ / "bad.jsonl").string());
    EXPECT_EQ(r.rc, 2) << r.out;
    EXPECT_NE(r.out.find(where), std::string::npos) << r.out;
    EXPECT_NE(r.out.find(what), std::string::npos) << r.out;
  };
  expect_usage("{\"operator\": \"add_example\", \"code\": \"x\"}\n{oops\n", "bad.jsonl:2",
               "not JSON");
  expect_usage("{\"operator\": \"nope\", \"code\": \"x\"}\n", "bad.jsonl:1", "no operator 'nope'");
  expect_usage("{\"operator\": \"add_example\"}\n", "code", "missing");
  expect_usage("{\"code\": \"x\"}\n", "operator", "missing");
  expect_usage("{\"operator\": \"add_example\", \"code\": 5}\n", "code", "not a string");
  expect_usage("{\"operator\": \"add_example\", \"channel\": \"X\", \"code\": \"\"}\n", "channel",
               "not G or T");
  expect_usage("{\"operator\": \"add_example\", \"channel\": \"T\", \"code\": \"\"}\n", "operator",
               "(channel T)");
  expect_usage(
      "{\"operator\": \"add_example\", \"code\": \"\", \"sample\": 1}\n"
      "{\"operator\": \"add_example\", \"code\": \"\", \"sample\": 1}\n",
      "bad.jsonl:2", "sample 1 of add_example given twice");

  auto r = run_capture(base() + "--self --solutions " + (dir_ / "bad.jsonl").string());
  EXPECT_EQ(r.rc, 2) << r.out;
  r = run_capture(base() + "--self --operator no_such_op");
  EXPECT_EQ(r.rc, 2) << r.out;
  EXPECT_NE(r.out.find("no operator 'no_such_op'"), std::string::npos) << r.out;
}

// Each candidate's line is in results.jsonl as soon as it is judged: a run killed with -9 while
// one operator's candidate still runs keeps the other operator's, and --resume judges only
// what is missing (neither add_example's reference nor its candidate runs again).
TEST_F(TritonEvalCli, AKilledRunKeepsWhatWasJudgedAndResumes) {
  std::ofstream(dir_ / "sol.jsonl")
      << json{{"operator", "add_example"}, {"code", "#fake ok\n"}}.dump() << "\n"
      << json{{"operator", "torch.div"}, {"code", "#fake ok\n#fake slow 4\n"}}.dump() << "\n";
  const std::string cmd = base() + "--solutions " + (dir_ / "sol.jsonl").string();
  const fs::path results = dir_ / "run/results.jsonl";
  pid_t pid = fork();
  if (pid == 0) {
    setpgid(0, 0);
    execl("/bin/sh", "sh", "-c", (cmd + " >" + (dir_ / "first.log").string() + " 2>&1").c_str(),
          nullptr);
    _exit(127);
  }
  // Kill it hard once add_example's line is there (torch.div's candidate sleeps 4 s).
  bool alive = false;
  for (int i = 0; i < 300; ++i) {
    if (fs::exists(results) && kjudge::testing::read_jsonl(results).size() >= 1) {
      alive = waitpid(pid, nullptr, WNOHANG) == 0;
      break;
    }
    std::this_thread::sleep_for(std::chrono::milliseconds(50));
  }
  kill(-pid, SIGKILL);
  waitpid(pid, nullptr, 0);
  EXPECT_TRUE(alive) << "the run ended before its first line was seen";
  std::vector<json> before = lines("results.jsonl");
  ASSERT_EQ(before.size(), 1u);
  EXPECT_EQ(before[0]["operator"], "add_example");
  EXPECT_EQ(before[0]["verdict"], "pass");
  EXPECT_EQ(lines("references.jsonl").size(), 1u);      // add_example's, journalled with it
  EXPECT_FALSE(fs::exists(dir_ / "run/summary.json"));  // written at the end

  // An existing results.jsonl is another run's unless --resume says to finish it.
  auto again = run_capture(cmd);
  EXPECT_EQ(again.rc, 2) << again.out;
  EXPECT_NE(again.out.find(results.string()), std::string::npos) << again.out;
  EXPECT_NE(again.out.find("pass --resume"), std::string::npos) << again.out;

  auto r = run_capture(cmd + " --resume --json");
  ASSERT_EQ(r.rc, 0) << r.out;
  EXPECT_NE(r.out.find("1 of 2 candidates already judged"), std::string::npos) << r.out;
  EXPECT_EQ(r.out.find("G/add_example reference"), std::string::npos) << "run again: " << r.out;
  EXPECT_EQ(r.out.find("G/add_example sample"), std::string::npos) << "run again: " << r.out;
  EXPECT_NE(r.out.find("T/torch.div sample 0"), std::string::npos) << r.out;
  std::vector<json> after = lines("results.jsonl");
  ASSERT_EQ(after.size(), 2u);
  EXPECT_EQ(after[0], before[0]);  // kept as it was
  EXPECT_EQ(after[1]["operator"], "torch.div");
  EXPECT_EQ(after[1]["verdict"], "pass");
  std::vector<json> refs = lines("references.jsonl");
  ASSERT_EQ(refs.size(), 2u);  // one per operator, in the jobs' order
  EXPECT_EQ(refs[0]["operator"], "add_example");
  EXPECT_EQ(refs[0]["self_check"]["status"], "stable");
  EXPECT_EQ(refs[1]["operator"], "torch.div");
  // The summary is over both runs' results.
  json summary = json::parse(r.out.substr(r.out.find("{\n")));
  EXPECT_EQ(summary["totals"]["judged"], 2);
  EXPECT_EQ(summary["totals"]["exec_ok"], 2);
  EXPECT_EQ(summary["resumed"]["earlier_results"], 1);
  EXPECT_EQ(summary["by_operator"]["G/add_example"]["judged"], 1);
  std::ifstream run_json(dir_ / "run/run.json");
  json run = json::parse(run_json);
  EXPECT_EQ(run["kind"], "kjudge-triton-run");
  EXPECT_EQ(run["identity"]["jobs"], 2);
  EXPECT_EQ(run["resumed_at"].size(), 1u);

  // Resumed once more: nothing left to run, the same summary.
  auto done = run_capture(cmd + " --resume --json");
  ASSERT_EQ(done.rc, 0) << done.out;
  EXPECT_NE(done.out.find("2 of 2 candidates already judged"), std::string::npos) << done.out;
  EXPECT_EQ(done.out.find("sample 0"), std::string::npos) << done.out;
  EXPECT_EQ(lines("results.jsonl").size(), 2u);
  EXPECT_EQ(lines("references.jsonl").size(), 2u);
  json summary2 = json::parse(done.out.substr(done.out.find("{\n")));
  EXPECT_EQ(summary2["totals"], summary["totals"]);
  EXPECT_EQ(summary2["reference_unchecked"], summary["reference_unchecked"]);
}

// --resume finishes the run it was started as, or refuses, naming what differs.
TEST_F(TritonEvalCli, ResumeRefusesAnotherRun) {
  const std::string cmd = base() + "--self --operator add_example";
  auto first = run_capture(cmd);
  ASSERT_EQ(first.rc, 0) << first.out;
  auto refused = [&](const std::string& more, const std::string& what) {
    auto r = run_capture(cmd + " --resume " + more);
    EXPECT_EQ(r.rc, 2) << more << ": " << r.out;
    EXPECT_NE(r.out.find((dir_ / "run/run.json").string()), std::string::npos) << r.out;
    EXPECT_NE(r.out.find(what), std::string::npos) << more << ": " << r.out;
  };
  refused("--seed 7", "--seed (was 20251122, now 7)");
  refused("--operator torch.div",
          "--operator (was [\"add_example\"], now [\"add_example\",\"torch.div\"])");
  refused("--speedup", "--speedup (was false, now true)");
  refused("--keep-defective", "--keep-defective");
  std::ofstream(dir_ / "sol.jsonl") << json{{"operator", "add_example"}, {"code", "x"}}.dump();
  auto other = run_capture(base() + "--operator add_example --resume --solutions " +
                           (dir_ / "sol.jsonl").string());
  EXPECT_EQ(other.rc, 2) << other.out;
  EXPECT_NE(other.out.find("--self, --solutions or --llm-generated"), std::string::npos)
      << other.out;
  // Not a kjudge triton eval run (no run.json): refused, nothing judged.
  fs::remove(dir_ / "run/run.json");
  refused("", "missing");
  EXPECT_EQ(lines("results.jsonl").size(), 1u);
}

// A torn last line (a write cut by kill -9) is dropped and its candidate judged again; a line
// that is not a result, followed by others, is not ours.
TEST_F(TritonEvalCli, ResumeDropsATornLastLine) {
  const std::string cmd = base() + "--self --operator add_example --operator torch.div";
  auto first = run_capture(cmd);
  ASSERT_EQ(first.rc, 0) << first.out;
  std::vector<json> results = lines("results.jsonl");
  ASSERT_EQ(results.size(), 2u);
  const std::string text = kjudge::testing::read_text(dir_ / "run/results.jsonl");
  const std::string first_line = text.substr(0, text.find('\n') + 1);
  const std::string kept = results[0]["operator"].get<std::string>();
  const std::string torn = results[1]["operator"].get<std::string>();
  const std::string second_line = text.substr(first_line.size());
  kjudge::testing::write_text(dir_ / "run/results.jsonl",
                              first_line + second_line.substr(0, second_line.size() / 2));
  auto r = run_capture(cmd + " --resume");
  ASSERT_EQ(r.rc, 0) << r.out;
  EXPECT_NE(r.out.find("1 of 2 candidates already judged"), std::string::npos) << r.out;
  EXPECT_EQ(r.out.find("/" + kept + " sample"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("/" + torn + " sample"), std::string::npos) << r.out;
  std::vector<json> after = lines("results.jsonl");  // every line whole
  ASSERT_EQ(after.size(), 2u);
  EXPECT_EQ(after[1]["operator"], torn);

  kjudge::testing::write_text(dir_ / "run/results.jsonl", "{oops\n" + text);
  auto bad = run_capture(cmd + " --resume");
  EXPECT_NE(bad.rc, 0) << bad.out;
  EXPECT_NE(bad.out.find("results.jsonl:1"), std::string::npos) << bad.out;
}

TEST_F(TritonEvalCli, AnInterpreterThatDoesNotRunIsAnEnvironmentError) {
  auto r = run_capture(std::string(KJUDGE_BINARY) + " triton eval " + kData.string() +
                       " --self --operator add_example --python /nonexistent/python3 --out " +
                       (dir_ / "run").string());
  EXPECT_EQ(r.rc, 3) << r.out;
  EXPECT_NE(r.out.find("/nonexistent/python3"), std::string::npos) << r.out;
}

}  // namespace
}  // namespace kjudge::triton
