// Every JSON file a run writes has a schema in docs/schemas/ (described in
// docs/json-schemas.md). This test validates real outputs, made here by the binary on the
// example pack, a host-only timed problem and an example task, and the report fixtures, against
// those files. The validator handles the part of JSON Schema the files use: type, enum,
// required, properties, additionalProperties, items, allOf and local $ref.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <set>
#include <tuple>

#include "gen/generator.h"
#include "schema_validator.h"
#include "task/run.h"
#include "test_util.h"

namespace kjudge {
namespace {

namespace fs = std::filesystem;
using nlohmann::json;
const fs::path kSource = KJUDGE_SOURCE_DIR;
const std::string kBin = KJUDGE_BINARY;

using testing::SchemaValidator;

json read_json(const fs::path& p) {
  std::ifstream in(p);
  EXPECT_TRUE(in) << p;
  return json::parse(in);
}

SchemaValidator schema(const std::string& name) {
  return SchemaValidator(read_json(kSource / "docs/schemas" / (name + ".schema.json")));
}

std::string joined(const std::vector<std::string>& errors) {
  std::string s;
  for (const auto& e : errors) s += "  " + e + "\n";
  return s;
}

// Validates one JSON file, or each line of a JSONL file; returns how many documents it checked.
int expect_valid(const std::string& schema_name, const fs::path& file) {
  SchemaValidator v = schema(schema_name);
  if (file.extension() == ".jsonl") {
    int n = 0;
    for (const auto& j : testing::read_jsonl(file)) {
      auto e = v.errors(j);
      EXPECT_TRUE(e.empty()) << file << " line " << n + 1 << ":\n" << joined(e);
      ++n;
    }
    return n;
  }
  auto e = v.errors(read_json(file));
  EXPECT_TRUE(e.empty()) << file << ":\n" << joined(e);
  return 1;
}

// task-run.json's top-level `flags`: the refusals as text, then the stages' flags lifted.
TEST(ReportSchema, TaskRunFlagsHoldRefusalsAndLiftedStageFlags) {
  const json stat = {{"check", "result_forge"},
                     {"detail", "writes to the result channel"},
                     {"file", "submission.cu"},
                     {"line", 4},
                     {"source", "static"}};
  const json stages = {
      {{"mode", "test"}, {"completed", true}, {"passed", true}, {"cheat_flags", {stat}}},
      {{"mode", "benchmark"},
       {"completed", false},
       {"passed", false},
       {"channel_refused", true},
       {"cheat_flags", {stat}}}};
  json flags = {"result channel tampered with: the harness's report was refused: no end"};
  for (const auto& f : task::lift_stage_flags(stages)) flags.push_back(f);
  const json report = {{"kind", "kjudge-task-run"},
                       {"schema_version", 1},
                       {"kjudge_version", "x"},
                       {"task", "t"},
                       {"task_dir", "/t"},
                       {"submission", "/s.cu"},
                       {"submission_sha256", "0"},
                       {"mode", "benchmark"},
                       {"sandbox", "bwrap"},
                       {"sandbox_limits", "cgroup"},
                       {"ranking_by", "last"},
                       {"passed", false},
                       {"warnings", json::array()},
                       {"isolate", false},
                       {"isolate_why", "--no-isolate"},
                       {"stages", stages},
                       {"flags", flags}};
  auto e = schema("task-run").errors(report);
  EXPECT_TRUE(e.empty()) << joined(e);
  ASSERT_EQ(flags.size(), 2u) << flags.dump(1);
  EXPECT_EQ(flags[1]["stages"], json({"test", "benchmark"}));
  json bad = report;
  bad["flags"].push_back(json{{"check", "timing_gap"}});  // no detail
  EXPECT_FALSE(schema("task-run").errors(bad).empty());
}

TEST(ReportSchemaValidator, CatchesWhatItClaimsTo) {
  SchemaValidator v(json::parse(R"({
    "type": "object", "required": ["a", "b"],
    "properties": {
      "a": {"type": "integer", "enum": [1, 2]},
      "b": {"type": "array", "items": {"$ref": "#/$defs/s"}},
      "m": {"type": "object", "additionalProperties": {"type": ["number", "null"]}}
    },
    "$defs": {"s": {"type": "string"}}
  })"));
  EXPECT_TRUE(v.errors(json::parse(R"({"a": 1, "b": ["x"], "m": {"k": null, "j": 2.5}})")).empty());
  EXPECT_EQ(v.errors(json::parse(R"({"a": 1})")).size(), 1u) << "missing b";
  EXPECT_EQ(v.errors(json::parse(R"({"a": 3, "b": []})")).size(), 1u) << "a not in enum";
  EXPECT_EQ(v.errors(json::parse(R"({"a": 1.5, "b": []})")).size(), 1u) << "a not an integer";
  EXPECT_EQ(v.errors(json::parse(R"({"a": 1, "b": ["x", 2]})")).size(), 1u) << "item via $ref";
  EXPECT_EQ(v.errors(json::parse(R"({"a": 1, "b": [], "m": {"k": "s"}})")).size(), 1u)
      << "additionalProperties";
  EXPECT_EQ(v.errors(json::parse("[]")).size(), 1u) << "not an object";
}

// generation.jsonl lines come from to_json(GenRecord); a record with a parse error and a
// multi-turn one cover the optional parts.
TEST(ReportSchemaValidator, GenerationLinesMatchTheirSchema) {
  SchemaValidator v = schema("generation");
  GenRecord r;
  r.task_id = "CUDA/3";
  r.sample = 2;
  r.model = "m";
  r.raw_answer = "```cuda\n__global__ void k() {}\n```";
  r.files = {{"solution.cu", "__global__ void k() {}"}};
  r.finish_reason = "stop";
  r.usage = {10, 20};
  r.attempts = 1;
  r.seconds = 0.5;
  EXPECT_TRUE(v.errors(to_json(r)).empty()) << joined(v.errors(to_json(r)));
  GenTurn t;
  t.raw_answer = "no code";
  t.parse_error = "no code block";
  t.verdict = "build_error";
  t.feedback = "fix it";
  r.turns = {t, t};
  r.parse_error = "no code block";
  EXPECT_TRUE(v.errors(to_json(r)).empty()) << joined(v.errors(to_json(r)));
  json broken = to_json(r);
  broken["files"][0].erase("content");
  EXPECT_FALSE(v.errors(broken).empty());
}

TEST(ReportSchemaValidator, TheFixturesHaveTheShapeOfRealRuns) {
  for (const char* run : {"run-a", "run-b"}) {
    const fs::path d = kSource / "tests/fixtures/report" / run;
    expect_valid("run", d / "run.json");
    expect_valid("summary", d / "summary.json");
    EXPECT_EQ(expect_valid("result", d / "results.jsonl"), 19);
    EXPECT_GT(expect_valid("perf", d / "perf.jsonl"), 5);
    expect_valid("perf-conditions", d / "perf-conditions.json");
  }
}

class ReportSchemaRealOutputs : public ::testing::Test {
 protected:
  void SetUp() override {
    if (testing::run_capture("command -v nvcc || test -x /usr/local/cuda/bin/nvcc").rc != 0)
      GTEST_SKIP() << "nvcc not installed";
  }
  testing::CmdResult sh(const std::string& command) {
    return testing::run_capture("cd '" + kSource.string() + "' && PATH=$PATH:/usr/local/cuda/bin " +
                                command);
  }
  std::string common() const {
    return " -q --cache-dir " + (fs::path(kBin).parent_path() / "test-cache").string() +
           " --work-dir " + (dir_ / "work").string();
  }
  testing::TempDir dir_;
};

TEST_F(ReportSchemaRealOutputs, ValidateAndEvaluateOfTheExamplePack) {
  auto v = sh(kBin + " validate examples/pack --task example/prefix_sum --out " +
              (dir_ / "v").string() + common());
  ASSERT_EQ(v.rc, 0) << v.out;
  // Passes, a test failure, a crash, a build error and a flood of output.
  auto e = sh(kBin +
              " evaluate --problems examples/pack --solutions examples/solutions -k 1,2"
              " --task example/prefix_sum --task example/float4_math --out " +
              (dir_ / "e").string() + common());
  ASSERT_EQ(e.rc, 0) << e.out;
  for (const char* run : {"v", "e"}) {
    expect_valid("run", dir_ / run / "run.json");
    expect_valid("summary", dir_ / run / "summary.json");
    EXPECT_GT(expect_valid("result", dir_ / run / "results.jsonl"), 0);
  }
  for (const auto& j : testing::read_jsonl(dir_ / "e/results.jsonl"))
    EXPECT_EQ(j.value("schema_version", 0), 1) << "every results line carries its version";
}

TEST_F(ReportSchemaRealOutputs, CommandOutputsOnStdout) {
  // problems list --json: a bare array whose every element carries its version.
  auto list = sh(kBin + " problems list examples/pack --json");
  ASSERT_EQ(list.rc, 0) << list.out;
  json arr = json::parse(list.out, nullptr, false);
  ASSERT_TRUE(arr.is_array() && !arr.empty()) << list.out;
  SchemaValidator brief = schema("problem-brief");
  for (const auto& p : arr) {
    auto e = brief.errors(p);
    EXPECT_TRUE(e.empty()) << p.dump() << ":\n" << joined(e);
  }
  // doctor --json works without a GPU (its checks say so).
  auto doctor = sh(kBin + " doctor --json --no-probe");
  json d = json::parse(doctor.out, nullptr, false);
  ASSERT_TRUE(d.is_object()) << doctor.out;
  auto de = schema("doctor").errors(d);
  EXPECT_TRUE(de.empty()) << joined(de);
  // problems verify --json, on a packed copy of the example pack (verify checks a datapack).
  const fs::path pack = dir_ / "example.tar.gz";
  auto packed = sh(kBin + " problems pack examples/pack -o " + pack.string());
  ASSERT_EQ(packed.rc, 0) << packed.out;
  auto verify = sh(kBin + " problems verify " + pack.string() + " --json");
  EXPECT_EQ(verify.rc, 0) << verify.out;
  json vj = json::parse(verify.out, nullptr, false);
  ASSERT_TRUE(vj.is_object()) << verify.out;
  auto ve = schema("pack-verify").errors(vj);
  EXPECT_TRUE(ve.empty()) << joined(ve);
  EXPECT_EQ(vj["ok"], true);
}

TEST_F(ReportSchemaRealOutputs, BenchmarkOutputs) {
  // A host-only problem timed in custom mode (no GPU needed): the program reports its time.
  const fs::path p = dir_ / "problems/timed";
  testing::write_text(p / "problem-spec.yaml",
                      "type: cuda_cpp\nschema_version: 2\ntask_id: bench/timed\ndate: "
                      "\"2026-11-23\"\nprompt: Return 42.\nmetadata: {difficulty: easy, "
                      "host_only: true}\ngroup: bench\nsource_references: null\nbuild_command: "
                      "cc -o test.out solution.c test/main.c\ntest_command: ./test.out\n"
                      "benchmark_command: ./test.out --perf\ntiming_mode: {type: custom}\n"
                      "min_cuda_toolkit: null\ncompute_capability: null\n"
                      "requires_datacenter_gpu: false\ntimeout_seconds: 20.0\n");
  testing::write_text(p / "test/main.c",
                      "#include <stdio.h>\nint solve(void);\nconst char* ms(void);\n"
                      "int main(int argc, char** argv) {\n  if (argc > 1) { "
                      "printf(\"COMPUTE_EVAL_TIME_MS: %s\\n\", ms()); return 0; }\n"
                      "  return solve() == 42 ? 0 : 1;\n}\n");
  testing::write_text(p / "solution/solution.c",
                      "int solve(void) { return 42; }\nconst char* ms(void) { return \"10\"; }\n");
  for (const auto& [name, sample, body] :
       {std::tuple{"fast", 0, "return \"4\";"}, std::tuple{"slow", 1, "return \"20\";"}}) {
    testing::write_text(dir_ / "solutions" / name / "solution-spec.yaml",
                        "task_id: bench/timed\nsample: " + std::to_string(sample) + "\n");
    testing::write_text(
        dir_ / "solutions" / name / "solution.c",
        std::string("int solve(void) { return 42; }\nconst char* ms(void) { ") + body + " }\n");
  }
  auto r = sh(kBin + " evaluate --problems " + (dir_ / "problems").string() + " --solutions " +
              (dir_ / "solutions").string() + " --benchmark --runs 3 --out " +
              (dir_ / "b").string() + common());
  ASSERT_EQ(r.rc, 0) << r.out;
  EXPECT_EQ(expect_valid("perf", dir_ / "b/perf.jsonl"), 2);
  expect_valid("perf-conditions", dir_ / "b/perf-conditions.json");
  expect_valid("summary", dir_ / "b/summary.json");
  EXPECT_TRUE(read_json(dir_ / "b/summary.json").contains("performance"));
}

TEST_F(ReportSchemaRealOutputs, TaskBuild) {
  auto ok = sh(kBin +
               " task build examples/tasks/vectoradd examples/tasks/vectoradd/submissions/"
               "naive.cu -q --cache-dir " +
               (fs::path(kBin).parent_path() / "test-cache").string() + " --out " +
               (dir_ / "t").string());
  ASSERT_EQ(ok.rc, 0) << ok.out;
  expect_valid("task-run", dir_ / "t/task-run.json");
  testing::write_text(dir_ / "bad.cu", "#include \"task.h\"\nint oops = ;\n");
  auto bad = sh(kBin + " task build examples/tasks/vectoradd " + (dir_ / "bad.cu").string() +
                " -q --no-cache --out " + (dir_ / "t2").string());
  EXPECT_EQ(bad.rc, 1) << bad.out;
  expect_valid("task-run", dir_ / "t2/task-run.json");
}

}  // namespace
}  // namespace kjudge
