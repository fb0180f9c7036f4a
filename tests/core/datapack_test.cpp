#include "core/datapack.h"

#include <archive.h>
#include <archive_entry.h>
#include <gtest/gtest.h>
#include <sys/stat.h>
#include <unistd.h>

#include <atomic>
#include <filesystem>
#include <fstream>
#include <map>
#include <string>
#include <vector>

#include "bounded_child.h"
#include "core/md5.h"
#include "core/problem_dir.h"
#include "core/problem_json.h"
#include "core/sha256.h"
#include "test_util.h"

namespace kjudge {
namespace {

using kjudge::testing::expect_input_error;

namespace fs = std::filesystem;
using nlohmann::json;

using kjudge::testing::TempDir;

void make_tar(const fs::path& path, const std::vector<std::pair<std::string, std::string>>& members,
              bool gzip = true) {
  archive* a = archive_write_new();
  if (gzip) archive_write_add_filter_gzip(a);
  archive_write_set_format_pax_restricted(a);
  ASSERT_EQ(archive_write_open_filename(a, path.c_str()), ARCHIVE_OK);
  for (const auto& [name, data] : members) {
    archive_entry* e = archive_entry_new();
    archive_entry_set_pathname(e, name.c_str());
    archive_entry_set_filetype(e, AE_IFREG);
    archive_entry_set_perm(e, 0644);
    archive_entry_set_size(e, static_cast<la_int64_t>(data.size()));
    archive_write_header(a, e);
    archive_write_data(a, data.data(), data.size());
    archive_entry_free(e);
  }
  archive_write_close(a);
  archive_write_free(a);
}

std::map<std::string, std::string> read_tar(const fs::path& path) {
  std::map<std::string, std::string> out;
  archive* a = archive_read_new();
  archive_read_support_filter_all(a);
  archive_read_support_format_all(a);
  EXPECT_EQ(archive_read_open_filename(a, path.c_str(), 1 << 16), ARCHIVE_OK);
  archive_entry* e = nullptr;
  while (archive_read_next_header(a, &e) == ARCHIVE_OK) {
    std::string data;
    char buf[4096];
    la_ssize_t n;
    while ((n = archive_read_data(a, buf, sizeof buf)) > 0)
      data.append(buf, static_cast<size_t>(n));
    out[archive_entry_pathname(e)] = data;
  }
  archive_read_free(a);
  return out;
}

void write_file(const fs::path& path, const std::string& data) {
  fs::create_directories(path.parent_path());
  std::ofstream(path, std::ios::binary) << data;
}

Problem make_problem(const std::string& task_id, const std::string& prompt = "Write it.") {
  Problem p;
  p.task_id = task_id;
  p.date = "2025-11-01";
  p.prompt = prompt;
  p.group = "cuda-kernels";
  p.difficulty = "easy";
  p.tags = {"kernels"};
  p.releases = {"2025-3"};
  p.context_files = {{"include/k.h", "void k();\n"}};
  p.test_files = {{"test/main.cu", "int main() { return 0; }\n"}};
  p.build_command = "nvcc -o t.out solution.cu test/main.cu";
  p.test_command = "./t.out";
  p.timing_mode.type = "kernels";
  p.min_cuda_toolkit = "12.0";
  p.timeout_seconds = 30.0;
  Solution s;
  s.task_id = task_id;
  s.files = {{"solution.cu", "void k() {}\n"}};
  p.baseline_solution = s;
  return p;
}

std::string canon(const Problem& p) { return problem_to_json_line(p); }

std::string line_of(const Problem& p) { return problem_to_json_line(p) + "\n"; }

std::string metadata_for(const std::vector<std::pair<std::string, std::string>>& hashes,
                         int total) {
  json m;
  m["release"] = "2025-3";
  m["total_count"] = total;
  m["created_at"] = "2026-01-01T00:00:00";
  m["description"] = nullptr;
  m["task_id_hashes"] = json::object();
  for (const auto& [task, hash] : hashes) m["task_id_hashes"][task] = hash;
  return m.dump(2);
}

// A pack whose lines are given verbatim, with correct hashes for the lines that parse.
void make_problem_pack(const fs::path& path, const std::vector<std::string>& lines) {
  std::vector<std::pair<std::string, std::string>> hashes;
  std::string body;
  for (const std::string& line : lines) {
    body += line;
    try {
      const json j = json::parse(line);
      if (j.contains("task_id") && j["task_id"].is_string()) {
        hashes.emplace_back(j["task_id"], md5_hex(line));
      }
    } catch (const json::exception&) {
    }
  }
  make_tar(path, {{"metadata.json", metadata_for(hashes, static_cast<int>(lines.size()))},
                  {"problems.jsonl", body}});
}

bool contains(const std::string& haystack, const std::string& needle) {
  return haystack.find(needle) != std::string::npos;
}

TEST(Hashes, Md5AndSha256) {
  EXPECT_EQ(md5_hex(""), "d41d8cd98f00b204e9800998ecf8427e");
  EXPECT_EQ(md5_hex("abc"), "900150983cd24fb0d6963f7d28e17f72");
  EXPECT_EQ(sha256_hex("abc"), "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad");
  Sha256 h;
  h.update("a").update("b");
  const std::string partial = h.hex();
  EXPECT_EQ(partial, sha256_hex("ab"));
  EXPECT_EQ(h.hex(), partial);  // hex() does not end the computation
  h.update("c");
  EXPECT_EQ(h.hex(), sha256_hex("abc"));
  Sha256 moved = std::move(h);
  EXPECT_EQ(moved.hex(), sha256_hex("abc"));

  TempDir tmp;
  write_file(tmp / "f", std::string(100000, 'x'));
  EXPECT_EQ(sha256_file_hex(tmp / "f"), sha256_hex(std::string(100000, 'x')));
  EXPECT_THROW(sha256_file_hex(tmp / "missing"), std::runtime_error);
}

TEST(ProblemPack, WriteThenReadKeepsEverything) {
  TempDir tmp;
  std::vector<Problem> problems = {make_problem("CUDA/1"), make_problem("CUDA/2", "Ü\n\"q\""),
                                   make_problem("CUDA/10")};
  problems[1].host_only = true;
  problems[1].compute_capability.reset();
  problems[1].source_references = SourceReferences{{"__shfl_sync"}, {}};
  problems[2].baseline_solution.reset();
  problems[2].timing_mode = TimingMode{"region", {"bench"}, {}, "kernel"};
  const fs::path pack_path = tmp / "mine-problems.tar.gz";
  write_problem_pack(pack_path, "2025-3", "a test pack", problems);

  LoadReport report;
  const ProblemPack pack = read_problem_pack(pack_path, &report);
  EXPECT_TRUE(report.ok());
  EXPECT_EQ(pack.path, pack_path.string());
  EXPECT_EQ(pack.metadata.release, "2025-3");
  EXPECT_EQ(pack.metadata.total_count, 3);
  EXPECT_EQ(pack.metadata.description, "a test pack");
  EXPECT_FALSE(pack.metadata.created_at.empty());
  EXPECT_EQ(pack.record_count, 3);
  ASSERT_EQ(pack.problems.size(), 3u);
  for (size_t i = 0; i < problems.size(); ++i) {
    EXPECT_EQ(canon(pack.problems[i]), canon(problems[i]));
    EXPECT_EQ(pack.lines[i].line, static_cast<int>(i) + 1);
    EXPECT_EQ(pack.lines[i].md5, md5_hex(line_of(problems[i])));
  }
  EXPECT_TRUE(pack.problems[1].host_only);
  EXPECT_FALSE(pack.problems[1].compute_capability);
  EXPECT_TRUE(verify_pack(pack).empty());
}

TEST(ProblemPack, WrittenLayoutMatchesComputeEval) {
  TempDir tmp;
  const std::vector<Problem> problems = {make_problem("CUDA/1"), make_problem("CUDA/2")};
  write_problem_pack(tmp / "p.tar.gz", "2025-3", std::nullopt, problems);
  auto members = read_tar(tmp / "p.tar.gz");
  ASSERT_EQ(members.size(), 2u);
  const std::string& jsonl = members["problems.jsonl"];
  EXPECT_EQ(jsonl, line_of(problems[0]) + line_of(problems[1]));
  const std::string& meta_text = members["metadata.json"];
  EXPECT_EQ(meta_text.rfind("{\n  \"release\": \"2025-3\",\n  \"total_count\": 2,\n", 0), 0u)
      << meta_text;
  const json meta = json::parse(meta_text);
  EXPECT_TRUE(meta["description"].is_null());
  // Hashes cover exactly the written bytes, "\n" included.
  EXPECT_EQ(meta["task_id_hashes"]["CUDA/1"], md5_hex(line_of(problems[0])));
  EXPECT_EQ(meta["task_id_hashes"]["CUDA/2"], md5_hex(line_of(problems[1])));
  // No temporary file is left beside the pack.
  EXPECT_EQ(std::distance(fs::directory_iterator(tmp.path()), fs::directory_iterator()), 1);
}

TEST(ProblemPack, OverwritesAtomically) {
  TempDir tmp;
  write_problem_pack(tmp / "p.tar.gz", "2025-3", std::nullopt, {make_problem("CUDA/1")});
  write_problem_pack(tmp / "p.tar.gz", "2025-3", std::nullopt,
                     {make_problem("CUDA/1"), make_problem("CUDA/2")});
  EXPECT_EQ(read_problem_pack(tmp / "p.tar.gz", nullptr).problems.size(), 2u);
  EXPECT_EQ(std::distance(fs::directory_iterator(tmp.path()), fs::directory_iterator()), 1);
}

TEST(ProblemPack, DuplicateTaskIdIsRefusedOnWrite) {
  TempDir tmp;
  const auto e = expect_input_error([&] {
    write_problem_pack(tmp / "p.tar.gz", "2025-3", std::nullopt,
                       {make_problem("CUDA/1"), make_problem("CUDA/1")});
  });
  EXPECT_TRUE(contains(e.reason(), "CUDA/1"));
  EXPECT_FALSE(fs::exists(tmp / "p.tar.gz"));
  Problem bad = make_problem("CUDA/2");
  bad.test_files[0].path = "../evil.cu";
  EXPECT_THROW(write_problem_pack(tmp / "p.tar.gz", "2025-3", std::nullopt, {bad}), InputError);
}

TEST(ProblemPack, InvalidUtf8IsRefusedOnWrite) {
  TempDir tmp;
  Problem p = make_problem("CUDA/8", "bad \xff byte");
  const auto e = expect_input_error(
      [&] { write_problem_pack(tmp / "p.tar.gz", "2025-3", std::nullopt, {p}); });
  EXPECT_EQ(e.file(), (tmp / "p.tar.gz").string());
  EXPECT_TRUE(contains(e.reason(), "CUDA/8")) << e.reason();
  EXPECT_FALSE(fs::exists(tmp / "p.tar.gz"));
  EXPECT_THROW(write_problem_dir(p, tmp / "dir"), InputError);
  EXPECT_FALSE(fs::exists(tmp / "dir"));
}

TEST(ProblemPack, BadLineIsReportedAndOthersStillLoad) {
  TempDir tmp;
  const fs::path path = tmp / "bad-problems.tar.gz";
  make_problem_pack(path, {line_of(make_problem("CUDA/1")), line_of(make_problem("CUDA/2")),
                           "{\"type\": \"cuda_cpp\", oops\n", line_of(make_problem("CUDA/4"))});
  LoadReport report;
  const ProblemPack pack = read_problem_pack(path, &report);
  ASSERT_EQ(pack.problems.size(), 3u);
  EXPECT_EQ(pack.problems[2].task_id, "CUDA/4");
  EXPECT_EQ(pack.lines[2].line, 4);
  EXPECT_EQ(pack.record_count, 4);
  ASSERT_EQ(report.errors.size(), 1u);
  const InputError& e = report.errors[0];
  EXPECT_EQ(e.file(), path.string() + ":problems.jsonl");
  EXPECT_EQ(e.line(), 3);
  EXPECT_TRUE(contains(e.what(), "bad-problems.tar.gz:problems.jsonl:3: invalid JSON")) << e.what();
  // Without a report the first bad line throws.
  const auto thrown = expect_input_error([&] { read_problem_pack(path, nullptr); });
  EXPECT_EQ(thrown.line(), 3);
}

TEST(ProblemPack, FieldErrorsNameLineAndField) {
  TempDir tmp;
  json no_task = problem_to_json(make_problem("CUDA/2"));
  no_task.erase("task_id");
  json wrong_type = problem_to_json(make_problem("CUDA/3"));
  wrong_type["metadata"]["tags"] = {"a", false};
  json future = problem_to_json(make_problem("CUDA/4"));
  future["schema_version"] = 9;
  const fs::path path = tmp / "p.tar.gz";
  make_problem_pack(path, {line_of(make_problem("CUDA/1")), no_task.dump() + "\n",
                           wrong_type.dump() + "\n", future.dump() + "\n"});
  LoadReport report;
  const ProblemPack pack = read_problem_pack(path, &report);
  EXPECT_EQ(pack.problems.size(), 1u);
  ASSERT_EQ(report.errors.size(), 3u);
  EXPECT_EQ(report.errors[0].line(), 2);
  EXPECT_EQ(report.errors[0].field(), "task_id");
  EXPECT_EQ(report.errors[0].reason(), "missing required field");
  EXPECT_EQ(report.errors[1].line(), 3);
  EXPECT_EQ(report.errors[1].field(), "metadata.tags[1]");
  EXPECT_EQ(report.errors[1].reason(), "expected string, got boolean");
  EXPECT_EQ(report.errors[2].line(), 4);
  EXPECT_EQ(report.errors[2].field(), "schema_version");
  EXPECT_TRUE(contains(report.errors[2].reason(), "unsupported problem schema_version 9"));
}

TEST(ProblemPack, BlankLinesAreSkippedButCounted) {
  TempDir tmp;
  const fs::path path = tmp / "p.tar.gz";
  std::string last = problem_to_json_line(make_problem("CUDA/3"));  // no trailing newline
  make_tar(path,
           {{"metadata.json", metadata_for({{"CUDA/1", md5_hex(line_of(make_problem("CUDA/1")))},
                                            {"CUDA/3", md5_hex(last + "\n")}},
                                           2)},
            {"problems.jsonl", line_of(make_problem("CUDA/1")) + "\n   \n" + last}});
  LoadReport report;
  const ProblemPack pack = read_problem_pack(path, &report);
  EXPECT_TRUE(report.ok());
  ASSERT_EQ(pack.problems.size(), 2u);
  EXPECT_EQ(pack.lines[1].line, 4);
  // A last line without "\n" is hashed as ComputeEval would have written it.
  EXPECT_TRUE(verify_pack(pack).empty());
}

TEST(ProblemPack, StructuralErrorsNameThePack) {
  TempDir tmp;
  const std::string good_meta = metadata_for({}, 0);

  make_tar(tmp / "plain.tar", {{"metadata.json", good_meta}, {"problems.jsonl", ""}}, false);
  auto e = expect_input_error([&] { read_problem_pack(tmp / "plain.tar", nullptr); });
  EXPECT_EQ(e.file(), (tmp / "plain.tar").string());
  EXPECT_TRUE(contains(e.reason(), "gzip")) << e.reason();

  write_file(tmp / "junk.tar.gz", std::string("\x1f\x8b") + "this is not gzip data at all");
  e = expect_input_error([&] { read_problem_pack(tmp / "junk.tar.gz", nullptr); });
  EXPECT_EQ(e.file(), (tmp / "junk.tar.gz").string());
  EXPECT_TRUE(contains(e.reason(), "malformed archive")) << e.reason();

  make_tar(tmp / "nometa.tar.gz", {{"problems.jsonl", ""}});
  e = expect_input_error([&] { read_problem_pack(tmp / "nometa.tar.gz", nullptr); });
  EXPECT_EQ(e.file(), (tmp / "nometa.tar.gz").string());
  EXPECT_TRUE(contains(e.reason(), "metadata.json is missing"));

  make_tar(tmp / "nolines.tar.gz", {{"metadata.json", good_meta}});
  e = expect_input_error([&] { read_problem_pack(tmp / "nolines.tar.gz", nullptr); });
  EXPECT_TRUE(contains(e.reason(), "problems.jsonl is missing"));

  make_tar(tmp / "badmeta.tar.gz",
           {{"metadata.json", R"({"total_count": 0})"}, {"problems.jsonl", ""}});
  LoadReport report;  // metadata errors are fatal even with a report
  e = expect_input_error([&] { read_problem_pack(tmp / "badmeta.tar.gz", &report); });
  EXPECT_EQ(e.file(), (tmp / "badmeta.tar.gz").string() + ":metadata.json");
  EXPECT_EQ(e.field(), "release");

  make_tar(tmp / "badjson.tar.gz", {{"metadata.json", "{"}, {"problems.jsonl", ""}});
  e = expect_input_error([&] { read_problem_pack(tmp / "badjson.tar.gz", nullptr); });
  EXPECT_TRUE(contains(e.reason(), "invalid JSON"));

  e = expect_input_error([&] { read_problem_pack(tmp / "absent.tar.gz", nullptr); });
  EXPECT_EQ(e.file(), (tmp / "absent.tar.gz").string());

  // Packs made with the tar tool have "./" prefixes.
  make_tar(tmp / "dot.tar.gz", {{"./metadata.json", good_meta}, {"./problems.jsonl", ""}});
  EXPECT_NO_THROW(read_problem_pack(tmp / "dot.tar.gz", nullptr));
}

TEST(VerifyPack, TamperedProblemIsNamed) {
  TempDir tmp;
  const std::vector<Problem> problems = {make_problem("CUDA/1"), make_problem("CUDA/2"),
                                         make_problem("CUDA/3")};
  write_problem_pack(tmp / "p.tar.gz", "2025-3", std::nullopt, problems);
  auto members = read_tar(tmp / "p.tar.gz");
  std::string& jsonl = members["problems.jsonl"];
  const size_t at = jsonl.find("Write it.", jsonl.find("CUDA/2"));
  ASSERT_NE(at, std::string::npos);
  jsonl.replace(at, 9, "Write it!");
  make_tar(tmp / "t.tar.gz",
           {{"metadata.json", members["metadata.json"]}, {"problems.jsonl", jsonl}});
  const ProblemPack pack = read_problem_pack(tmp / "t.tar.gz", nullptr);
  const auto issues = verify_pack(pack);
  ASSERT_EQ(issues.size(), 1u);
  EXPECT_EQ(issues[0].kind, IntegrityIssue::Kind::kHashMismatch);
  EXPECT_EQ(issues[0].task_id, "CUDA/2");
  EXPECT_TRUE(contains(issues[0].message, "CUDA/2"));
  EXPECT_TRUE(contains(issues[0].message, "line 2"));
}

TEST(VerifyPack, MissingUnknownDuplicateAndCount) {
  TempDir tmp;
  const std::string l1 = line_of(make_problem("CUDA/1"));
  const std::string l2 = line_of(make_problem("CUDA/2"));
  make_tar(tmp / "p.tar.gz",
           {{"metadata.json", metadata_for({{"CUDA/1", md5_hex(l1)}, {"CUDA/9", md5_hex(l2)}}, 5)},
            {"problems.jsonl", l1 + l2 + l1}});
  const auto issues = verify_pack(read_problem_pack(tmp / "p.tar.gz", nullptr));
  std::map<IntegrityIssue::Kind, std::string> by_kind;
  for (const auto& issue : issues) by_kind[issue.kind] = issue.task_id;
  EXPECT_EQ(issues.size(), 4u);
  EXPECT_EQ(by_kind.at(IntegrityIssue::Kind::kMissingHash), "CUDA/2");
  EXPECT_EQ(by_kind.at(IntegrityIssue::Kind::kUnknownHash), "CUDA/9");
  EXPECT_EQ(by_kind.at(IntegrityIssue::Kind::kDuplicateTaskId), "CUDA/1");
  EXPECT_EQ(by_kind.at(IntegrityIssue::Kind::kCountMismatch), "");
}

Solution make_solution(const std::string& task, int sample, const std::string& body) {
  Solution s;
  s.task_id = task;
  s.sample = sample;
  s.files = {{"solution.cu", body}, {"include/extra.h", "#pragma once\n"}};
  return s;
}

TEST(SolutionPack, WriteThenRead) {
  TempDir tmp;
  const std::vector<Solution> solutions = {make_solution("CUDA/1", 0, "a"),
                                           make_solution("CUDA/1", 1, "b"),
                                           make_solution("CUDA/2", 0, "c")};
  const fs::path path = tmp / "model-solutions.tar.gz";
  write_solution_pack(path, "2025-3", "gpt", std::vector<std::string>{"cccl", "cublas"}, solutions);
  LoadReport report;
  const SolutionPack pack = read_solution_pack(path, &report);
  EXPECT_TRUE(report.ok());
  EXPECT_EQ(pack.metadata.release, "2025-3");
  EXPECT_EQ(pack.metadata.total_count, 3);
  EXPECT_EQ(pack.metadata.description, "gpt");
  EXPECT_EQ(pack.metadata.groups, (std::vector<std::string>{"cccl", "cublas"}));
  ASSERT_EQ(pack.solutions.size(), 3u);
  for (size_t i = 0; i < solutions.size(); ++i) {
    EXPECT_EQ(solution_to_json_line(pack.solutions[i]), solution_to_json_line(solutions[i]));
    EXPECT_EQ(pack.lines[i], static_cast<int>(i) + 1);
  }
  const auto members = read_tar(path);
  EXPECT_TRUE(contains(members.at("solutions.jsonl"), "\"sample\":1"));
  const json meta = json::parse(members.at("metadata.json"));
  EXPECT_EQ(meta["groups"], json({"cccl", "cublas"}));
  EXPECT_FALSE(meta.contains("task_id_hashes"));

  write_solution_pack(path, "2025-3", std::nullopt, std::nullopt, solutions);
  EXPECT_TRUE(json::parse(read_tar(path).at("metadata.json"))["groups"].is_null());
  EXPECT_FALSE(read_solution_pack(path, nullptr).metadata.groups);
  EXPECT_THROW(write_solution_pack(path, "2025-3", std::nullopt, std::nullopt,
                                   {make_solution("T", 0, "a"), make_solution("T", 0, "b")}),
               InputError);
}

TEST(SolutionPack, SamplesFromKeyOrOrdinal) {
  TempDir tmp;
  const std::string meta = R"({"release":"2025-3","total_count":5,"created_at":"x"})";
  const std::string lines =
      R"({"type":"file","task_id":"A","files":[{"path":"s.cu","content":"1"}]})"
      "\n"
      R"({"type":"file","task_id":"B","files":[]})"
      "\n"
      R"({"type":"file","task_id":"A","files":[]})"
      "\n"
      R"({"type":"file","task_id":"C","sample":7,"files":[]})"
      "\n"
      R"({"type":"file","task_id":"A","sample":1,"files":[]})"
      "\n";
  make_tar(tmp / "s.tar.gz", {{"metadata.json", meta}, {"solutions.jsonl", lines}});
  LoadReport report;
  const SolutionPack pack = read_solution_pack(tmp / "s.tar.gz", &report);
  ASSERT_EQ(pack.solutions.size(), 4u);
  EXPECT_EQ(pack.solutions[0].sample, 0);
  EXPECT_EQ(pack.solutions[1].sample, 0);
  EXPECT_EQ(pack.solutions[2].sample, 1);
  EXPECT_EQ(pack.solutions[3].sample, 7);
  ASSERT_EQ(report.errors.size(), 1u);  // A sample 1 again
  EXPECT_EQ(report.errors[0].line(), 5);
  EXPECT_EQ(report.errors[0].field(), "sample");
  EXPECT_TRUE(contains(report.errors[0].reason(), "also on line 3"));
}

// Issue 31: a 200 MB solutions line took 836 MB of the judge's memory to parse. A line over the
// record limit is never parsed: whose it is comes from its text, and its size is its verdict
// (Solution::refused, invalid_solution in the evaluator). Without a task_id it is an error of
// its line.
TEST(SolutionPack, ALineOverTheRecordLimitIsNotParsed) {
  TempDir tmp;
  const std::string big(kMaxSolutionRecordBytes + 1, 'x');
  const std::string lines =
      R"({"type":"file","files":[{"path":"s.cu","content":")" + big +
      R"("}],"task_id":"CUDA/\"7","sample":3})"
      "\n"
      R"({"type":"file","task_id":"A","files":[{"path":"s.cu","content":"1"}]})"
      "\n"
      R"({"files":[{"path":"s.cu","content":")" +
      big +
      R"("}]})"
      "\n";
  testing::write_text(tmp / "solutions.jsonl", lines);
  LoadReport report;
  const std::vector<Solution> s = read_solutions_jsonl(tmp / "solutions.jsonl", &report);
  ASSERT_EQ(s.size(), 2u);
  EXPECT_EQ(s[0].task_id, "CUDA/\"7");
  EXPECT_EQ(s[0].sample, 3);
  EXPECT_TRUE(s[0].files.empty());
  EXPECT_TRUE(contains(s[0].refused, "bytes, over the 16 MiB")) << s[0].refused;
  EXPECT_TRUE(contains(s[0].refused, "line 1"));
  EXPECT_EQ(s[1].task_id, "A");
  EXPECT_TRUE(s[1].refused.empty());
  ASSERT_EQ(report.errors.size(), 1u);
  EXPECT_EQ(report.errors[0].line(), 3);
  EXPECT_TRUE(contains(report.errors[0].reason(), "no task_id found"));
}

// The same for a solution folder: its files are not read when they hold more.
TEST(SolutionDir, AFolderOverTheRecordLimitIsNotRead) {
  TempDir tmp;
  testing::write_text(tmp / "s/solution-spec.yaml", "task_id: T\nsample: 2\n");
  testing::write_text(tmp / "s/solution.cu", std::string(kMaxSolutionRecordBytes + 1, ' '));
  const Solution s = load_solution_dir(tmp / "s");
  EXPECT_EQ(s.task_id, "T");
  EXPECT_TRUE(s.files.empty());
  EXPECT_TRUE(contains(s.refused, "folder holds"));
}

TEST(SolutionPack, PatchSolutionIsRejectedWithItsLine) {
  TempDir tmp;
  const std::string lines =
      R"({"type":"file","task_id":"A","files":[]})"
      "\n"
      R"({"schema_version":1,"type":"patch","task_id":"B","patch":"--- a\n+++ b\n"})"
      "\n";
  make_tar(tmp / "s.tar.gz", {{"metadata.json", R"({"release":"2025-3","total_count":2})"},
                              {"solutions.jsonl", lines}});
  const auto e = expect_input_error([&] { read_solution_pack(tmp / "s.tar.gz", nullptr); });
  EXPECT_EQ(e.line(), 2);
  EXPECT_EQ(e.file(), (tmp / "s.tar.gz").string() + ":solutions.jsonl");
  EXPECT_TRUE(contains(e.what(), "patch"));
  LoadReport report;
  EXPECT_EQ(read_solution_pack(tmp / "s.tar.gz", &report).solutions.size(), 1u);
  EXPECT_EQ(report.errors.size(), 1u);

  make_tar(tmp / "p.tar.gz",
           {{"metadata.json", R"({"release":"2025-3","total_count":0})"}, {"problems.jsonl", ""}});
  EXPECT_TRUE(
      contains(expect_input_error([&] { read_solution_pack(tmp / "p.tar.gz", nullptr); }).reason(),
               "solutions.jsonl is missing"));
}

TEST(ReadAny, PackJsonlAndDirectories) {
  TempDir tmp;
  const std::vector<Problem> problems = {make_problem("CUDA/1"), make_problem("CUDA/2")};
  write_problem_pack(tmp / "p.tar.gz", "2025-3", std::nullopt, problems);
  EXPECT_EQ(read_problems_any(tmp / "p.tar.gz", nullptr).size(), 2u);

  write_file(tmp / "problems.jsonl", line_of(problems[0]) + line_of(problems[1]));
  const auto from_jsonl = read_problems_any(tmp / "problems.jsonl", nullptr);
  ASSERT_EQ(from_jsonl.size(), 2u);
  EXPECT_EQ(canon(from_jsonl[1]), canon(problems[1]));

  write_problem_dir(problems[0], tmp / "dirs" / "a");
  write_problem_dir(problems[1], tmp / "dirs" / "b");
  const auto from_dirs = read_problems_any(tmp / "dirs", nullptr);
  ASSERT_EQ(from_dirs.size(), 2u);
  EXPECT_EQ(from_dirs[0].task_id, "CUDA/1");

  // A task_id seen twice is reported and the later copy dropped.
  write_file(tmp / "dup.jsonl", line_of(problems[0]) + line_of(problems[1]) + line_of(problems[0]));
  LoadReport report;
  EXPECT_EQ(read_problems_any(tmp / "dup.jsonl", &report).size(), 2u);
  ASSERT_EQ(report.errors.size(), 1u);
  EXPECT_EQ(report.errors[0].line(), 3);
  EXPECT_EQ(report.errors[0].field(), "task_id");

  const auto e = expect_input_error([&] { read_problems_any(tmp / "nothing-here", nullptr); });
  EXPECT_EQ(e.file(), (tmp / "nothing-here").string());
}

TEST(ReadAny, Solutions) {
  TempDir tmp;
  const std::vector<Solution> solutions = {make_solution("A", 0, "x"), make_solution("A", 1, "y")};
  write_solution_pack(tmp / "m-solutions.tar.gz", "2025-3", std::nullopt, std::nullopt, solutions);
  EXPECT_EQ(read_solutions_any(tmp / "m-solutions.tar.gz", nullptr).size(), 2u);
  write_file(tmp / "solutions.jsonl",
             solution_to_json_line(solutions[0]) + "\n" + solution_to_json_line(solutions[1]));
  const auto from_jsonl = read_solutions_any(tmp / "solutions.jsonl", nullptr);
  ASSERT_EQ(from_jsonl.size(), 2u);
  EXPECT_EQ(from_jsonl[1].sample, 1);
  write_solution_dir(solutions[0], tmp / "dirs" / "s0");
  write_solution_dir(solutions[1], tmp / "dirs" / "s1");
  const auto from_dirs = read_solutions_any(tmp / "dirs", nullptr);
  ASSERT_EQ(from_dirs.size(), 2u);
  EXPECT_EQ(from_dirs[1].sample, 1);
}

// ---- hostile and empty inputs (issue 32) ----

struct Entry {
  Entry(std::string n, std::string d, unsigned t = AE_IFREG, std::string l = "")
      : name(std::move(n)), data(std::move(d)), type(t), link(std::move(l)) {}
  std::string name;
  std::string data;
  unsigned type;
  std::string link;  // for AE_IFLNK
};

void make_tar_entries(const fs::path& path, const std::vector<Entry>& entries) {
  archive* a = archive_write_new();
  archive_write_add_filter_gzip(a);
  archive_write_set_format_pax_restricted(a);
  ASSERT_EQ(archive_write_open_filename(a, path.c_str()), ARCHIVE_OK);
  for (const Entry& en : entries) {
    archive_entry* e = archive_entry_new();
    archive_entry_set_pathname(e, en.name.c_str());
    archive_entry_set_filetype(e, en.type);
    archive_entry_set_perm(e, 0644);
    if (en.type == AE_IFLNK) archive_entry_set_symlink(e, en.link.c_str());
    archive_entry_set_size(e, static_cast<la_int64_t>(en.type == AE_IFREG ? en.data.size() : 0));
    archive_write_header(a, e);
    if (en.type == AE_IFREG) archive_write_data(a, en.data.data(), en.data.size());
    archive_entry_free(e);
  }
  archive_write_close(a);
  archive_write_free(a);
}

TEST(PackMembers, AnOverflowingNumberNamesTheMemberAndLine) {
  TempDir tmp;
  json big = problem_to_json(make_problem("CUDA/2"));
  std::string line = big.dump();
  line.replace(line.find("\"timeout_seconds\":30.0"), 23, "\"timeout_seconds\":1e999");
  const fs::path path = tmp / "p.tar.gz";
  make_problem_pack(path, {line_of(make_problem("CUDA/1")), line + "\n"});
  LoadReport report;
  const auto problems = read_problems_any(path, &report);
  EXPECT_EQ(problems.size(), 1u) << "the other problems still load";
  ASSERT_EQ(report.errors.size(), 1u);
  EXPECT_EQ(report.errors[0].file(), path.string() + ":problems.jsonl");
  EXPECT_EQ(report.errors[0].line(), 2);
  EXPECT_TRUE(contains(report.errors[0].reason(), "1e999")) << report.errors[0].reason();
}

TEST(PackMembers, TimeoutOutOfRangeNamesMemberLineAndField) {
  TempDir tmp;
  json p = problem_to_json(make_problem("CUDA/1"));
  p["timeout_seconds"] = 1e308;
  write_file(tmp / "problems.jsonl", "\n" + p.dump() + "\n");
  const auto e = expect_input_error([&] { read_problems_any(tmp / "problems.jsonl", nullptr); });
  EXPECT_EQ(e.file(), (tmp / "problems.jsonl").string());
  EXPECT_EQ(e.line(), 2);
  EXPECT_EQ(e.field(), "timeout_seconds");
}

TEST(PackMembers, UnsafeOrOddMembersAreRefused) {
  TempDir tmp;
  const std::string meta = metadata_for({}, 1);
  const std::string lines = line_of(make_problem("CUDA/1"));
  struct Case {
    std::vector<Entry> entries;
    std::string expect;
  };
  std::vector<Case> cases = {
      {{{"metadata.json", meta}, {"problems.jsonl", lines}, {"../evil", "x"}}, "\"..\""},
      {{{"metadata.json", meta}, {"problems.jsonl", lines}, {"/etc/evil", "x"}}, "absolute"},
      {{{"metadata.json", "", AE_IFLNK, "/etc/shadow"}, {"problems.jsonl", lines}},
       "not a regular file"},
      {{{"metadata.json", meta}, {"problems.jsonl", lines}, {"problems.jsonl", lines}}, "twice"},
  };
  std::vector<Entry> many = {{"metadata.json", meta}, {"problems.jsonl", lines}};
  for (int i = 0; i < 1001; ++i) many.push_back({"junk/" + std::to_string(i), ""});
  cases.push_back({many, "more than 1000"});
  for (size_t i = 0; i < cases.size(); ++i) {
    const fs::path path = tmp / ("c" + std::to_string(i) + ".tar.gz");
    make_tar_entries(path, cases[i].entries);
    const auto e = expect_input_error([&] { read_problem_pack(path, nullptr); });
    EXPECT_EQ(e.file(), path.string()) << i;
    EXPECT_TRUE(contains(e.reason(), cases[i].expect)) << i << ": " << e.reason();
  }
  // The same pack without the odd member loads.
  make_tar_entries(tmp / "ok.tar.gz", {{"metadata.json", meta}, {"problems.jsonl", lines}});
  EXPECT_EQ(read_problem_pack(tmp / "ok.tar.gz", nullptr).problems.size(), 1u);
}

TEST(EmptyInputs, AreErrorsNamingTheInput) {
  TempDir tmp;
  write_file(tmp / "empty.tar.gz", "");
  auto e = expect_input_error([&] { read_problems_any(tmp / "empty.tar.gz", nullptr); });
  EXPECT_EQ(e.file(), (tmp / "empty.tar.gz").string());
  EXPECT_TRUE(contains(e.reason(), "empty")) << e.reason();
  e = expect_input_error([&] { read_solutions_any(tmp / "empty.tar.gz", nullptr); });
  EXPECT_TRUE(contains(e.reason(), "empty")) << e.reason();

  write_file(tmp / "blank.jsonl", "\n\n");
  e = expect_input_error([&] { read_problems_any(tmp / "blank.jsonl", nullptr); });
  EXPECT_TRUE(contains(e.reason(), "holds no problems")) << e.reason();

  write_problem_pack(tmp / "none.tar.gz", "2025-3", std::nullopt, {});
  LoadReport report;
  e = expect_input_error([&] { read_problems_any(tmp / "none.tar.gz", &report); });
  EXPECT_EQ(e.file(), (tmp / "none.tar.gz").string() + ":problems.jsonl");
  EXPECT_TRUE(contains(e.reason(), "holds no problems")) << e.reason();

  write_solution_pack(tmp / "none-solutions.tar.gz", "r", std::nullopt, std::nullopt, {});
  e = expect_input_error([&] { read_solutions_any(tmp / "none-solutions.tar.gz", nullptr); });
  EXPECT_TRUE(contains(e.reason(), "holds no solutions")) << e.reason();

  fs::create_directories(tmp / "empty-dir");
  e = expect_input_error([&] { read_problems_any(tmp / "empty-dir", nullptr); });
  EXPECT_EQ(e.file(), (tmp / "empty-dir").string());
}

TEST(EmptyInputs, AllBadLinesAreReportedNotCalledEmpty) {
  TempDir tmp;
  write_file(tmp / "bad.jsonl", "{oops\n");
  LoadReport report;
  EXPECT_TRUE(read_problems_any(tmp / "bad.jsonl", &report).empty());
  ASSERT_EQ(report.errors.size(), 1u);
  EXPECT_EQ(report.errors[0].line(), 1);
}

TEST(PackMembers, AFifoGivenAsAPackIsRefusedNotWaitedOn) {
  TempDir tmp;
  ASSERT_EQ(mkfifo((tmp / "p.tar.gz").c_str(), 0600), 0);
  for (int solutions = 0; solutions < 2; ++solutions) {
    const auto r = testing::run_bounded(
        [&] {
          if (solutions)
            read_solutions_any(tmp / "p.tar.gz", nullptr);
          else
            read_problems_any(tmp / "p.tar.gz", nullptr);
        },
        std::size_t{1} << 30, 10);
    ASSERT_EQ(r.outcome, testing::BoundedResult::Outcome::input_error) << r.message;
    EXPECT_TRUE(contains(r.message, "not a regular file")) << r.message;
  }
}

}  // namespace
}  // namespace kjudge
