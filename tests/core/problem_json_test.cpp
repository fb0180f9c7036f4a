#include "core/problem_json.h"

#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "test_util.h"

namespace kjudge {
namespace {

using kjudge::testing::expect_input_error;

using nlohmann::json;

Problem full_problem() {
  Problem p;
  p.type = "cuda_python";
  p.schema_version = 2;
  p.task_id = "CUDA/7";
  p.date = "2025-10-31";
  p.prompt = "Write `add`.\n\nUse \"cub\": it's\tfast. Ünïcödé ✓";
  p.group = "cccl";
  p.difficulty = "hard";
  p.tags = {"cub", "reduction"};
  p.releases = {"2025-2", "2025-3"};
  p.do_not_release = true;
  p.host_only = true;
  p.context_files = {{"include/add.h", "#pragma once\nvoid add();\n"}, {"helpers.h", ""}};
  p.test_files = {{"test/main.cu", "int main() {}\n"}};
  p.source_references = SourceReferences{{"cub::DeviceReduce"}, {"cudaMalloc", "cudaFree"}};
  p.build_command = "nvcc -o test.out solution.cu test/*.cu";
  p.test_command = "./test.out";
  p.benchmark_command = "./test.out --perf";
  p.timing_mode.type = "region";
  p.timing_mode.include = {"bench_region"};
  p.timing_mode.exclude = {"warmup*"};
  p.timing_mode.time_type = "wall_clock";
  p.min_cuda_toolkit = "12.4";
  p.compute_capability = "9.0";
  p.requires_datacenter_gpu = true;
  p.timeout_seconds = 12.5;
  Solution baseline;
  baseline.task_id = "CUDA/7";
  baseline.files = {{"solution.cu", "void add() {}\n"}};
  p.baseline_solution = baseline;
  return p;
}

json minimal_json() {
  return json::parse(R"({"type":"cuda_cpp","task_id":"CUDA/1","date":"2025-01-01",
    "prompt":"p","metadata":{},"group":"cuda-kernels","test_command":"./t"})");
}

// Runs f, expecting an InputError; returns it for inspection.
InputError problem_error(const json& j) {
  return expect_input_error([&] { problem_from_json(j, "pack:problems.jsonl", 7); });
}

TEST(ProblemJson, FullProblemKeepsEveryField) {
  const Problem in = full_problem();
  const Problem out = problem_from_json(json::parse(problem_to_json_line(in)), "f", 1);
  EXPECT_EQ(out.type, in.type);
  EXPECT_EQ(out.schema_version, in.schema_version);
  EXPECT_EQ(out.task_id, in.task_id);
  EXPECT_EQ(out.date, in.date);
  EXPECT_EQ(out.prompt, in.prompt);
  EXPECT_EQ(out.group, in.group);
  EXPECT_EQ(out.difficulty, in.difficulty);
  EXPECT_EQ(out.tags, in.tags);
  EXPECT_EQ(out.releases, in.releases);
  EXPECT_EQ(out.do_not_release, in.do_not_release);
  EXPECT_EQ(out.host_only, in.host_only);
  ASSERT_EQ(out.context_files.size(), 2u);
  EXPECT_EQ(out.context_files[0].path, "include/add.h");
  EXPECT_EQ(out.context_files[0].content, in.context_files[0].content);
  EXPECT_EQ(out.context_files[1].content, "");
  ASSERT_EQ(out.test_files.size(), 1u);
  EXPECT_EQ(out.test_files[0].path, "test/main.cu");
  ASSERT_TRUE(out.source_references);
  EXPECT_EQ(out.source_references->all, in.source_references->all);
  EXPECT_EQ(out.source_references->any, in.source_references->any);
  EXPECT_EQ(out.build_command, in.build_command);
  EXPECT_EQ(out.test_command, in.test_command);
  EXPECT_EQ(out.benchmark_command, in.benchmark_command);
  EXPECT_EQ(out.timing_mode.type, "region");
  EXPECT_EQ(out.timing_mode.include, in.timing_mode.include);
  EXPECT_EQ(out.timing_mode.exclude, in.timing_mode.exclude);
  EXPECT_EQ(out.timing_mode.time_type, "wall_clock");
  EXPECT_EQ(out.min_cuda_toolkit, in.min_cuda_toolkit);
  EXPECT_EQ(out.compute_capability, in.compute_capability);
  EXPECT_EQ(out.requires_datacenter_gpu, true);
  EXPECT_EQ(out.timeout_seconds, 12.5);
  ASSERT_TRUE(out.baseline_solution);
  EXPECT_EQ(out.baseline_solution->task_id, "CUDA/7");
  ASSERT_EQ(out.baseline_solution->files.size(), 1u);
  EXPECT_EQ(out.baseline_solution->files[0].path, "solution.cu");
  EXPECT_EQ(out.baseline_solution->files[0].content, "void add() {}\n");
}

TEST(ProblemJson, KeyOrderFollowsComputeEval) {
  const auto j = problem_to_json(full_problem());
  std::vector<std::string> keys;
  for (const auto& [key, value] : j.items()) keys.push_back(key);
  const std::vector<std::string> expected = {"type",
                                             "schema_version",
                                             "task_id",
                                             "date",
                                             "prompt",
                                             "metadata",
                                             "group",
                                             "context_files",
                                             "test_files",
                                             "source_references",
                                             "build_command",
                                             "test_command",
                                             "benchmark_command",
                                             "timing_mode",
                                             "min_cuda_toolkit",
                                             "compute_capability",
                                             "requires_datacenter_gpu",
                                             "timeout_seconds",
                                             "baseline_solution"};
  EXPECT_EQ(keys, expected);
  std::vector<std::string> baseline_keys;
  for (const auto& [key, value] : j["baseline_solution"].items()) baseline_keys.push_back(key);
  EXPECT_EQ(baseline_keys,
            (std::vector<std::string>{"schema_version", "type", "task_id", "files"}));
  EXPECT_EQ(j["source_references"].dump(),
            R"({"any":["cudaMalloc","cudaFree"],"all":["cub::DeviceReduce"]})");
}

TEST(ProblemJson, NullOptionalsAreLeftOut) {
  const Problem p = problem_from_json(minimal_json(), "f", 1);
  const auto j = problem_to_json(p);
  for (const char* key : {"build_command", "benchmark_command", "min_cuda_toolkit",
                          "timeout_seconds", "baseline_solution", "source_references"}) {
    EXPECT_FALSE(j.contains(key)) << key;
  }
  EXPECT_FALSE(j["metadata"].contains("difficulty"));
  EXPECT_FALSE(j["metadata"].contains("host_only"));
  EXPECT_EQ(j["timing_mode"].dump(), R"({"type":"process"})");
  // Absent compute_capability means "8.0" to ComputeEval, so it is written even when "8.0".
  EXPECT_EQ(j["compute_capability"], "8.0");
  Problem unset = p;
  unset.compute_capability.reset();
  EXPECT_TRUE(problem_to_json(unset)["compute_capability"].is_null());
  EXPECT_FALSE(problem_from_json(json::parse(problem_to_json(unset).dump()), "f", 1)
                   .compute_capability.has_value());
}

TEST(ProblemJson, DefaultsFollowComputeEval) {
  const Problem p = problem_from_json(minimal_json(), "f", 1);
  EXPECT_EQ(p.schema_version, 2);
  EXPECT_EQ(p.timing_mode.type, "process");
  EXPECT_EQ(p.compute_capability, "8.0");
  EXPECT_FALSE(p.requires_datacenter_gpu);
  EXPECT_FALSE(p.timeout_seconds);
  EXPECT_EQ(p.timeout_or_default(), 60.0);
  EXPECT_TRUE(p.context_files.empty());
  EXPECT_FALSE(p.source_references);
  EXPECT_EQ(p.difficulty, "");
}

TEST(ProblemJson, NullMeansAbsent) {
  json j = minimal_json();
  for (const char* key : {"build_command", "benchmark_command", "min_cuda_toolkit",
                          "compute_capability", "timeout_seconds", "baseline_solution",
                          "source_references", "context_files", "timing_mode"}) {
    j[key] = nullptr;
  }
  j["metadata"]["difficulty"] = nullptr;
  j["metadata"]["tags"] = nullptr;
  const Problem p = problem_from_json(j, "f", 1);
  EXPECT_FALSE(p.build_command);
  EXPECT_FALSE(p.compute_capability);  // explicit null, unlike absence
  EXPECT_EQ(p.timing_mode.type, "process");
  EXPECT_TRUE(p.tags.empty());
}

TEST(ProblemJson, SourceReferenceForms) {
  json j = minimal_json();
  j["source_references"] = "cudaMalloc";
  auto p = problem_from_json(j, "f", 1);
  EXPECT_EQ(p.source_references->all, std::vector<std::string>{"cudaMalloc"});
  j["source_references"] = {"a", "b"};
  p = problem_from_json(j, "f", 1);
  EXPECT_EQ(p.source_references->all, (std::vector<std::string>{"a", "b"}));
  EXPECT_TRUE(p.source_references->any.empty());
  j["source_references"] = json::parse(R"({"any":["x","y"],"all":null})");
  p = problem_from_json(j, "f", 1);
  EXPECT_EQ(p.source_references->any, (std::vector<std::string>{"x", "y"}));
  EXPECT_TRUE(p.source_references->all.empty());
  EXPECT_EQ(problem_to_json(p)["source_references"].dump(), R"({"any":["x","y"],"all":null})");
  j["source_references"] = 5;
  const auto e = problem_error(j);
  EXPECT_EQ(e.field(), "source_references");
}

TEST(ProblemJson, TimingModes) {
  json j = minimal_json();
  j["timing_mode"] = json::parse(R"({"type":"region","include":["r"],"exclude":null})");
  auto p = problem_from_json(j, "f", 1);
  EXPECT_EQ(p.timing_mode.time_type, "kernel");  // ComputeEval's default for region
  EXPECT_EQ(p.timing_mode.include, std::vector<std::string>{"r"});
  j["timing_mode"] = json::parse(R"({"type":"kernels"})");
  EXPECT_EQ(problem_from_json(j, "f", 1).timing_mode.time_type, "");
  j["timing_mode"] = json::parse(R"({"type":"fastest"})");
  auto e = problem_error(j);
  EXPECT_EQ(e.field(), "timing_mode.type");
  EXPECT_NE(e.reason().find("fastest"), std::string::npos);
  j["timing_mode"] = json::parse(R"({"type":"region","time_type":"cpu"})");
  EXPECT_EQ(problem_error(j).field(), "timing_mode.time_type");
  j["timing_mode"] = json::parse(R"({"include":[]})");
  e = problem_error(j);
  EXPECT_EQ(e.field(), "timing_mode.type");
  EXPECT_EQ(e.reason(), "missing required field");
}

TEST(ProblemJson, MissingFieldNamesFileLineAndField) {
  json j = minimal_json();
  j.erase("task_id");
  const auto e = problem_error(j);
  EXPECT_EQ(e.file(), "pack:problems.jsonl");
  EXPECT_EQ(e.line(), 7);
  EXPECT_EQ(e.field(), "task_id");
  EXPECT_EQ(e.reason(), "missing required field");
  EXPECT_EQ(std::string(e.what()),
            "pack:problems.jsonl:7: field 'task_id': missing required field");
  for (const char* key : {"type", "date", "prompt", "metadata", "group", "test_command"}) {
    json k = minimal_json();
    k.erase(key);
    EXPECT_EQ(problem_error(k).field(), key);
  }
}

TEST(ProblemJson, WrongTypesNameTheNestedField) {
  json j = minimal_json();
  j["metadata"]["tags"] = {"ok", 3};
  auto e = problem_error(j);
  EXPECT_EQ(e.field(), "metadata.tags[1]");
  EXPECT_EQ(e.reason(), "expected string, got number");

  j = minimal_json();
  j["task_id"] = 12;
  EXPECT_EQ(problem_error(j).reason(), "expected string, got number");

  j = minimal_json();
  j["requires_datacenter_gpu"] = "yes";
  e = problem_error(j);
  EXPECT_EQ(e.field(), "requires_datacenter_gpu");
  EXPECT_EQ(e.reason(), "expected boolean, got string");

  j = minimal_json();
  j["test_files"] = json::parse(R"([{"path":"test/a.cu","content":"x"},{"path":"test/b.cu"}])");
  e = problem_error(j);
  EXPECT_EQ(e.field(), "test_files[1].content");
  EXPECT_EQ(e.reason(), "missing required field");

  j = minimal_json();
  j["baseline_solution"] = json::parse(R"({"type":"file","task_id":"CUDA/1","files":"x"})");
  EXPECT_EQ(problem_error(j).field(), "baseline_solution.files");

  j = minimal_json();
  j["metadata"] = "easy";
  e = problem_error(j);
  EXPECT_EQ(e.field(), "metadata");
  EXPECT_EQ(e.reason(), "expected object, got string");

  j = minimal_json();
  j["timeout_seconds"] = -1;
  EXPECT_EQ(problem_error(j).field(), "timeout_seconds");

  e = problem_error(json::array());
  EXPECT_EQ(e.field(), "");
  EXPECT_EQ(e.reason(), "expected object, got array");
}

TEST(ProblemJson, SchemaVersions) {
  json j = minimal_json();
  j["schema_version"] = 3;
  j.erase("task_id");  // the version is reported before anything else
  const auto e = problem_error(j);
  EXPECT_EQ(e.field(), "schema_version");
  EXPECT_NE(e.reason().find("unsupported problem schema_version 3"), std::string::npos);
  j = minimal_json();
  j["schema_version"] = 1;
  EXPECT_EQ(problem_from_json(j, "f", 1).schema_version, 1);
  j["schema_version"] = 2.0;
  EXPECT_EQ(problem_from_json(j, "f", 1).schema_version, 2);
  j["schema_version"] = "2";
  EXPECT_EQ(problem_error(j).reason(), "expected integer, got string");
}

TEST(ProblemJson, UnknownTypeAndExtraKeys) {
  json j = minimal_json();
  j["type"] = "cuda_fortran";
  EXPECT_EQ(problem_error(j).field(), "type");
  j = minimal_json();
  j["some_future_key"] = {1, 2};  // ComputeEval ignores unknown keys
  j["metadata"]["reviewer"] = "x";
  EXPECT_NO_THROW(problem_from_json(j, "f", 1));
}

TEST(ProblemJson, UnsafeFilePathsAreRejected) {
  for (const char* path : {"../escape.h", "/etc/passwd", "", "a/../../b"}) {
    json j = minimal_json();
    j["context_files"] = {{{"path", path}, {"content", "x"}}};
    const auto e = problem_error(j);
    EXPECT_EQ(e.field(), "context_files[0].path") << path;
  }
  json j = minimal_json();
  j["context_files"] = {{{"path", "a/..b/c..d"}, {"content", "x"}}};
  EXPECT_NO_THROW(problem_from_json(j, "f", 1));
}

TEST(ProblemJson, HostOnlyExtension) {
  json j = minimal_json();
  j["metadata"]["host_only"] = true;
  const Problem p = problem_from_json(j, "f", 1);
  EXPECT_TRUE(p.host_only);
  EXPECT_EQ(problem_to_json(p)["metadata"]["host_only"], true);
}

TEST(SolutionJson, ReadsFileSolutionsAndSamples) {
  const json j = json::parse(
      R"({"schema_version":1,"type":"file","task_id":"CUDA/3","files":[{"path":"s.cu","content":"x"}],
          "sample":4,"model":"whatever"})");
  const Solution s = solution_from_json(j, "f", 2);
  EXPECT_EQ(s.task_id, "CUDA/3");
  EXPECT_EQ(s.sample, 4);
  ASSERT_EQ(s.files.size(), 1u);
  EXPECT_TRUE(solution_has_sample(j));
  json no_sample = j;
  no_sample.erase("sample");
  EXPECT_FALSE(solution_has_sample(no_sample));
  EXPECT_EQ(solution_from_json(no_sample, "f", 2).sample, 0);

  const auto out = solution_to_json(s);
  std::vector<std::string> keys;
  for (const auto& [key, value] : out.items()) keys.push_back(key);
  EXPECT_EQ(keys,
            (std::vector<std::string>{"schema_version", "type", "task_id", "files", "sample"}));
  EXPECT_FALSE(solution_to_json(s, false).contains("sample"));
  EXPECT_EQ(
      solution_to_json_line(s),
      R"({"schema_version":1,"type":"file","task_id":"CUDA/3","files":[{"path":"s.cu","content":"x"}],"sample":4})");
}

TEST(SolutionJson, Errors) {
  auto error = [](const char* text) {
    return expect_input_error([&] { solution_from_json(json::parse(text), "sols", 9); });
  };
  auto e = error(R"({"type":"patch","task_id":"CUDA/1","patch":"--- a"})");
  EXPECT_EQ(e.field(), "type");
  EXPECT_EQ(e.line(), 9);
  EXPECT_NE(e.reason().find("patch"), std::string::npos);
  EXPECT_EQ(error(R"({"type":"diff","task_id":"CUDA/1"})").field(), "type");
  EXPECT_EQ(error(R"({"type":"file"})").field(), "task_id");
  EXPECT_EQ(error(R"({"type":"file","task_id":"T","schema_version":2})").field(), "schema_version");
  EXPECT_EQ(error(R"({"type":"file","task_id":"T","sample":-1})").field(), "sample");
  EXPECT_EQ(error(R"({"type":"file","task_id":"T","sample":"one"})").reason(),
            "expected integer, got string");
}

TEST(SolutionJson, KeepsPathsThatLeaveTheWorkspaceForTheJudgeToReject) {
  // A model's bad path is a verdict (invalid_solution), not a pack that fails to load.
  auto j = json::parse(R"({"type":"file","task_id":"T","files":[{"path":"../x","content":""}]})");
  Solution s = solution_from_json(j, "s.jsonl", 1);
  ASSERT_EQ(s.files.size(), 1u);
  EXPECT_EQ(s.files[0].path, "../x");
}

TEST(ParseJsonText, ReportsLineAndAcceptsRawControlCharacters) {
  const auto e = expect_input_error([] { parse_json_text("{\"a\": tru}", "x.jsonl", 3); });
  EXPECT_EQ(e.file(), "x.jsonl");
  EXPECT_EQ(e.line(), 3);
  EXPECT_EQ(e.reason().rfind("invalid JSON: column", 0), 0u) << e.reason();
  // Python's json.loads(strict=False), which ComputeEval uses, takes raw tabs and newlines.
  const json j = parse_json_text("{\"a\": \"x\ty\nz\\\"\"}", "x.jsonl", 1);
  EXPECT_EQ(j["a"], "x\ty\nz\"");
}

}  // namespace
}  // namespace kjudge
