#pragma once
// A model's answers to KernelBench prompts as KernelBench solutions: the code of each answer
// re-read from its raw text by KernelBench's rule (kernelbench/generation/extract.h), and the
// solutions file `kjudge kernelbench eval --solutions` reads (kernelbench/solutions/solutions.h):
// one line per answer, {"level", "problem_id", "name", "sample", "code"}. An answer without code
// stays a solution with empty code, judged as one without code, so rates keep their
// denominator.
#include <filesystem>
#include <nlohmann/json.hpp>
#include <vector>

#include "gen/generator.h"
#include "kernelbench/data/problems.h"
#include "kernelbench/solutions/solutions.h"

namespace kjudge::kernelbench {

// The solution a journalled answer stands for; its problem found in `dataset` by the record's
// task id ("L1/19"); the problem's file name and the sample are its origin. Throws
// std::invalid_argument for a task id the dataset lacks.
Solution solution_of_answer(const GenRecord& record, const Dataset& dataset,
                            std::string* why_no_code = nullptr);

struct KernelBenchAnswers {
  std::vector<Solution> solutions;                    // by level, problem, sample
  nlohmann::json unusable = nlohmann::json::array();  // {problem, sample, reason}
  long in_tokens = 0, out_tokens = 0;
  int truncated = 0;  // answers cut at the token limit
};

// The answers to the problems asked (task ids in `asked`); records of other problems (an
// earlier run's with other filters) are left out.
KernelBenchAnswers kernelbench_answers(const std::vector<kjudge::Problem>& asked,
                                       const Dataset& dataset,
                                       const std::vector<GenRecord>& records);

nlohmann::ordered_json solution_line(const Solution& s);

// One solution_line per solution, written atomically.
void write_kernelbench_solutions(const std::filesystem::path& file,
                                 const std::vector<Solution>& solutions);

}  // namespace kjudge::kernelbench
