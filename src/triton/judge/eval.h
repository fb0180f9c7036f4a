#pragma once
// Judging Triton candidates: every operator's reference and every candidate run once in test
// mode (in parallel), the reference checked against a second run of itself, outputs compared,
// and, with speedup on, reference and each correct candidate timed one process at a time in
// interleaved rounds. Writes nothing itself: it hands each result out as soon as it is final
// (TritonEvalOptions::on_result), and the run (triton/judge/eval_run.h) journals it in the run
// dir.
#include <filesystem>
#include <functional>
#include <map>
#include <nlohmann/json.hpp>
#include <optional>
#include <set>
#include <string>
#include <vector>

#include "eval/static_flags.h"
#include "triton/data/operator.h"
#include "triton/judge/defects.h"
#include "triton/judge/metrics.h"
#include "triton/outputs/compare.h"
#include "triton/runner/run.h"
#include "triton/timing/work.h"

namespace kjudge::triton {

struct TritonJob {
  const TritonOperator* op = nullptr;
  std::string code;
  int sample = 0;
  std::string origin;  // "self", or "FILE:LINE"
};

// The peaks python/kjudge_gpu_peaks.py measured on the judge's GPU (docs/triton.md, "GPU
// efficiency").
struct GpuPeaks {
  std::string gpu;  // the device name the peaks were measured on
  double memory_bandwidth_bytes_per_s = 0;
  nlohmann::ordered_json matmul_flops_per_s = nlohmann::ordered_json::object();
};

// Reads the script's JSON; throws InputError naming the file and field when it is not one.
GpuPeaks read_gpu_peaks(const std::filesystem::path& file);

struct TritonJobResult;
struct TritonReferenceCheck;

struct TritonEvalOptions {
  TritonRunner runner;
  std::uint64_t seed = 20251122;
  // The secret of the test-mode runs' sampled entry calls (TritonRunRequest::test_secret): 0,
  // one drawn afresh per evaluation.
  std::uint64_t test_secret = 0;
  bool speedup = false;
  TritonTiming timing;
  int rounds = 4;         // timed rounds per candidate: one reference and one candidate process
  int warmup_rounds = 1;  // rounds run first and discarded (clocks, caches, the file system)
  // Each timing process after the first is started while the one before it runs, and imports
  // torch and triton while it waits its turn (TritonGate): about 4.5 of a process's 7 s on the
  // H100. Off by default: on the H100, with it on, 2 of 5 operators timed against themselves
  // fell outside 1.00 (docs/triton.md); every process then starts when the one before has ended.
  bool prestart = false;
  // Run each operator's reference a second time (same seed) when no job runs the reference's
  // own code (--self does: its candidate run is that second run), to tell a reference that
  // disagrees with itself from a candidate's mismatch.
  bool check_references = true;
  // With speedup: libkjudge_profiler.so, preloaded into every timing process (--cupti), whose
  // record of each process is set against the runner's marks (triton/timing/cupti.h); empty:
  // timed by the CUDA events alone.
  std::filesystem::path profiler;
  std::optional<GpuPeaks> peaks;   // with speedup: gpu_efficiency of each timed candidate
  int workers = 4;                 // test-mode runs at once (timing runs are always alone)
  std::filesystem::path work_dir;  // one workspace per run below it
  bool keep_workspaces = false;
  bool require_torch = true;  // false only in the judge's CPU tests
  // Operators whose own test is broken and what to do about each (triton/judge/defects.h): the
  // compiled-in table by default; empty to judge every operator as its test stands
  // (--keep-defective).
  std::vector<TritonDefect> defects = triton_defects();
  std::function<void(const std::string&)> progress;  // one line per finished run
  // Called once per job as soon as its result is final: graded, and timed where it is timed
  // (an excluded operator's jobs at once; the others when their operator's test runs and its
  // reference check have ended; a correct candidate with speedup on once timed). Never two
  // calls at once (of this and on_reference), but from the judge's worker threads. A throw
  // stops the run: evaluate_triton rethrows it once the runs in flight have ended.
  std::function<void(const TritonJobResult&)> on_result;
  // Called once per operator that ran, as soon as its reference check is settled, before any
  // of its jobs' on_result; `defect` is the row applied to it, or null.
  std::function<void(const TritonOperator&, const TritonRunOutcome& reference,
                     const TritonReferenceCheck& check, const TritonDefect* defect)>
      on_reference;
};

// The check of a candidate's timed calls (docs/triton.md, "Every timed output checked"): each
// one's output against the reference's on the same inputs, from the reference's first timing
// process; the reference's later processes against that first one, which shows where the
// reference disagrees with itself.
struct TritonTimedCheck {
  bool complete = false;           // every timing process ran and was compared
  std::uint64_t perturb_seed = 0;  // the job's secret (the new content is drawn from it)
  std::size_t timed = 0;           // the candidate's timed calls, warm-up rounds included
  std::size_t checked = 0;         // compared with the reference's output (passed or failed)
  std::size_t sampled = 0;         // of those, compared on samples of outputs (in part)
  std::size_t failed = 0;          // of those, different
  // Not compared: the reference's output holds no tensor there, the candidate made a call the
  // reference did not, or the reference's processes disagree there (`reference_unstable`).
  std::size_t unchecked = 0;
  std::size_t reference_unstable = 0;
  std::size_t reference_compared = 0, reference_differs = 0;       // its later processes' calls
  nlohmann::ordered_json sites = nlohmann::ordered_json::array();  // the plan, per call site
  nlohmann::ordered_json first_failure;  // {process, site, call, entry, detail} or null
};

struct TritonJobResult {
  TritonJob job;
  TritonGraded graded;
  std::string detail;
  std::optional<TritonDefect> defect;     // the row applied to this operator, if any
  TritonRunOutcome run;                   // the candidate's test-mode run
  std::optional<OutputsVerdict> outputs;  // both ran
  // What `outputs` compared: "test_result" (the test's result), or "entry_calls" (what each
  // entry call returned and wrote into its arguments, where the reference's test result holds
  // no tensor); empty when nothing was compared.
  std::string compared_on;
  // Where the test's result was compared (compared_on test_result): what the operator's own
  // calls gave, each against the reference's same call on the same seeded inputs (issue 31: a
  // test whose own check was patched, `torch.allclose` returning True, made a wrong operator
  // pass). Each call's result, and, for a call that returns no tensor, the tensor arguments it
  // left (its output is one of them); entries in which the reference's two runs differ are not
  // compared. Unset when not made (the basis is already the entry calls, the reference recorded
  // none, or a known test defect skips entries).
  std::optional<OutputsVerdict> entry_call_check;
  std::optional<TritonSpeedup> speedup;
  std::string speedup_note;         // why there is none, when speedup was asked for
  std::vector<TritonRound> rounds;  // the timed rounds (warm-up rounds are not kept)
  // Per round, the sites' entry names: [0] the reference's, [1] the candidate's.
  std::vector<std::vector<std::string>> round_entries[2];
  // Achieved bytes/s and FLOP/s of both sides for the operator's work (triton/timing/work.h:
  // stated per operator, or the runner's lower bound), over the measured peaks where known;
  // null when not timed. `efficiency_note` says why a number is missing.
  nlohmann::ordered_json efficiency;
  std::string efficiency_note;
  std::int64_t bytes[2] = {-1, -1};  // reference, candidate: the runner's lower bounds (round 0)
  // The reference's timed calls (round 0): the work is the test's, computed from the reference's
  // calls whatever the candidate returns.
  std::vector<TritonCallSite> reference_sites;
  TritonWork work;
  std::optional<TritonTimedCheck> timed_check;  // set once the job's timing began
  // What the timing processes said of persisting L2 (the runner's env.persisting_l2: "reset
  // before every timed repetition", or "not reset: why"; "not reported" where one said nothing):
  // one entry when every process said the same.
  std::set<std::string> persisting_l2;
  // The candidate's timed sites whose work outlasted the call (TritonCallSite::end == device),
  // one line each: reported as the `side_work` timing flag.
  std::vector<std::string> side_work;
  // What the candidate's processes had running beside their timed calls that the reference's
  // did not (TritonCallSite::watch), one line per site and round: the `runtime_hook` flag.
  std::vector<std::string> runtime_hooks;
  // With --cupti (TritonEvalOptions::profiler): the flags the profiler's records make for the
  // candidate (triton/timing/cupti.h: cupti_record, cupti_undercount, cupti_outside, each with its
  // lines) and the job's `cupti` object; null when the profiler was not asked for.
  std::vector<std::pair<std::string, std::vector<std::string>>> cupti_flags;
  nlohmann::ordered_json cupti;
  // Per side (reference, candidate), per timed site: the longest hold any round used, and
  // whether the site was host-bound in any round (TritonCallSite::hold_ms, host_bound).
  std::vector<double> hold_ms[2];
  std::vector<bool> host_bound[2];
  // The static pass over the candidate's code (eval/static_flags.h, path triton): flags for a
  // person, never a verdict. `cheat_flags` in results.jsonl.
  std::vector<StaticFlag> flags;
};

// The static pass over a job's code, in its operator's context (its instructions, its test's
// seeds); the file is named as the operator's.
std::vector<StaticFlag> triton_static_flags(const TritonJob& job);

// The context of a TritonBench operator for the static pass: its two instructions are the
// problem's words, and the seeds its test code sets are public.
StaticContext triton_context(const TritonOperator& op);

// Whether a reference agrees with itself: its first test-mode run against a second one on the
// same seed in another process (docs/triton.md, "Self-inconsistent references").
struct TritonReferenceCheck {
  // stable | unstable (the two runs differ, or the second failed) | no_output (no tensor to
  // compare, neither in the test's result nor in the entry calls' outputs: only None, text or
  // objects) | failed (the first run failed) | unchecked (no second run, or the second ended in
  // a judge error)
  std::string status = "unchecked";
  std::string detail;
  std::string second_run;  // "self candidate" | "second reference run" | ""
  // What the reference's runs (and its candidates) are compared on: "test_result", or
  // "entry_calls" where the test's result holds no tensor but the entry calls' outputs do;
  // empty for no_output and failed.
  std::string compared_on;
  std::optional<OutputsVerdict> outputs;  // the second run against the first
  // The entry calls' outputs of the second run against the first (whatever compared_on is):
  // the entries that differ ("calls[2].args[1]") are not held against candidates
  // (TritonJobResult::entry_call_check); `calls_comparable` is false when the two runs made
  // other calls, or recorded none.
  std::set<std::string> unstable_calls;
  bool calls_comparable = false;
};

struct TritonEvalResult {
  std::vector<TritonJobResult> results;                // in the jobs' order
  std::map<std::string, TritonRunOutcome> references;  // "G/add_example" -> its test-mode run
  std::map<std::string, TritonReferenceCheck> checks;  // "G/add_example" -> is it self-consistent
  std::map<std::string, TritonDefect> defects;         // the rows applied to the judged operators
  TritonScores scores;
};

TritonEvalResult evaluate_triton(const std::vector<TritonJob>& jobs, const TritonEvalOptions& opt);

// The JSON forms written to results.jsonl and references.jsonl (docs/schemas).
// The run-time flags of a job's timing (`timing_flags` in results.jsonl): side_work and
// runtime_hook, each with its lines; empty when neither.
nlohmann::ordered_json triton_timing_flags(const TritonJobResult& r);
nlohmann::ordered_json triton_result_json(const TritonJobResult& r);
nlohmann::ordered_json triton_reference_json(const TritonOperator& op, const TritonRunOutcome& ref,
                                             const TritonReferenceCheck* check = nullptr,
                                             const TritonDefect* defect = nullptr);
// The failure class of a result (src/triton/judge/failure.h): {class, title, cause, rule}, or
// null for verdicts that say nothing about the candidate.
nlohmann::ordered_json triton_failure_json(const TritonJobResult& r);
// summary.json: `run_info` (what was judged and how) first, then the scores.
nlohmann::ordered_json triton_summary_json(const TritonEvalResult& res,
                                           const nlohmann::ordered_json& run_info);

}  // namespace kjudge::triton
