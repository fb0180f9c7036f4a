#pragma once
// A KernelBench data folder (ScalingIntelligence/KernelBench's KernelBench/, as copied to
// shared/datasets/kernelbench): one folder per level, level1/ .. levelN/, each holding one
// Python file per problem, `<id>_<name>.py`. A problem is identified as KernelBench does, by its
// level and the number its file name starts with (`level 1, problem 19` is
// level1/19_ReLU.py). Every file must define `class Model`, `get_inputs` and `get_init_inputs`;
// anything else (a file without the number, two files with one number, a file that cannot be
// read) is an InputError naming the file: a benchmark that silently drops a problem changes every
// score (KernelBench's own loader skips such files).
#include <filesystem>
#include <optional>
#include <string>
#include <vector>

namespace kjudge::kernelbench {

struct Problem {
  int level = 0;
  int id = 0;                  // the number the file name starts with
  std::string name;            // the file name without the number and ".py": "ReLU"
  std::string file;            // the file name, as KernelBench names a problem: "19_ReLU.py"
  std::filesystem::path path;  // where it was read
  std::string code;

  // "L1/19": the key a run's records use.
  std::string key() const;
  // Level 4 builds Hugging Face models (from_pretrained): it needs a local model cache.
  bool needs_hf() const;
};

struct Dataset {
  std::filesystem::path dir;      // the folder holding level1/ ...
  std::vector<int> levels;        // the levels found, ascending
  std::vector<Problem> problems;  // by level, then id

  // Null when absent.
  const Problem* find(int level, int id) const;
  // By file name within a level ("19_ReLU.py" or "19_ReLU"); null when absent.
  const Problem* find_file(int level, const std::string& file) const;
};

// Reads `dir` (a folder with levelN/ subfolders, or KernelBench's repository root, whose
// KernelBench/ holds them). `only_level` > 0 reads that level alone (an error when the folder has
// none). Throws InputError naming the folder or file.
Dataset load_kernelbench(const std::filesystem::path& dir, int only_level = 0);

// "L1/19", "level1/19", "1/19", "L1/19_ReLU", "level1/19_ReLU.py": the level and the id, or the
// level and a file name; nullopt for anything else.
struct ProblemRef {
  int level = 0;
  int id = 0;        // 0 when `file` names it
  std::string file;  // "19_ReLU.py" or "19_ReLU", when given by name
};
std::optional<ProblemRef> parse_problem_ref(const std::string& text);

}  // namespace kjudge::kernelbench
