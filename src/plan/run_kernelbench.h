#pragma once
// `kjudge run --kernelbench DIR`: generate and judge in one run directory, each answer judged as
// soon as it arrives. The generation session asks the model (KernelBench's prompt shape,
// plan/generate_kernelbench.h) and journals each answer; its code, taken by KernelBench's rule,
// goes straight to the KernelBench judge's stream (kernelbench/judge/eval_stream.h), whose
// workers run it in the sandbox while the model answers the others. The directory holds both
// halves: generation.jsonl, answers/, generation-run.json, kernelbench-gen.json and
// generation-summary.json beside run.json, results.jsonl and summary.json (which gets a
// `generation` object), and kernelbench-solutions.jsonl, which `kjudge kernelbench eval
// --solutions` judges again alone. --resume asks only for the missing answers and judges only
// the unjudged ones.
#include <nlohmann/json.hpp>

#include "kernelbench/judge/eval.h"
#include "plan/generate.h"

namespace kjudge::plan {

struct KernelBenchRunOptions {
  GenArgs gen;  // the model; its out, resume and filter are the run's
  KernelBenchGenOptions kernelbench;
  kernelbench::EvalOptions judge;  // how answers are judged; dir, level, out, resume set here
  kernelbench::EvalSandbox sandbox;
};

struct KernelBenchRunDone {
  nlohmann::ordered_json summary;  // summary.json
  std::filesystem::path results;   // results.jsonl
  int rc = 0;                      // the exit code (core/exit_codes.h)
};

// Throws InputError for bad input and Error where the run cannot start (no API key, no
// interpreter or runner).
KernelBenchRunDone run_kernelbench(const KernelBenchRunOptions& o, const kernelbench::Note& note);

}  // namespace kjudge::plan
