#pragma once
// One solution's run turned into its verdict, its speedups and its findings
// (kernelbench/judge/verdict.h): what the runner reported, held to what the judge can check
// (every timed pair's output, each side's tail past its stream's end), with the static pass's
// findings and the run-time evidence beside them. Under the `fail` policy (the default) a
// correct solution with a hack finding is judged `hack`.
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <vector>

#include "kernelbench/checks/static_check.h"
#include "kernelbench/judge/metrics.h"
#include "kernelbench/judge/verdict.h"
#include "kernelbench/runner/run.h"
#include "kernelbench/solutions/solutions.h"

namespace kjudge::kernelbench {

enum class HackPolicy { fail, flag };

struct GradeOptions {
  HackPolicy hacks = HackPolicy::fail;
  double side_work_ms = 0.2;      // a median tail above this: work left running elsewhere
  double excessive_speedup = 10;  // KernelBench's check_for_excessive_speedup threshold
  double confidence = 0.95;
};

struct Result {
  int level = 0, problem = 0, sample = 0;
  std::string file, origin;
  Verdict verdict = Verdict::judge_error;
  std::string detail;
  std::optional<Speedup> eager, compiled;
  std::string end = "stream";  // which end the speedups were taken to
  std::vector<Finding> findings;
  nlohmann::ordered_json json;  // the results.jsonl line

  std::string key() const;
  Graded graded() const;
};

// The run-time evidence of a run: outputs that share memory with an input, an earlier output or
// the reference's; torch rebound; threads or modes left running; torch's settings changed.
// (Timing's own evidence, the tails and CUPTI, is added by grade.)
std::vector<Finding> runtime_findings(const RunOutcome& o);

// `cupti`: what the CUPTI record says of the run (kernelbench/judge/cupti.h), already computed
// (may be empty).
Result grade(const Solution& s, const RunOutcome& o, std::vector<Finding> static_found,
             std::vector<Finding> cupti, const nlohmann::ordered_json& cupti_json,
             const GradeOptions& opt);

// A result without a run: the solution was not run (no code, no ModelNew, level 4 without a
// model cache, the machine's torch missing as the first run showed).
Result not_run(const Solution& s, Verdict v, const std::string& detail,
               std::vector<Finding> static_found, const GradeOptions& opt);

// A results.jsonl line read back for the summary (--resume). Throws std::runtime_error naming
// the field.
Graded graded_from_json(const nlohmann::ordered_json& line);

}  // namespace kjudge::kernelbench
