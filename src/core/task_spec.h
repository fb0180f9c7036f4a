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
  // config.main (lang py): the script GPU MODE's runner starts, `eval.py`; empty when not given.
  std::string main;
  // The GPUs the task was written for (task.yml `gpus`, GPU MODE's names: H100, B200, MI300 …);
  // empty when it names none.
  std::vector<std::string> gpus;
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
  // The file of `files` named `name` (its `name` key), or nullptr.
  const TaskFile* file_named(const std::string& name) const;
  // GPU MODE's CUDA form: the task brings its own harness, a file named eval.cu.
  bool brings_eval_cu() const;
};

// Reads a task folder (or its task.yml). Every problem is an InputError naming task.yml, the
// line and the key.
TaskSpec load_task(const std::filesystem::path& folder_or_yml);

// Why no harness of kjudge's can run this task on this machine's NVIDIA GPU (`gpu_name`, as
// nvidia-smi names it; "" when unknown), or "" when one can: an AMD task (a folder under a
// problems/amd* tree, or only AMD GPUs named), a multi-GPU one, or one written for B200 alone
// (its `gpus`, or the competition's yaml one folder up, name no other NVIDIA GPU) on a GPU that
// is not a B200. Which harness runs the rest is task/harness_choice.h's.
std::string task_unsupported(const TaskSpec& task, const std::string& gpu_name = "");

// The GPUs the competition yaml beside the task's folder lists for it: GPU MODE's
// reference-kernels keep `problems/<competition>.yaml` with `problems: [{directory, gpus}]`,
// `directory` relative to problems/. Empty when no such yaml names the task.
std::vector<std::string> competition_gpus(const TaskSpec& task);

}  // namespace kjudge
