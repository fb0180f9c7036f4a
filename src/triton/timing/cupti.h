#pragma once
// What the judge's CUPTI profiler (src/perf/profiler, preloaded into the Triton runner's timing
// processes by `kjudge triton eval --cupti`) saw of a job's timed calls, set against the CUDA-event
// times the runner reported, and the flags that makes for the candidate.
//
// The runner marks every call of the operator code in the profiler's own clock
// (TritonCuptiMarks: python/kjudge_triton_runner.py, CallMarks), and the import of the operator
// code. Every kernel, copy and memset of the process (any stream, host thread or context) is
// placed by the time and thread of the API call that launched it:
//   - launched inside a timed call's window (from any thread): that call's work. Its CUPTI span
//     runs from the first start to the last end of that work on the GPU. Honest work on the
//     timed stream runs between the call's events, so its span is at most the event time; a
//     span well above it is work the events did not time: another stream, thread or context,
//     work that started during the stream's hold, or work left running past the call
//     (`cupti_undercount`);
//   - launched inside another call of the operator code (the test's own, a warm-up, a probe) or
//     its import: the operator's work, not timed, not judged;
//   - launched outside every call by a thread other than the runner's: GPU work of the operator
//     code's own threads (or torch's autograd thread, for a backward pass the test starts
//     itself) between the calls (`cupti_outside`, where the candidate's exceeds the
//     reference's);
//   - launched by the runner's thread between the timed calls of a site (inside its timed loop,
//     outside every window): the runner's own work (the L2 flush, the new inputs, the
//     read-back), the same on both sides; a kernel the reference's processes never launched
//     there that is not one of torch's own (ATen's) is the operator code's, run from a hook
//     (`cupti_outside`). Elsewhere the runner's thread runs the test's code, which may call the
//     operator code in ways that have no window (an instance's method): not judged.
// With the judge's per-call channel (TritonStreamLog: when each timed call's key went out and
// its done came back, on the judge's clock, which CUPTI's is on Linux: CLOCK_REALTIME) the
// windows are held to account too (issue 31): a timed call's window must lie between its key
// and its done, and inside that interval, outside every window, the process may launch only what
// the reference's processes launched there (the new inputs, the L2 flush). The score stays the
// event time, but the evidence decides whether there is one: TritonCuptiJudge::verdict_flags
// are the checks that withhold the speedup (verdict timing_refused), the others are for a person
// to read.
#include <cstdint>
#include <map>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "perf/profile_record.h"
#include "triton/runner/run.h"

namespace kjudge::triton {

// One call site's timed calls in one process, as CUPTI saw them.
struct TritonCuptiSite {
  int calls = 0;  // timed calls marked (one per sample)
  int empty = 0;  // of them, windows in which nothing was launched
  double span_mean_ns = 0;
  double event_mean_ns = 0;  // the samples' mean over the same calls
  double excess_ns = 0;      // mean over the calls of max(0, span - event)
  int kernels = 0, copies = 0;
  int streams = 0, contexts = 0;
  int other_thread_launches = 0;  // launched inside the windows by threads not the runner's
  // Per timed call: the CUPTI span (first GPU start to last GPU end of what its window launched)
  // and the GPU busy time (the union of those activities' GPU intervals).
  std::vector<double> span_ns, busy_ns;
  // Timed calls whose reported sample is below the GPU busy time inside them (beyond
  // kBusyToleranceNs and kBusyToleranceShare): a time no honest event pair can give.
  int below = 0;
  std::string below_example;
  // Timed calls in whose window no device work was launched: no kernel, no copy between device
  // memories, no memset (a copy from the host is the host's work).
  int no_work = 0;
  // With the per-call channel and comparable clocks: windows outside [key, done] of their call.
  int outside_interval = 0;
  std::string outside_interval_example;
  // Per timed call, what was launched inside [key, done] outside every window (by name; copies
  // as "copy <kind>"), and how many attempts the call took (1 + the untimed windows in it: a
  // repetition not counted is made again with the same inputs).
  std::vector<std::map<std::string, int>> interval_launches;
  std::vector<int> attempts;
  // Per timed call, what was launched while its output was read back (from its done to its
  // kept on the judge's clock): the runner's gather and copy to the host, the same for every
  // output of the reference's dtype and shape.
  std::vector<std::map<std::string, int>> readback_launches;
  // Calls whose attempts not counted did far more GPU work than the counted one (the work done
  // where it is not timed, the counted call handing back what it made).
  int retry_heavier = 0;
  std::string retry_example;
};

struct TritonCuptiProcess {
  // The record was read and placed against the marks. When not, `why` says why: CUPTI was not
  // there, or the record or the marks cannot be trusted (cut short, written early by something
  // in the process, a foreign nonce), which is a `cupti_record` flag on the candidate's side.
  bool used = false;
  std::string why;
  std::uint64_t dropped = 0;           // activity records CUPTI lost
  int unplaced = 0;                    // activities CUPTI could not date or name a thread for
  bool threads_known = true;           // the runner's thread launched something (the ids agree)
  std::vector<TritonCuptiSite> sites;  // parallel to the process's sites
  // Outside every call and the import, by threads other than the runner's.
  int outside_kernels = 0, outside_copies = 0;
  double outside_gpu_ns = 0;
  std::vector<std::string> outside_names;  // a few of the kernels' names
  // Between the timed calls of a site, by the runner's thread, outside every window: kernels
  // by name.
  std::map<std::string, int> runner_kernels;
  // Launched inside a site's timed loop (from its first key, or first window, to its last done,
  // or last window) outside every window, by threads other than the runner's: the operator's
  // work while its calls were being timed.
  int loop_other_launches = 0;
  double loop_other_gpu_ns = 0;
  std::vector<std::string> loop_other_names;
  // The per-call channel's clock against the profiler's: "" (no channel), "comparable", or why
  // not (the record's start is not between the process's start and its first message).
  std::string clock;
  bool clock_comparable() const { return clock == "comparable"; }
};

// Tolerances of the per-call rules (docs/triton.md, "Timing", item 4).
// A timed call's busy time may exceed its sample by this much (timestamp granularity, CUPTI's
// normalization) before the sample is a time no event pair can give.
inline constexpr double kBusyToleranceNs = 1000;
inline constexpr double kBusyToleranceShare = 0.02;
// A window may lie this far outside [key, done] of its call (the two clocks' disagreement).
inline constexpr std::int64_t kIntervalSlackNs = 100000;
// What is launched this close to a call's key or done is not counted as inside its interval.
inline constexpr std::int64_t kIntervalEdgeNs = 10000;

// A process's record (the raw channel text and its nonce) against its marks and sites. Never
// throws: a bad record leaves the process not used, saying why.
TritonCuptiProcess triton_cupti_process(const TritonRunOutcome& o);
// `stream`: the run's per-call channel, where it had one (null: the windows are not held to the
// judge's clock).
TritonCuptiProcess analyze_triton_profile(const ProfileRecord& record,
                                          const TritonCuptiMarks& marks,
                                          const std::vector<TritonCallSite>& sites,
                                          const TritonStreamLog* stream = nullptr);

// Whether a kernel name is one of torch's own (ATen's): work the runner and the test do through
// torch, which the candidate's hooks could also launch but the reference's runs show too.
bool aten_kernel(const std::string& name);

// A job's processes, reference and candidate, and the flags they make for the candidate: only
// what the reference's processes did not show is held against it.
class TritonCuptiJudge {
 public:
  // `what` names the process in the flags' lines ("candidate round 1"); `entries` its sites'.
  void add(TritonCuptiProcess p, bool reference, std::string what,
           std::vector<std::string> entries);
  // check -> its lines, in the order cupti_record, cupti_clock, cupti_below_gpu, cupti_no_work,
  // cupti_interval, cupti_hidden_work, cupti_undercount, cupti_outside.
  std::vector<std::pair<std::string, std::vector<std::string>>> flags() const;
  // The checks among flags() that withhold the speedup (evidence the operator code cannot
  // touch contradicts the timing): every one but cupti_undercount and cupti_outside.
  static bool decides(const std::string& check);
  // The job's `cupti` object: per side the processes analysed, what was lost, and the figures
  // the flags come from.
  nlohmann::ordered_json json() const;

 private:
  struct Entry {
    TritonCuptiProcess p;
    std::string what;
    std::vector<std::string> entries;
  };
  std::vector<Entry> sides_[2];  // [0] reference, [1] candidate
};

}  // namespace kjudge::triton
