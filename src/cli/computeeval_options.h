#pragma once
// ComputeEval's names for the options of `kjudge evaluate` (its `compute_eval
// evaluate_functional_correctness`), so a command line or YAML config written for ComputeEval
// works here where the meaning is the same (docs/computeeval.md has the whole mapping):
//   --solutions_datapack     → --solutions    (a pack, or a folder of packs)
//   --problems_datapack_dir  → --datasets     (where --release finds RELEASE-problems.tar.gz)
//   --k                      → -k             (also its tuple form, --k='(1,3)')
//   --n_workers              → --workers
//   --profile_mode cupti     → --benchmark    (kjudge's CUPTI profiler; ncu has no equivalent)
//   --mode docker|local      accepted, with a note: kjudge runs every step in its own sandbox
// Fire, ComputeEval's command-line reader, takes each name with dashes too
// (--solutions-datapack), and so does kjudge. The aliases are hidden from --help.
#include <CLI/CLI.hpp>
#include <string>
#include <vector>

#include "cli/release_options.h"
#include "plan/run_options.h"

namespace kjudge {

struct ComputeEvalArgs {
  std::vector<std::string> k;  // as given: Fire's forms of an int or a tuple
  std::string problems_datapack_dir;
  std::string profile_mode;
  std::string mode;
};

void add_computeeval_aliases(CLI::App* evaluate, plan::RunOptions& run, ComputeEvalArgs& ce);

// Applies what is not a plain alias, before --release is resolved: the datasets folder, --k in
// any of Fire's forms (a bad k is an InputError naming --k), the profile mode (cupti turns
// --benchmark on; ncu is an InputError naming the option) and the note for --mode. Throws
// InputError where a ComputeEval name and kjudge's both give a value.
void apply_computeeval_aliases(const ComputeEvalArgs& ce, plan::RunOptions& run,
                               ReleaseArgs& release);

}  // namespace kjudge
