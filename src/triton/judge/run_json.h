#pragma once
// RUN/run.json of `kjudge triton eval`: what the run judges (its identity: the data folder, the
// candidates, the filters and the options that decide a verdict or a speedup), written before
// the first run. `--resume` refuses a run directory whose identity differs from the command's,
// naming what differs, so one results.jsonl never mixes two runs (docs/triton.md).
#include <cstdint>
#include <filesystem>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "triton/judge/eval.h"
#include "triton/runner/run.h"

namespace kjudge::triton {

// What of a run's options goes into its identity: the candidates, the filters and what decides
// a verdict or a speedup. Plain values, so the engine takes no command-line struct: `kjudge
// triton eval` fills it from its options (cli/triton_eval_args.h).
struct RunIdentityOptions {
  std::string dir;            // the data folder
  bool self = false;          // the operators' own code as the candidates
  std::string solutions;      // --solutions
  std::string llm_generated;  // --llm-generated
  std::string channel;        // "G", "T" or "" (both)
  std::vector<std::string> operators;
  int difficulty = 0;  // 0: any
  int limit = 0;       // 0: none
  bool keep_defective = false;
  bool no_reference_check = false;
  std::uint64_t seed = 0;
  bool speedup = false;
  int rounds = 0;
  int warmup_rounds = 0;
  TritonTiming timing;
  bool cupti = false;  // --cupti: the profiler required
};

// The identity of a run of these options over these `jobs` (every job selected, done or not):
// the data folder and the candidates' file as absolute paths, --channel, --operator (sorted),
// --difficulty, --limit, --keep-defective, the reference check, --seed, --speedup and, with it,
// the rounds and the timing options, the job count and a hash of every job (its key, its code,
// the operator's reference and test code). Not the options a resumed run may change: --python,
// --timeout, --workers, --gpu, the sandbox, --peaks, --prestart.
nlohmann::ordered_json triton_run_identity(const RunIdentityOptions& a,
                                           const std::vector<TritonJob>& jobs);

// Throws InputError naming run_dir/run.json when it is missing, unreadable or not a `kjudge
// triton eval` run's, or when its identity differs from `identity` (each difference named by its
// option, with the value the run was started with and the value now).
void check_triton_run_identity(const std::filesystem::path& run_dir,
                               const nlohmann::ordered_json& identity);

// Whether the run in run_dir was timed with the CUPTI profiler (its identity's timing.cupti);
// false when run.json is missing or unreadable (check_triton_run_identity says why).
bool triton_run_used_cupti(const std::filesystem::path& run_dir);

// Writes run_dir/run.json (a new file renamed over it): kind, version, the identity and when the
// run started; a resumed run keeps the start and adds the time to `resumed_at`.
void write_triton_run_json(const std::filesystem::path& run_dir,
                           const nlohmann::ordered_json& identity, bool resumed);

}  // namespace kjudge::triton
