#pragma once
// One run of the Python runner (python/kjudge_triton_runner.py): one operator's test code
// against one piece of operator code, in its own process, in the sandbox, with a wall-clock
// limit and the step's memory limit. The request goes in and the record comes back over two
// memfds the judge creates and the runner inherits by number (docs/triton.md, "The runner
// protocol"); stdout is only the log.
#include <cstdint>
#include <filesystem>
#include <map>
#include <memory>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <vector>

#include "eval/step_runner.h"
#include "run/machine.h"
#include "triton/outputs/tensor_file.h"
#include "triton/runner/python.h"

namespace kjudge {
class ResultChannel;  // run/result_channel.h
}  // namespace kjudge

namespace kjudge::triton {

// How the runner times each call the test makes (CudaTimer in the runner), and checks each
// timed call's output (CallCheck; docs/triton.md, "Every timed output checked").
struct TritonTiming {
  int warmup = 3;                 // untimed calls after the test's own call
  int reps = 30;                  // timed calls at most
  int min_reps = 5;               // timed calls at least, whatever the budget
  double max_ms_per_site = 1000;  // wall budget of one call site's timed calls
  std::uint64_t flush_bytes = 0;  // the L2 flush buffer; 0: max(2 x L2, 256 MiB)
  // Floating-point arguments get new content in every timed call, where the reference allows.
  bool perturb = true;
  double perturb_relative = 0.125;  // how far each value moves, relative to itself
  // The secret the new content is drawn from, the same in every process of a timed job;
  // 0: a fresh one per job (a candidate cannot compute tomorrow's inputs today).
  std::uint64_t perturb_seed = 0;
  // Bytes of timed calls' outputs one call site, and one process, send back (the judge holds
  // them as doubles): calls whose whole outputs do not fit keep a sample of each large tensor
  // instead (the runner's SAMPLE_ELEMENTS, 65536 elements at most); the repetitions are cut
  // (to min_reps at least) only where even the smallest samples do not fit.
  std::uint64_t check_bytes_per_site = std::uint64_t{16} << 20;
  std::uint64_t check_bytes = std::uint64_t{128} << 20;
  // The runner marks every call of the operator code in the clock of the judge's CUPTI
  // profiler (TritonRunner::profiler, preloaded), so the judge can place each kernel the
  // profiler saw (triton/timing/cupti.h).
  bool cupti = false;
};

// Test mode: of each call of one entry, keep only some arguments (after the call), under a cap
// of their own (an operator writing its output into an argument, whose calls are too large for
// the whole-call capture: triton/judge/defects.h, entry_args).
struct TritonEntryArgs {
  std::string entry;      // the entry as the runner names it ("matmul", "K[grid]", "F.apply")
  std::vector<int> args;  // positions of the arguments to keep: {3} keeps args[3]
  // The bytes the runner records of all the calls together (in practice the kept arguments of
  // this entry's calls; other entries' calls stop at the usual 16 MiB); a call of the entry that
  // would pass it is not recorded (calls are kept whole). The judge holds each element as a
  // double, 8 bytes: up to 8 x this per run (float16: 4 x) until the run is graded.
  std::uint64_t max_bytes = std::uint64_t{256} << 20;
};

struct TritonRunRequest {
  std::string code;       // the operator code: a candidate's, or the reference's
  std::string test_code;  // the operator's test code (after the 146-'#' line)
  std::uint64_t seed = 0;
  bool test = true;   // run the test and return its outputs
  bool time = false;  // time the calls the test makes
  TritonTiming timing;
  // Per call site, what the timed calls get new content in and read back (triton_check_plan of
  // the reference's first timing process); null: that first process, which decides it.
  nlohmann::json plan;
  bool require_torch = true;  // false only for the judge's own CPU tests
  // Test mode only: the runner makes torch.empty, empty_like, empty_strided and
  // Tensor.new_empty(_strided) return zero-filled tensors, installed before the operator code
  // runs (an operator whose own test reads memory it never set: triton/judge/defects.h).
  bool zero_fill = false;
  // Test mode only: keep just these arguments of each call of this entry (null in the request
  // when empty).
  std::optional<TritonEntryArgs> entry_args;
  // Test mode: the secret the positions of a sampled entry call (one too large to keep whole)
  // are drawn from, streamed to the runner once the call has returned; the same for every run
  // of one evaluation, so that the reference's and the candidates' samples line up.
  std::uint64_t test_secret = 0;
};

// The request as the runner reads it. Paths are where the judge wrote the code.
nlohmann::json triton_request_json(const TritonRunRequest& req,
                                   const std::filesystem::path& candidate_path,
                                   const std::filesystem::path& test_path,
                                   const std::string& nonce);

// One value an operator call was given or returned, as the runner described it: what the
// per-operator work counts (triton/timing/work.h) are computed from.
struct TritonCallValue {
  enum class Kind { tensor, scalar, text, none };
  std::string name;  // "a", "args[2]", "out0", "result", "result[1]", "result.key"
  Kind kind = Kind::none;
  std::string dtype;                // tensor: torch's name ("float16")
  std::vector<std::int64_t> shape;  // tensor
  bool cuda = false;                // tensor: on the device
  std::optional<double> number;     // scalar (bool as 0/1); empty for NaN or infinity
  std::string text;                 // text
};

// How the runner checked one call site's timed calls: what got new content, what it read back,
// and each timed call's output.
struct TritonSiteCheck {
  std::string mode;                    // perturbed | unperturbed (plain copies)
  std::string reason;                  // why unperturbed
  std::vector<std::string> perturbed;  // argument paths with new content ("args[0]")
  std::vector<std::string> observed;   // argument paths read back after each call
  // The untimed calls the reference's first process made to decide (the paths given new content
  // in each), which every later process makes again: the same calls everywhere.
  std::vector<std::vector<std::string>> probe;
  std::vector<OutputSet> outputs;  // per timed call: "result..." and the observed arguments
  // Per timed call, the SHA-256 of its slice of the report's blob: what the runner committed to
  // the judge on the per-call channel must be what the report carries (TritonStreamLog).
  std::vector<std::string> digests;
  // Of `outputs`, the first `whole` keep the whole output the plan allowed; the others (and a
  // call planned whole that did not fit the runner's budgets) keep a sample of at most `sample`
  // elements of each tensor (OutputEntry::sample). The reference's first process decides both
  // and the plan hands them on. Absent from the report: every call whole, sample 0 (unsaid).
  std::size_t whole = 0;
  std::uint64_t sample = 0;
};

struct TritonCallSite {
  std::string entry;               // the operator function the test called
  std::vector<double> samples_ms;  // one per timed repetition
  // A lower bound on the bytes one call moves: its distinct CUDA tensors (arguments and result)
  // once each, as the runner counted them; -1 when the runner did not say.
  std::int64_t bytes = -1;
  std::vector<TritonCallValue> values;  // empty when the runner did not say
  TritonSiteCheck check;                // outputs: one per sample
  // stream: timed to an event right behind the call's work; device: its median tail past that
  // event (until every stream was synchronized) was long, so work went on elsewhere and the
  // samples run to the device-wide end instead (python/kjudge_triton_runner.py, CudaTimer).
  std::string end = "stream";
  double tail_ms = 0;  // that median tail
  // A call the host was slower to queue than the GPU to run was timed behind a spin that held
  // the stream this long (0: no hold); host_bound: even the longest hold never covered it (the
  // call waits on the GPU itself), so it was timed without one.
  double hold_ms = 0;
  bool host_bound = false;
  // What the process had running beside its timed calls that was not running before the
  // operator code ran (a thread by name, a torch function or dispatch mode, a trace hook):
  // work there can escape every event (python/kjudge_triton_runner.py, RuntimeWatch).
  std::vector<std::string> watch;
};

// The plan a timing process passes on (TritonRunRequest::plan): per site its entry, mode,
// reason, the paths to give new content and to read back, its probe calls, its number of timed
// calls, how many of them keep their whole output (`whole`) and the elements of each tensor the
// others keep (`sample`; 0: the runner's SAMPLE_ELEMENTS).
nlohmann::json triton_check_plan(const std::vector<TritonCallSite>& sites);

enum class TritonRunStatus {
  ok,           // the runner reported success
  error,        // the runner reported an exception (stage, type, message, traceback)
  timeout,      // killed at the wall-clock limit
  crashed,      // died (signal, non-zero exit) or exited without a report
  limit,        // stopped for memory or disk
  refused,      // its report was malformed, cut short or carried the wrong nonce
  judge_error,  // the runner could not be started: the judge's or the machine's fault
};

std::string_view triton_run_status_name(TritonRunStatus s);
// The status of a name triton_run_status_name gives; nullopt for any other.
std::optional<TritonRunStatus> triton_run_status_from_name(std::string_view name);

struct TritonRunError {
  std::string stage;  // setup, syntax, import, test_syntax, call, result, time, runner
  std::string exception_type;
  std::string message;
  std::string traceback;
};

// Test mode: what one outermost call returned and left in its tensor arguments ("result...",
// "args[1]", "kwargs.out"), as the runner recorded it.
struct TritonCallOutput {
  std::string entry;
  std::optional<OutputSet> outputs;  // empty: not recorded (over the runner's cap)
  std::string digest;                // SHA-256 of its slice of the blob; empty when not recorded
};

// One message of the per-call channel the judge serves while a run goes on (the runner's
// CallStream, docs/triton.md "The runner protocol"), with the judge's own clock when it was read.
struct TritonStreamEvent {
  enum class Kind { key, done, kept, rec, call };
  Kind kind = Kind::key;
  std::size_t site = 0;                 // rec: 0
  std::size_t rep = 0;                  // rec: the entry call's index
  std::int64_t at_ns = 0;               // CLOCK_REALTIME when the judge read it
  double stream_ms = 0, device_ms = 0;  // done: the call's samples, committed
  std::string digest;                   // kept, rec: SHA-256 hex ("" for rec "-")
};

struct TritonStreamLog {
  bool served = false;        // the runner was given the channel
  std::int64_t spawn_ns = 0;  // CLOCK_REALTIME just before the runner was started
  std::vector<TritonStreamEvent> events;
  // Non-empty: a message out of order, malformed, or of a kind this run has no use for (what a
  // forger writing on the runner's descriptor makes); the run is refused.
  std::string violation;
};

// The key of timed call `rep` of site `site` (its new content), and of its sample's positions,
// as the judge streams them: 32 hex digits from the job's secret. The probe's seed (untimed
// calls that decide the plan) goes in the request instead.
std::string triton_call_key(std::uint64_t secret, std::size_t site, std::size_t rep);
std::string triton_sample_key(std::uint64_t secret, std::size_t site, std::size_t rep);
// Test mode: the key of entry call `index`'s sample positions.
std::string triton_call_sample_key(std::uint64_t secret, std::size_t index);
std::uint64_t triton_probe_seed(std::uint64_t secret);

// One call of the operator code as the runner marked it in the profiler's clock (the request's
// timing.cupti): a timed call of site `site` (rep: its index in the site's samples), or another
// call of that site (rep -1: the test's own, a warm-up, a probe, a repetition not counted).
struct TritonCallMark {
  std::size_t site = 0;
  int rep = -1;
  std::uint64_t start_ns = 0, end_ns = 0;
};

// The runner's `cupti` report: its thread, its marks, and whether its call wrote the profiler's
// record (false: something in the process wrote it first, and the work after is missing).
struct TritonCuptiMarks {
  bool reported = false;  // the record had a `cupti` object
  bool clock = false;     // the runner found the profiler's clock
  bool finished = false;
  std::string why;        // when !clock or !finished, the runner's words
  std::uint32_t tid = 0;  // the runner's thread (gettid), which the profiler's launches carry
  std::vector<TritonCallMark> calls;
  // Executing the operator code as a module: its own setup, [start, end]; {0, 0} when unmarked.
  std::uint64_t import_start_ns = 0, import_end_ns = 0;
};

struct TritonRunOutcome {
  TritonRunStatus status = TritonRunStatus::judge_error;
  std::string detail;    // one sentence for everything but ok
  TritonRunError error;  // status error
  bool has_outputs = false;
  OutputSet outputs;
  std::vector<TritonCallOutput> call_outputs;                       // mode test, with torch
  std::vector<TritonCallSite> sites;                                // mode time
  nlohmann::ordered_json calls = nlohmann::ordered_json::object();  // entry -> outer calls
  std::vector<std::string> entries;   // the functions the runner wrapped
  std::vector<std::string> shadowed;  // operator functions the test code redefines (leakage)
  std::string result_source;          // e.g. "result_gold = test_add()"
  // What the runner reported of the zero fill (TritonRunRequest::zero_fill): {"patched": [the
  // functions], "calls": {function: count}}; null when it reported none.
  nlohmann::ordered_json zero_fill;
  // What the runner reported of the kept entry arguments (TritonRunRequest::entry_args):
  // {"entry", "args", "calls": the entry's calls, "recorded": those whose arguments were kept,
  // "bytes": what they hold}; null when it reported none.
  nlohmann::ordered_json entry_args;
  nlohmann::ordered_json env = nlohmann::ordered_json::object();  // python, torch, triton, gpu
  std::string log;                                                // stdout + stderr, capped
  bool log_truncated = false;
  double seconds = 0;
  // The runner's own clock per phase (setup: importing torch; test; time), as it reported them;
  // seconds minus their sum is the interpreter's start and exit and the sandbox's.
  std::map<std::string, double> phase_seconds;
  int exit_code = -1;
  int signal = 0;
  std::uint64_t memory_peak_bytes = 0;
  // With TritonRunner::profiler: the profiler's channel as it came back (its raw text, possibly
  // empty) and the nonce it had to carry, for triton/timing/cupti.h; the runner's marks.
  bool profiled = false;
  std::string profile;
  std::string profile_nonce;
  TritonCuptiMarks cupti;
  // The per-call channel's messages, with the judge's clock: what the runner committed as each
  // timed call (or, in test mode, each entry call) ended. The report is checked against it.
  TritonStreamLog stream;
  // What the runner found rebound of its own code (the report's `tampered`): such a run is
  // refused.
  std::vector<std::string> tampered;
};

// Whether a report agrees with what its runner committed on the per-call channel: in mode
// time, every reported site's timed calls each keyed, done and kept in order, with the samples
// and output digests the report carries; in mode test, one `rec` per entry call with its
// output's digest. Empty when it does; else why not (the run is then refused).
std::string triton_stream_mismatch(const TritonRunOutcome& o, bool timed);

// Parses what the runner wrote into its result channel: one line of JSON, then the data blob.
// Throws InputError naming `source` and the field for anything malformed, a wrong nonce or a
// length that does not add up. Fills the record's parts of `out`.
void parse_runner_record(const std::string& channel, const std::string& nonce,
                         const std::string& source, TritonRunOutcome& out);

struct TritonRunner {
  PythonEnv python;
  std::filesystem::path script;  // kjudge_triton_runner.py
  StepSettings step;
  MachineInfo machine;
  double timeout_s = 180;
  int gpu = -1;  // CUDA_VISIBLE_DEVICES when >= 0
  // libkjudge_profiler.so, preloaded into the runner with a channel of its own (the judge's
  // CUPTI profiler, src/perf/profiler); empty: none.
  std::filesystem::path profiler;
};

// Writes the code into `workspace` (created), runs the runner there and reads its report.
// Never throws for anything the operator code does; a judge fault is status judge_error.
TritonRunOutcome run_triton(const TritonRunner& runner, const TritonRunRequest& req,
                            const std::filesystem::path& workspace);

class TritonStreamServer;

// What a runner is started on: its workspace with the code and test files, and its two
// channels (request, result). Made before the process starts; the request may be written later.
struct TritonRunFiles {
  // Throws std::runtime_error or std::filesystem::filesystem_error.
  TritonRunFiles(const std::filesystem::path& workspace, const std::string& code,
                 const std::string& test_code);
  ~TritonRunFiles();
  TritonRunFiles(const TritonRunFiles&) = delete;
  TritonRunFiles& operator=(const TritonRunFiles&) = delete;
  // Writes the request (its code must be these files'); throws std::runtime_error.
  void write_request(const TritonRunRequest& req) const;

  std::filesystem::path ws, candidate, test;
  std::unique_ptr<ResultChannel> request, result;
  std::unique_ptr<TritonStreamServer> stream;  // the per-call channel, served while it runs
};

// A run started ahead of its turn (docs/triton.md, "Timing"): importing torch and triton takes
// most of a timing process's 7 s on the H100, so the next process of a job's rounds starts
// while the one before it is timing, imports, and waits on a pipe without touching the GPU.
// release() hands it its request (known only then: the check plan comes from the first
// process) and lets it go; cancel() ends it without a run. One thread runs run_triton_gated
// while another releases or cancels.
class TritonGate {
 public:
  // Makes the workspace with the code and test files, the channels and the pipe. Throws
  // std::runtime_error or std::filesystem::filesystem_error.
  TritonGate(const std::filesystem::path& workspace, const std::string& code,
             const std::string& test_code);
  ~TritonGate();
  TritonGate(const TritonGate&) = delete;
  TritonGate& operator=(const TritonGate&) = delete;

  // Writes the request (its code must be the gate's) and the go byte; false, with the gate
  // cancelled, when it cannot.
  bool release(const TritonRunRequest& req);
  // Closes the pipe with no go byte: the runner exits without a report.
  void cancel();

 private:
  friend TritonRunOutcome run_triton_gated(const TritonRunner& runner, TritonGate& gate);
  TritonRunFiles files_;
  int go_read_ = -1, go_write_ = -1;
};

// Runs the runner of a gate: it waits for release() before it reads its request. Its timeout
// is the runner's twice over (a turn can take a whole run to come). As run_triton otherwise.
TritonRunOutcome run_triton_gated(const TritonRunner& runner, TritonGate& gate);

}  // namespace kjudge::triton
