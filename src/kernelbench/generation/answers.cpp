// A model's answers as KernelBench solutions. Declared, and explained, in
// kernelbench/generation/answers.h.
#include "kernelbench/generation/answers.h"

#include <algorithm>
#include <set>
#include <stdexcept>
#include <tuple>

#include "core/atomic_file.h"
#include "kernelbench/generation/extract.h"

namespace kjudge::kernelbench {

Solution solution_of_answer(const GenRecord& record, const Dataset& dataset,
                            std::string* why_no_code) {
  const std::optional<ProblemRef> ref = parse_problem_ref(record.task_id);
  const Problem* p = ref ? dataset.find(ref->level, ref->id) : nullptr;
  if (!p) throw std::invalid_argument("no KernelBench problem '" + record.task_id + "'");
  ExtractedCode code = extract_kernelbench_code(record.raw_answer);
  if (why_no_code) *why_no_code = code.error;
  Solution s;
  s.problem = p;
  s.sample = record.sample;
  s.code = std::move(code.code);
  s.origin = "answer " + record.task_id + " #" + std::to_string(record.sample);
  return s;
}

KernelBenchAnswers kernelbench_answers(const std::vector<kjudge::Problem>& asked,
                                       const Dataset& dataset,
                                       const std::vector<GenRecord>& records) {
  KernelBenchAnswers a;
  std::set<std::string> ids;
  for (const kjudge::Problem& p : asked) ids.insert(p.task_id);
  for (const GenRecord& r : records) {
    if (!ids.count(r.task_id)) continue;
    a.in_tokens += r.usage.input_tokens;
    a.out_tokens += r.usage.output_tokens;
    a.truncated += r.finish_reason == "length";
    std::string why;
    a.solutions.push_back(solution_of_answer(r, dataset, &why));
    if (!why.empty())
      a.unusable.push_back({{"problem", r.task_id}, {"sample", r.sample}, {"reason", why}});
  }
  std::sort(a.solutions.begin(), a.solutions.end(), [](const Solution& x, const Solution& y) {
    return std::tie(x.problem->level, x.problem->id, x.sample) <
           std::tie(y.problem->level, y.problem->id, y.sample);
  });
  return a;
}

nlohmann::ordered_json solution_line(const Solution& s) {
  return {{"level", s.problem->level},
          {"problem_id", s.problem->id},
          {"name", s.problem->file},
          {"sample", s.sample},
          {"code", s.code}};
}

void write_kernelbench_solutions(const std::filesystem::path& file,
                                 const std::vector<Solution>& solutions) {
  std::string text;
  for (const Solution& s : solutions)
    text += solution_line(s).dump(-1, ' ', false, nlohmann::json::error_handler_t::replace) + "\n";
  write_file_atomically(file, text);
}

}  // namespace kjudge::kernelbench
