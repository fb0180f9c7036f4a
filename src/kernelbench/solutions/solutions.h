#pragma once
// The solutions `kjudge kernelbench eval --solutions` judges, in either of two layouts:
//   - a JSON-lines file, one solution per line (docs/kernelbench.md, "Solutions"):
//       {"level": 1, "problem_id": 19, "sample": 0, "code": "..."}     (KernelBench's names)
//       {"problem": "L1/19", "sample_id": 0, "code": "..."}             ("level1/19_ReLU.py" too)
//     sample (or sample_id) is optional: the next free one of its problem; other keys are
//     ignored;
//   - KernelBench's own run folder, as its scripts/generate_samples.py writes it (runs/NAME/):
//     one file per solution, level_<L>_problem_<P>_sample_<S>_kernel.py; its other files (the
//     prompts, eval_results.json, generation_config.yaml) are not read.
// Every error is an InputError naming the file, the line and the field: a problem the data
// folder lacks, a sample given twice, code that is not a string, a line that is not JSON.
// Empty code is a solution (a generation that produced nothing): it is judged, and fails.
#include <filesystem>
#include <string>
#include <vector>

#include "kernelbench/data/problems.h"

namespace kjudge::kernelbench {

struct Solution {
  const Problem* problem = nullptr;
  int sample = 0;
  std::string code;
  std::string origin;  // "FILE:LINE", or the kernel file's path

  // "L1/19#0": the key of its line in results.jsonl.
  std::string key() const;
};

// `path`: a JSON-lines file or a run folder. Only solutions of the levels `dataset` holds are
// kept when `only_level` > 0 (the others are skipped unread: their problems are not loaded).
std::vector<Solution> read_solutions(const std::filesystem::path& path, const Dataset& dataset,
                                     int only_level = 0);

// Every problem's reference as its own solution (`--self`): the reference with its Model
// renamed ModelNew, sample 0. The benchmark's integrity check: every one must be correct, with a
// speedup whose interval holds 1.
std::vector<Solution> self_solutions(const Dataset& dataset);

// The file name KernelBench's run folder gives a solution.
std::string kernel_file_name(int level, int problem, int sample);

}  // namespace kjudge::kernelbench
