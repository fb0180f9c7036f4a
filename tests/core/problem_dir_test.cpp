#include "core/problem_dir.h"

#include <gtest/gtest.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include "bounded_child.h"
#include "core/problem_json.h"
#include "test_util.h"

namespace kjudge {
namespace {

using kjudge::testing::canon;

using kjudge::testing::expect_input_error;

namespace fs = std::filesystem;

using kjudge::testing::TempDir;

void write_file(const fs::path& path, const std::string& data) {
  fs::create_directories(path.parent_path());
  std::ofstream(path, std::ios::binary) << data;
}

std::string read_file(const fs::path& path) {
  std::ifstream in(path, std::ios::binary);
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

Problem full_problem(const std::string& task_id = "CUDA/42") {
  Problem p;
  p.task_id = task_id;
  p.date = "2025-10-31";
  p.prompt = "Implement `scan`.\n\n```cuda\n  __global__ void scan();\n```\nThat's all: go.";
  p.group = "cuda-kernels";
  p.difficulty = "medium";
  p.tags = {"scan", "null", "9.0", "a: b", "# not a comment"};
  p.releases = {"2025-2", "2025-3"};
  p.host_only = true;
  p.context_files = {{"include/scan.h", "#pragma once\nvoid scan();\n"},
                     {"helpers/util.cuh", "// util\n"}};
  p.test_files = {{"test/main.cu", "int main() {}\n"}, {"test/data/input.txt", "1 2 3"}};
  p.source_references = SourceReferences{{"__syncthreads"}, {"cub::BlockScan", "__shfl_up_sync"}};
  p.build_command = "nvcc -I include -o test.out solution.cu test/*.cu -arch=native";
  p.test_command = "./test.out";
  p.benchmark_command = "./test.out --perf";
  p.timing_mode = TimingMode{"region", {"bench_region"}, {"warm*"}, "wall_clock"};
  p.min_cuda_toolkit = "12.0";
  p.compute_capability = "9.0";
  p.requires_datacenter_gpu = true;
  p.timeout_seconds = 90.0;
  Solution s;
  s.task_id = task_id;
  s.files = {{"solution.cu", "#include \"scan.h\"\nvoid scan() {}\n"}, {"sub/x.h", ""}};
  p.baseline_solution = s;
  return p;
}

TEST(ProblemDir, RoundTripKeepsEveryField) {
  TempDir tmp;
  const Problem in = full_problem();
  const fs::path dir = tmp / "scan";
  write_problem_dir(in, dir);
  EXPECT_TRUE(fs::is_regular_file(dir / "problem-spec.yaml"));
  EXPECT_EQ(read_file(dir / "context/include/scan.h"), in.context_files[0].content);
  EXPECT_EQ(read_file(dir / "test/main.cu"), "int main() {}\n");
  EXPECT_EQ(read_file(dir / "test/data/input.txt"), "1 2 3");
  EXPECT_EQ(read_file(dir / "solution/solution.cu"), in.baseline_solution->files[0].content);
  EXPECT_TRUE(fs::is_regular_file(dir / "solution/sub/x.h"));
  const std::string spec = read_file(dir / "problem-spec.yaml");
  EXPECT_NE(spec.find("prompt: |-\n  Implement `scan`.\n\n  ```cuda\n"), std::string::npos) << spec;
  EXPECT_EQ(spec.find("context_files"), std::string::npos);

  const Problem out = load_problem_dir(dir);
  EXPECT_EQ(canon(out), canon(in));
  EXPECT_TRUE(out.host_only);
  EXPECT_EQ(out.timing_mode.time_type, "wall_clock");
  EXPECT_EQ(out.timeout_seconds, 90.0);
  ASSERT_TRUE(out.baseline_solution);
  EXPECT_EQ(out.baseline_solution->task_id, "CUDA/42");
}

TEST(ProblemDir, AwkwardStringsRoundTrip) {
  const std::vector<std::string> prompts = {"",
                                            "null",
                                            "~",
                                            "true",
                                            "9.0",
                                            "-1",
                                            "  leading",
                                            "trailing  ",
                                            "line\n",
                                            "two\n\n",
                                            "\nfirst",
                                            "  indented\nblock\n",
                                            "tab\tinside\nx",
                                            "cr\r\nlf",
                                            "quote \" and \\ back",
                                            "ünïcode ✓\nnext",
                                            "#hash",
                                            "key: value",
                                            "- dash",
                                            "line\n  \n  spaces-only line",
                                            "\x01 control",
                                            "a\n\n\n"};
  TempDir tmp;
  int i = 0;
  for (const std::string& prompt : prompts) {
    Problem p = full_problem();
    p.prompt = prompt;
    p.test_command = prompt.empty() ? "x" : prompt;
    p.tags = {prompt};
    const fs::path dir = tmp / ("p" + std::to_string(i++));
    write_problem_dir(p, dir);
    EXPECT_EQ(load_problem_dir(dir).prompt, prompt) << read_file(dir / "problem-spec.yaml");
    EXPECT_EQ(canon(load_problem_dir(dir)), canon(p));
  }
}

TEST(ProblemDir, MinimalProblemHasNoBaseline) {
  TempDir tmp;
  Problem p;
  p.task_id = "T/1";
  p.date = "2025-01-01";
  p.prompt = "p";
  p.group = "cccl";
  p.test_command = "true";
  p.compute_capability.reset();
  write_problem_dir(p, tmp / "t");
  EXPECT_FALSE(fs::exists(tmp / "t" / "solution"));
  const Problem out = load_problem_dir(tmp / "t");
  EXPECT_FALSE(out.baseline_solution);
  EXPECT_FALSE(out.compute_capability);  // written as null, not left to the "8.0" default
  EXPECT_EQ(canon(out), canon(p));
}

TEST(ProblemDir, WriteRefusesTestFilesOutsideTest) {
  TempDir tmp;
  Problem p = full_problem();
  p.test_files.push_back({"main_test.cu", "x"});
  const auto e = expect_input_error([&] { write_problem_dir(p, tmp / "d"); });
  EXPECT_EQ(e.field(), "test_files[2].path");
  EXPECT_NE(e.reason().find("test/"), std::string::npos);
  EXPECT_FALSE(fs::exists(tmp / "d"));  // nothing written

  p = full_problem();
  p.context_files.push_back({"../../etc/x", "x"});
  EXPECT_EQ(expect_input_error([&] { write_problem_dir(p, tmp / "d"); }).field(),
            "context_files[2].path");
  p = full_problem();
  p.context_files.push_back({"include/./scan.h", "dup"});
  EXPECT_THROW(write_problem_dir(p, tmp / "d"), InputError);

  write_file(tmp / "full" / "x", "x");
  EXPECT_THROW(write_problem_dir(full_problem(), tmp / "full"), InputError);
}

const char* kGoodSpec =
    "type: cuda_cpp\n"
    "task_id: CUDA/5\n"
    "date: 2025-10-31\n"
    "prompt: |\n"
    "  Do it.\n"
    "metadata:\n"
    "  difficulty: easy\n"
    "  tags: [a, b]\n"
    "  host_only: yes\n"
    "group: cccl\n"
    "test_command: ./t\n"
    "compute_capability: 9.0\n"
    "min_cuda_toolkit: 12.6\n"
    "timeout_seconds: 30\n"
    "requires_datacenter_gpu: true\n";

TEST(ProblemDir, HandWrittenSpecUsesFieldTypes) {
  TempDir tmp;
  std::string spec = kGoodSpec;
  spec.replace(spec.find("host_only: yes"), 14, "host_only: True");
  write_file(tmp / "p" / "problem-spec.yaml", spec);
  write_file(tmp / "p" / "test" / "t.cu", "t");
  const Problem p = load_problem_dir(tmp / "p");
  EXPECT_EQ(p.date, "2025-10-31");
  EXPECT_EQ(p.compute_capability, "9.0");
  EXPECT_EQ(p.min_cuda_toolkit, "12.6");
  EXPECT_EQ(p.timeout_seconds, 30.0);
  EXPECT_TRUE(p.requires_datacenter_gpu);
  EXPECT_TRUE(p.host_only);
  EXPECT_EQ(p.prompt, "Do it.\n");
  EXPECT_EQ(p.tags, (std::vector<std::string>{"a", "b"}));
  EXPECT_EQ(p.schema_version, 2);
  ASSERT_EQ(p.test_files.size(), 1u);
  EXPECT_EQ(p.test_files[0].path, "test/t.cu");
}

TEST(ProblemDir, ErrorsNameFileLineAndField) {
  TempDir tmp;
  const fs::path spec_path = tmp / "p" / "problem-spec.yaml";
  auto error_for = [&](const std::string& spec) {
    write_file(spec_path, spec);
    return expect_input_error([&] { load_problem_dir(tmp / "p"); });
  };

  // kGoodSpec's "host_only: yes" is not a YAML 1.2 boolean: line 9.
  InputError e = error_for(kGoodSpec);
  EXPECT_EQ(e.file(), spec_path.string());
  EXPECT_EQ(e.line(), 9);
  EXPECT_EQ(e.field(), "metadata.host_only");
  EXPECT_EQ(e.reason(), "expected boolean, got string");

  std::string spec = kGoodSpec;
  spec.replace(spec.find("timeout_seconds: 30"), 19, "timeout_seconds: soon");
  spec.replace(spec.find("host_only: yes"), 14, "host_only: false");
  e = error_for(spec);
  EXPECT_EQ(e.line(), 14);
  EXPECT_EQ(e.field(), "timeout_seconds");
  EXPECT_EQ(e.reason(), "expected number, got string");

  spec = kGoodSpec;
  spec.replace(spec.find("host_only: yes"), 14, "host_only: false");
  spec.replace(spec.find("test_command: ./t\n"), 18, "");
  e = error_for(spec);
  EXPECT_EQ(e.field(), "test_command");
  EXPECT_EQ(e.reason(), "missing required field");

  spec = kGoodSpec;
  spec.replace(spec.find("  tags: [a, b]"), 14, "  tags: [a, [b]]");
  e = error_for(spec);
  EXPECT_EQ(e.line(), 8);
  EXPECT_EQ(e.field(), "metadata.tags[1]");

  e = error_for("type: cuda_cpp\ntask_id: [unclosed\ndate: x\n");
  EXPECT_EQ(e.file(), spec_path.string());
  EXPECT_GT(e.line(), 1);
  EXPECT_NE(e.reason().find("invalid YAML"), std::string::npos);

  e = error_for(std::string(kGoodSpec) + "timeout: 5\n");
  EXPECT_EQ(e.line(), 16);
  EXPECT_EQ(e.field(), "timeout");
  EXPECT_EQ(e.reason(), "unknown field");

  e = error_for(std::string(kGoodSpec) + "test_files: []\n");
  EXPECT_EQ(e.field(), "test_files");
  EXPECT_NE(e.reason().find("test/"), std::string::npos);

  e = error_for("type: cuda_cpp\ntype: cuda_python\n");
  EXPECT_EQ(e.line(), 2);
  EXPECT_EQ(e.reason(), "duplicate key");

  e = error_for("- just\n- a list\n");
  EXPECT_EQ(e.reason(), "expected a mapping of fields");

  fs::remove(spec_path);
  e = expect_input_error([&] { load_problem_dir(tmp / "p"); });
  EXPECT_EQ(e.file(), spec_path.string());
}

TEST(ProblemDir, NonUtf8FileIsNamed) {
  TempDir tmp;
  write_problem_dir(full_problem(), tmp / "p");
  write_file(tmp / "p" / "test" / "blob.bin", std::string("\xff\xfe\x00", 3));
  const auto e = expect_input_error([&] { load_problem_dir(tmp / "p"); });
  EXPECT_EQ(e.file(), (tmp / "p" / "test" / "blob.bin").string());
}

TEST(ProblemDirs, FindsNestedDirectoriesInPathOrder) {
  TempDir tmp;
  write_problem_dir(full_problem("B"), tmp / "z-last");
  write_problem_dir(full_problem("A"), tmp / "group" / "deep" / "a");
  write_problem_dir(full_problem("C"), tmp / "group" / "b");
  write_file(tmp / "notes" / "readme.txt", "not a problem");
  const auto problems = load_problem_dirs(tmp.path(), nullptr);
  ASSERT_EQ(problems.size(), 3u);
  EXPECT_EQ(problems[0].task_id, "C");  // group/b
  EXPECT_EQ(problems[1].task_id, "A");  // group/deep/a
  EXPECT_EQ(problems[2].task_id, "B");  // z-last
  // A problem directory itself is a root too.
  EXPECT_EQ(load_problem_dirs(tmp / "z-last", nullptr).size(), 1u);
}

TEST(ProblemDirs, BadDirectoryIsReportedOthersLoad) {
  TempDir tmp;
  write_problem_dir(full_problem("A"), tmp / "a");
  write_problem_dir(full_problem("B"), tmp / "b");
  write_problem_dir(full_problem("A"), tmp / "c");  // duplicate task
  write_file(tmp / "b" / "problem-spec.yaml", "type: [\n");
  LoadReport report;
  const auto problems = load_problem_dirs(tmp.path(), &report);
  ASSERT_EQ(problems.size(), 1u);
  EXPECT_EQ(problems[0].task_id, "A");
  ASSERT_EQ(report.errors.size(), 2u);
  EXPECT_EQ(report.errors[0].file(), (tmp / "b" / "problem-spec.yaml").string());
  EXPECT_EQ(report.errors[1].field(), "task_id");
  EXPECT_NE(report.errors[1].reason().find("duplicate task_id A"), std::string::npos);
  EXPECT_THROW(load_problem_dirs(tmp.path(), nullptr), InputError);

  TempDir empty;
  const auto e = expect_input_error([&] { load_problem_dirs(empty.path(), nullptr); });
  EXPECT_NE(e.reason().find("problem-spec.yaml"), std::string::npos);
  EXPECT_THROW(load_problem_dirs(empty / "absent", nullptr), InputError);
}

TEST(SolutionDirs, SamplesAndFiles) {
  TempDir tmp;
  write_file(tmp / "run" / "a1" / "solution-spec.yaml", "task_id: CUDA/1\n");
  write_file(tmp / "run" / "a1" / "solution.cu", "one");
  write_file(tmp / "run" / "a1" / "include" / "h.h", "h");
  write_file(tmp / "run" / "a2" / "solution-spec.yaml", "task_id: CUDA/1\n");
  write_file(tmp / "run" / "a2" / "solution.cu", "two");
  write_file(tmp / "run" / "b" / "solution-spec.yaml", "task_id: \"CUDA/2\"\nsample: 3\n");
  write_file(tmp / "run" / "b" / "kernel.cu", "b");
  LoadReport report;
  const auto solutions = load_solution_dirs(tmp / "run", &report);
  EXPECT_TRUE(report.ok());
  ASSERT_EQ(solutions.size(), 3u);
  EXPECT_EQ(solutions[0].task_id, "CUDA/1");
  EXPECT_EQ(solutions[0].sample, 0);
  ASSERT_EQ(solutions[0].files.size(), 2u);
  EXPECT_EQ(solutions[0].files[0].path, "include/h.h");
  EXPECT_EQ(solutions[0].files[1].path, "solution.cu");
  EXPECT_EQ(solutions[1].sample, 1);
  EXPECT_EQ(solutions[1].files[0].content, "two");
  EXPECT_EQ(solutions[2].task_id, "CUDA/2");
  EXPECT_EQ(solutions[2].sample, 3);
  EXPECT_EQ(load_solution_dir(tmp / "run" / "a2").sample, 0);

  write_file(tmp / "run" / "c" / "solution-spec.yaml", "task_id: CUDA/2\nsample: 3\n");
  write_file(tmp / "run" / "d" / "solution-spec.yaml", "sample: 1\n");
  write_file(tmp / "run" / "e" / "solution-spec.yaml", "task_id: CUDA/3\nsample: first\n");
  LoadReport bad;
  EXPECT_EQ(load_solution_dirs(tmp / "run", &bad).size(), 3u);
  ASSERT_EQ(bad.errors.size(), 3u);
  EXPECT_EQ(bad.errors[0].field(), "sample");  // duplicate of b
  EXPECT_NE(bad.errors[0].reason().find("duplicate sample 3"), std::string::npos);
  EXPECT_EQ(bad.errors[1].field(), "task_id");
  EXPECT_EQ(bad.errors[2].field(), "sample");
  EXPECT_EQ(bad.errors[2].line(), 2);
}

TEST(SolutionDirs, WriteThenLoad) {
  TempDir tmp;
  Solution s;
  s.task_id = "CUDA/9";
  s.sample = 2;
  s.files = {{"solution.cu", "int x;\n"}, {"a/b/c.h", ""}};
  write_solution_dir(s, tmp / "s");
  const Solution out = load_solution_dir(tmp / "s");
  EXPECT_EQ(solution_to_json_line(out),
            solution_to_json_line(
                Solution{"CUDA/9", 2, {{"a/b/c.h", ""}, {"solution.cu", "int x;\n"}}, ""}));
  s.files.push_back({"solution-spec.yaml", "clash"});
  EXPECT_THROW(write_solution_dir(s, tmp / "t"), InputError);
}

// ---- links, FIFOs and numbers out of range (issue 32) ----

// A problem folder that loads, with one context file.
fs::path good_problem(const TempDir& tmp) {
  std::string spec = kGoodSpec;
  spec.replace(spec.find("host_only: yes"), 14, "host_only: false");
  write_file(tmp / "p" / "problem-spec.yaml", spec);
  write_file(tmp / "p" / "context" / "k.h", "void k();\n");
  return tmp / "p";
}

TEST(ProblemDirLinks, ALinkedFileIsRefusedByItsPath) {
  TempDir tmp;
  const fs::path dir = good_problem(tmp);
  EXPECT_NO_THROW(load_problem_dir(dir));
  write_file(tmp / "secret", "root:$6$hash:19000:0:99999:7:::\n");
  fs::create_symlink(tmp / "secret", dir / "context" / "shadow");
  InputError e = expect_input_error([&] { load_problem_dir(dir); });
  EXPECT_EQ(e.file(), (dir / "context" / "shadow").string());
  EXPECT_NE(e.reason().find("symbolic link"), std::string::npos) << e.reason();
}

TEST(ProblemDirLinks, ALinkedFolderOrSpecIsRefused) {
  TempDir tmp;
  const fs::path dir = good_problem(tmp);
  write_file(tmp / "elsewhere" / "x.cu", "int x;\n");
  fs::create_symlink(tmp / "elsewhere", dir / "test");
  InputError e = expect_input_error([&] { load_problem_dir(dir); });
  EXPECT_EQ(e.file(), (dir / "test").string());
  fs::remove(dir / "test");
  fs::create_symlink(tmp / "elsewhere", dir / "context" / "more");
  e = expect_input_error([&] { load_problem_dir(dir); });
  EXPECT_EQ(e.file(), (dir / "context" / "more").string());
  fs::remove(dir / "context" / "more");

  fs::rename(dir / "problem-spec.yaml", tmp / "spec.yaml");
  fs::create_symlink(tmp / "spec.yaml", dir / "problem-spec.yaml");
  e = expect_input_error([&] { load_problem_dir(dir); });
  EXPECT_NE(e.reason().find("symbolic link"), std::string::npos) << e.reason();
}

TEST(ProblemDirLinks, AFifoInAProblemFolderIsRefusedNotWaitedOn) {
  TempDir tmp;
  const fs::path dir = good_problem(tmp);
  fs::create_directories(dir / "test");
  ASSERT_EQ(mkfifo((dir / "test" / "pipe.cu").c_str(), 0600), 0);
  const auto r = testing::run_bounded([&] { load_problem_dir(dir); }, std::size_t{1} << 30, 10);
  ASSERT_EQ(r.outcome, testing::BoundedResult::Outcome::input_error) << r.message;
  EXPECT_NE(r.message.find("pipe.cu"), std::string::npos) << r.message;
}

TEST(ProblemDirLinks, ALinkInASolutionFolderIsRefused) {
  TempDir tmp;
  write_file(tmp / "s" / "solution-spec.yaml", "task_id: CUDA/5\nsample: 0\n");
  write_file(tmp / "s" / "solution.cu", "void k() {}\n");
  EXPECT_NO_THROW(load_solution_dir(tmp / "s"));
  write_file(tmp / "secret", "token\n");
  fs::create_symlink(tmp / "secret", tmp / "s" / "notes.txt");
  InputError e = expect_input_error([&] { load_solution_dir(tmp / "s"); });
  EXPECT_EQ(e.file(), (tmp / "s" / "notes.txt").string());
}

TEST(ProblemDirNumbers, TimeoutOutOfRangeNamesFileLineAndField) {
  TempDir tmp;
  const fs::path dir = good_problem(tmp);
  for (const char* bad : {"1e308", "86401", "-1", "0"}) {
    std::string spec = read_file(dir / "problem-spec.yaml");
    const size_t at = spec.find("timeout_seconds: ");
    spec.replace(at, spec.find('\n', at) - at, std::string("timeout_seconds: ") + bad);
    write_file(dir / "problem-spec.yaml", spec);
    InputError e = expect_input_error([&] { load_problem_dir(dir); });
    EXPECT_EQ(e.file(), (dir / "problem-spec.yaml").string()) << bad;
    EXPECT_EQ(e.line(), 14) << bad;
    EXPECT_EQ(e.field(), "timeout_seconds") << bad;
    EXPECT_NE(e.reason().find("at most 86400"), std::string::npos) << e.reason();
  }
}

}  // namespace
}  // namespace kjudge
