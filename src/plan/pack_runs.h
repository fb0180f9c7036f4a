#pragma once
// kjudge evaluate --solutions FOLDER: a folder of solution packs (core/solution_packs.h), as
// ComputeEval 2026.1 evaluates several models at once. Each pack is a run of its own against the
// same problems, in OUT/NAME/ (run.json, results.jsonl, summary.json, NAME-graded-solutions.jsonl:
// everything a one-pack run has, so `kjudge report OUT/NAME` and --resume work on it as on any
// run), and OUT/summary.json (kind kjudge-packs-summary) puts the packs side by side: each one's
// pass@k, verdicts, run directory and graded file. docs/computeeval.md describes the layout.
#include <vector>

#include "core/solution_packs.h"
#include "plan/run_options.h"

namespace kjudge::plan {

// Plans every pack before any is run (a bad pack, or a run directory holding another run, stops
// everything with nothing judged), then carries them out one after another on this machine, each
// with the whole machine; the environment is checked once. With --resume each pack's run is
// finished (a pack new to the folder is started). Returns the exit code: interrupted as soon as a
// pack's run is (the rest wait for --resume), else the gravest of the packs' (judge_error over
// findings over ok). Throws InputError for --executor slurm (one pack at a time there) or a run
// directory that holds a one-pack run.
int evaluate_each_pack(const RunOptions& options, const std::vector<SolutionPackRef>& packs);

}  // namespace kjudge::plan
