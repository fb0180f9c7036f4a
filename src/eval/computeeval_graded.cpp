// ComputeEval's graded-solution records (eval/computeeval_graded.h).
#include "eval/computeeval_graded.h"

#include "core/problem_json.h"

namespace kjudge {

namespace {

using nlohmann::ordered_json;

ordered_json text_or_null(const std::optional<std::string>& s) {
  return s ? ordered_json(*s) : ordered_json(nullptr);
}

ordered_json number_or_null(const std::optional<double>& x) {
  return x ? ordered_json(*x) : ordered_json(nullptr);
}

std::optional<double> positive_number(const nlohmann::json& j, const char* key) {
  if (!j.is_object() || !j.contains(key) || !j[key].is_number()) return std::nullopt;
  const double x = j[key].get<double>();
  return x > 0 ? std::optional<double>(x) : std::nullopt;
}

}  // namespace

ComputeEvalTiming computeeval_timing(const nlohmann::json& line) {
  ComputeEvalTiming t;
  if (!line.is_object()) return t;
  if (line.contains("solution")) t.solution_ms = positive_number(line["solution"], "median_ms");
  if (line.contains("baseline")) t.baseline_ms = positive_number(line["baseline"], "median_ms");
  if (line.contains("speedup")) t.speedup = positive_number(line["speedup"], "estimate");
  if (!line.value("timed", false)) {
    t.not_timed = line.value("not_timed", std::string("not timed"));
    t.speedup.reset();
  }
  return t;
}

bool computeeval_skipped(Verdict v) { return v == Verdict::skipped || v == Verdict::judge_error; }

std::string computeeval_graded_file_name(const std::string& datapack_name) {
  return datapack_name + "-graded-solutions.jsonl";
}

ordered_json computeeval_graded_json(const GradedSolution& g, const Problem& problem,
                                     const Solution* solution, const std::string& datapack_name,
                                     const ComputeEvalTiming* timing) {
  // Where ComputeEval puts each failure's words (its evaluators/base.py): the build's output for
  // a refused solution or build, the test's for a missing source reference or a failed run.
  std::optional<std::string> build_output, test_output;
  if (g.build.ran) build_output = g.build.log;
  if (g.test.ran) test_output = g.test.log;
  auto or_detail = [&](std::optional<std::string>& out) {
    if (!out || out->empty()) out = g.detail;
  };
  switch (g.verdict) {
    case Verdict::invalid_solution:
    case Verdict::build_error:
    case Verdict::build_timeout:
      or_detail(build_output);
      break;
    case Verdict::source_reference_missing:
    case Verdict::test_fail:
    case Verdict::test_timeout:
    case Verdict::crash:
      or_detail(test_output);
      break;
    case Verdict::sanitizer_error:  // kjudge's own check: the test passed, the tool did not
      test_output = (test_output ? *test_output + "\n" : std::string()) + g.detail;
      break;
    case Verdict::judge_error:
      if (!build_output && !test_output) test_output = g.detail;
      break;
    case Verdict::pass:
    case Verdict::skipped:
      break;
  }

  Solution empty;
  empty.task_id = g.task_id;
  empty.sample = g.sample;
  ordered_json sol = solution_to_json(solution ? *solution : empty, /*with_sample=*/true);
  sol["datapack_name"] = datapack_name;

  ordered_json prob = problem_to_json(problem);
  prob["test_files"] = ordered_json::array();  // the hidden tests stay out of every run file

  ordered_json j;
  j["task_id"] = g.task_id;
  j["passed"] = g.verdict == Verdict::pass;
  j["skipped"] = computeeval_skipped(g.verdict);
  j["solution"] = std::move(sol);
  j["problem"] = std::move(prob);
  j["build_output"] = text_or_null(build_output);
  j["test_output"] = text_or_null(test_output);
  j["benchmark_output"] = timing && !timing->not_timed.empty() ? ordered_json(timing->not_timed)
                                                               : ordered_json(nullptr);
  j["solution_metrics"] = nullptr;
  j["solution_time"] = timing ? number_or_null(timing->solution_ms) : ordered_json(nullptr);
  j["baseline_metrics"] = nullptr;
  j["baseline_time"] = timing ? number_or_null(timing->baseline_ms) : ordered_json(nullptr);
  j["speedup"] = timing ? number_or_null(timing->speedup) : ordered_json(nullptr);
  j["kjudge"] = {
      {"verdict", std::string(to_string(g.verdict))}, {"detail", g.detail}, {"sample", g.sample}};
  if (!g.skip_code.empty()) j["kjudge"]["skip_reason"] = g.skip_code;
  return j;
}

}  // namespace kjudge
