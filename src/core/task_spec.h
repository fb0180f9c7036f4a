#pragma once
// A GPU MODE-style kernel task: a folder with task.yml (keys as in GPU MODE's task.yml: files
// with `@SUBMISSION@`, lang, description, config, templates, tests, benchmarks, ranking_by, the
// three timeouts, multi_gpu), a reference and an input generator. docs/tasks.md has the format.
#include <filesystem>
#include <map>
#include <string>
#include <utility>
#include <vector>

namespace kjudge {

struct TaskFile {
  std::string name;              // where it goes in the build directory (relative)
  std::filesystem::path source;  // absolute path of its text; empty for the submission
  bool submission = false;       // source was "@SUBMISSION@"
};

// One test or benchmark: its arguments in the order task.yml gives them.
struct TaskCase {
  std::vector<std::pair<std::string, std::string>> args;
  int line = 0;  // in task.yml

  const std::string* find(const std::string& name) const;
  // `name: value; name: value`, the line the harness reads (kj::Spec).
  std::string text() const;
};

enum class RankingBy { last, mean, geom };
const char* to_string(RankingBy r);

struct TaskSpec {
  std::filesystem::path dir;  // the task folder
  std::filesystem::path yml;  // its task.yml
  std::string name;           // the folder's name
  std::string lang;           // "cu" or "py"
  std::string description;
  std::vector<TaskFile> files;
  // config (lang cu)
  std::vector<std::string> sources, include_dirs, compile_flags, libraries;
  std::vector<std::pair<std::string, std::string>> defines;
  std::map<std::string, std::filesystem::path> templates;  // language → starter file
  std::vector<TaskCase> tests, benchmarks;
  RankingBy ranking_by = RankingBy::last;
  double test_timeout_s = 180, benchmark_timeout_s = 180, ranked_timeout_s = 180;
  bool multi_gpu = false;
  // kjudge extension: names a submission may not use (`torch.matmul`, `cublas`). Calls to them
  // are flagged by the static pass (eval/static_flags.h), not refused: a flag goes to a person.
  std::vector<std::string> forbidden;

  const TaskFile* submission_file() const;
};

// Reads a task folder (or its task.yml). Every problem is an InputError naming task.yml, the
// line and the key.
TaskSpec load_task(const std::filesystem::path& folder_or_yml);

// Why kjudge cannot run this task (lang py, multi_gpu), or "" when it can.
std::string task_unsupported(const TaskSpec& task);

}  // namespace kjudge
