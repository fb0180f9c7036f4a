#pragma once
// One run of the KernelBench runner (python/kjudge_kernelbench_runner.py): one solution's
// ModelNew against its problem's reference Model, in a process of its own, in the sandbox. The
// request goes in over a memfd, the report comes back over another (one line of JSON carrying
// the run's nonce), and the control channel (kernelbench/runner/control.h) runs beside them:
// the GPU's phases, the keys of the timed pairs, each pair committed as it ends. stdout is the
// log. docs/kernelbench.md, "The runner protocol", has the request and the report field by field.
#include <cmath>
#include <cstdint>
#include <filesystem>
#include <map>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <vector>

#include "eval/step_runner.h"
#include "kernelbench/runner/control.h"
#include "run/machine.h"
#include "triton/runner/python.h"

namespace kjudge::kernelbench {

using PythonEnv = triton::PythonEnv;

// How the timed pairs run (KernelBench's cuda_event timing, made kjudge's: every timed call on
// fresh inputs with its output checked, L2 flushed, solution and reference interleaved).
struct Timing {
  int warmup = 3;                 // untimed calls per side first (KernelBench: 3)
  int trials = 100;               // timed pairs at most (KernelBench's eval scripts: 100)
  int min_trials = 10;            // timed pairs at least, whatever the budget
  double budget_s = 10;           // wall budget of the timed pairs (after min_trials)
  std::uint64_t flush_bytes = 0;  // the L2 flush buffer; 0: max(2 x L2, 256 MiB)
  // A side whose median tail (its stream's end event to the device's end) is above this left
  // work running elsewhere: the judge times every side to the device's end then.
  double side_work_ms = 0.2;
  bool cupti = false;  // the runner marks every call for the judge's CUPTI profiler
};

struct Request {
  std::string reference_code;
  std::string solution_code;
  std::string problem;  // "L1/19 (19_ReLU.py)", for the log
  int level = 1;
  // The seed the models are built under (KernelBench's 42: Model and ModelNew get the same
  // weights from it), and the seeds of the correctness trials' inputs.
  std::uint64_t seed = 42;
  std::vector<std::uint64_t> trial_seeds;
  double atol = 1e-2, rtol = 1e-2;
  bool time = true;     // time the solution if it is correct
  bool compile = true;  // and the reference under torch.compile
  Timing timing;
  // The timed pairs' keys are drawn from it (control.h); it never enters the runner.
  std::uint64_t secret = 0;
  std::uint64_t gpu_memory_bytes = 0;  // the process's cap on torch's allocator; 0: none
  bool hf_offline = false;             // level 4: Hugging Face in offline mode
  // Every GPU phase alone (`solo` on the control channel): a run retried because it ran out of
  // GPU memory beside others.
  bool alone = false;
};

// The request as the runner reads it. Paths are where the judge wrote the code.
nlohmann::json request_json(const Request& req, const std::filesystem::path& reference_path,
                            const std::filesystem::path& solution_path, const std::string& nonce);

enum class RunStatus {
  ok,           // the runner reported (its correctness trials and timing inside)
  error,        // the runner reported an exception (stage, type, message, traceback)
  timeout,      // over the wall-clock limit (the time waiting for the GPU not counted)
  crashed,      // died, or exited without a report
  limit,        // stopped for memory or disk
  refused,      // its report was malformed, forged, or disagreed with what it committed
  judge_error,  // the runner could not be started: the judge's or the machine's fault
};
std::string_view run_status_name(RunStatus s);

struct RunError {
  std::string stage;  // setup, reference, syntax, import, init, correctness, compile, time, runner
  std::string exception_type;
  std::string message;
  std::string traceback;
};

// One correctness trial: the solution's output against the reference's on the same inputs.
struct TrialCheck {
  bool ok = false;
  std::string why;  // when not ok: what differed
  double max_abs = 0, mean_abs = 0;
  std::uint64_t mismatched = 0, elements = 0, nonfinite = 0;
  std::string shape, dtype;                    // the solution's (of its first tensor)
  std::string expected_shape, expected_dtype;  // the reference's
  // The solution's output shares memory with: its inputs, an earlier trial's output (held
  // alive), the reference's output. The reference's own aliasing of its inputs is
  // reference_alias_input.
  bool alias_input = false, alias_earlier = false, alias_reference = false;
  bool reference_alias_input = false;
};

// One timed pair: each side on its own copy of the same fresh inputs, the solution's output
// checked against the reference's.
struct TimedPair {
  double sol_ms = NAN, ref_ms = NAN, cmp_ms = NAN;              // to the stream's end event
  double sol_dev_ms = NAN, ref_dev_ms = NAN, cmp_dev_ms = NAN;  // to the device's end
  bool ok = false;
  std::string why;    // when not ok
  std::string order;  // the sides in the order they ran: "sr", "rsc", ...
  bool alias_input = false, alias_earlier = false;
};

struct CompileInfo {
  bool attempted = false, ok = false;
  std::string why;  // when not ok
  double seconds = 0;
};

// The runner's CUPTI marks (Timing::cupti): every call of a model on the profiler's clock.
struct CallMark {
  int side = 0;   // 0 solution, 1 reference, 2 compiled reference
  int phase = 0;  // 0 correctness, 1 warm-up, 2 timed
  int index = 0;  // trial, warm-up or pair
  std::uint64_t start_ns = 0, end_ns = 0;
};
struct CuptiMarks {
  bool reported = false, clock = false, finished = false;
  std::string why;
  std::uint32_t tid = 0;
  std::vector<CallMark> calls;
};

struct RunOutcome {
  RunStatus status = RunStatus::judge_error;
  std::string detail;  // one sentence for everything but ok
  RunError error;
  std::vector<TrialCheck> trials;
  std::vector<TimedPair> pairs;
  bool timed = false;       // the runner reached the timed phase and was let in
  std::string timing_note;  // why it was not timed, or stopped early
  CompileInfo compile;
  // What the solution changed that the reference runs too (torch's functions rebound), what it
  // left running (threads, modes, hooks), the torch settings it changed (the reference then ran
  // under the defaults), and the runner's own code it rebound (a refusal).
  std::vector<std::string> torch_patched, watch, flags_changed, tampered;
  nlohmann::ordered_json env = nlohmann::ordered_json::object();
  std::map<std::string, double> phase_seconds;
  std::string log;
  bool log_truncated = false;
  double seconds = 0;
  int exit_code = -1;
  int signal = 0;
  std::uint64_t memory_peak_bytes = 0;
  bool profiled = false;
  std::string profile, profile_nonce;
  CuptiMarks cupti;
  ControlLog control;
};

// Parses the report (one line of JSON). Throws InputError naming `source` and the field for
// anything malformed or a wrong nonce. Fills the report's parts of `out`.
void parse_report(const std::string& channel, const std::string& nonce, const std::string& source,
                  RunOutcome& out);

// Whether the report agrees with what the runner committed on its control channel (every pair
// it reports committed, in order, with the same times and verdict; none committed and left
// out) and with the judge's clock (a pair's device times add up to no more than the judge
// waited between its key and its done). Empty when it does; else why not.
std::string control_mismatch(const RunOutcome& o);

struct Runner {
  PythonEnv python;
  std::filesystem::path script;  // kjudge_kernelbench_runner.py
  StepSettings step;
  MachineInfo machine;
  double timeout_s = 300;  // the runner's own time; its waits for the GPU are not counted
  // How long a run may wait for the GPU's phases, on top of timeout_s, before it is killed.
  double wait_allowance_s = 3600;
  int gpu = -1;                    // CUDA_VISIBLE_DEVICES when >= 0
  std::filesystem::path profiler;  // libkjudge_profiler.so, preloaded; empty: none
  // libkjudge_end_clock.so, the end of every timed call outside Python (timing.py); empty: the
  // runner's Python stand-in, for the CPU tests' stand-in torch only (eval_stream requires it).
  std::filesystem::path end_clock;
  std::filesystem::path hf_home;  // level 4's model cache, bound read-only; empty: none
  int max_jobs = 4;               // MAX_JOBS for torch's extension builds (ninja)
};

// Runs one solution. `workspace` is the sandbox's writable folder (created), where the
// extensions the solution builds are kept (TORCH_EXTENSIONS_DIR=workspace/ext: the caller
// makes it one folder per solution source, so that the same code is built once); the run's own
// files go to workspace/run-<nonce>/, removed after. Never throws for anything the solution
// does; a judge fault is status judge_error.
RunOutcome run_kernelbench(const Runner& runner, const Request& req,
                           const std::filesystem::path& workspace, GpuGate& gate);

// The runner script: `preferred`, else $KJUDGE_KERNELBENCH_RUNNER, else
// python/kjudge_kernelbench_runner.py beside the kjudge binary or one folder up. Throws
// std::runtime_error listing where it looked.
std::filesystem::path locate_kernelbench_runner(const std::string& preferred = "");

// libkjudge_end_clock.so: $KJUDGE_END_CLOCK, else beside the binary (locate_beside_binary).
// Throws std::runtime_error saying where it looked when it is not a file.
std::filesystem::path locate_end_clock();

}  // namespace kjudge::kernelbench
