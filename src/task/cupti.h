#pragma once
// What the judge's CUPTI profiler (src/perf/profiler, preloaded into the task harness in
// benchmark and leaderboard modes) saw of a task's timed calls, set against the CUDA-event times
// the harness reported.
//
// The harness marks each call of custom_kernel with an NVTX range in its own domain
// (harness/kjudge/call_marks.h). Every kernel, copy and memset of the process (any stream, host
// thread or context) is placed by the time and thread of the API call that launched it:
//   - launched inside a timed call's range (from any thread): that call's work. The call's
//     CUPTI span runs from the first start to the last end of its work on the GPU. The events
//     on the default stream bracket the call with the stream held (StreamGate), so honest work
//     on the default stream (or joined to it) runs inside them and its span is at most the
//     event time. A span well above the event time is work the events did not time: another
//     stream, thread or context, or work left running past the call (`cupti_undercount`);
//   - launched inside an untimed call (warm-up): a call's work, not timed;
//   - launched outside every call by a thread other than the harness's: GPU work of the
//     submission's own threads between the calls (`cupti_outside`);
//   - launched outside every call by the harness's thread: the harness's own work (inputs,
//     reference, L2 flush, checks) and the submission's static constructors; not judged.
// The score stays the event time; the span is reported beside it (docs/tasks.md says why).
#include <cstdint>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "perf/harness_record.h"
#include "perf/profile_record.h"

namespace kjudge::task {

// One benchmark's timed calls as CUPTI saw them.
struct CuptiBenchmark {
  int calls = 0;                  // timed calls whose range was found (of times_ns.size())
  std::vector<double> span_ns;    // per found call: first start to last end of its GPU work
  double event_mean_ns = 0;       // the events' mean over the same calls
  double excess_ns = 0;           // mean over those calls of max(0, span - event)
  int kernels = 0, copies = 0;    // launched inside the timed calls, all calls together
  int streams = 0, contexts = 0;  // distinct ones among them
  int other_thread_launches = 0;  // of them, launched by a thread other than the harness's
};

struct CuptiFlag {
  std::string check;  // cupti_undercount, cupti_outside, cupti_ranges, cupti_record
  std::string detail;
};

struct TaskCupti {
  bool used = false;          // a profiler record was read and the calls were analysed
  std::string why;            // when !used: why not, in words
  std::uint64_t dropped = 0;  // activity records CUPTI lost
  int unplaced = 0;           // activities whose launching call CUPTI could not name
  // Whether CUPTI's launch threads and NVTX's range threads are numbered alike (the harness's
  // thread launched work between the calls); when not, threads are not compared: no
  // cupti_outside, no other_thread_launches.
  bool threads_known = true;
  std::vector<CuptiBenchmark> benchmarks;  // parallel to the harness's benchmarks
  // Launched outside every call by threads other than the harness's.
  int outside_kernels = 0, outside_copies = 0;
  double outside_gpu_ns = 0;
  std::vector<std::string> outside_names;  // a few of the kernels' names
  std::vector<CuptiFlag> flags;
  // The profiler wrote its header as it loaded and nothing after: the process ended without its
  // exit handlers. task_run refuses the report then (the harness never ends so after it).
  bool unfinished = false;
};

// The analysis of a parsed record against the harness's report; `names[i]` names benchmark i
// in the flags' details (the public case).
TaskCupti analyze_task_profile(const ProfileRecord& record, const HarnessReport& report,
                               const std::vector<std::string>& names);

// From the profiler channel's raw text: empty (the profiler wrote nothing), its header alone
// (the profiler started, asked by KJUDGE_PROFILE_EARLY_HEADER to write it at once, but the
// process skipped its exit handlers), refused (a bad or foreign record) or analysed. A header
// alone or a refused record is a `cupti_record` flag; so is an empty channel when the harness
// said the profiler was loaded in its process (report.profiler == "loaded"); otherwise CUPTI
// was unavailable here, which the result says.
// `process` names where the profiler ran in the flags' words: the harness's process, or in an
// isolated run the worker's (the checker hands the profiler to the worker; report.profiler then
// says whether it did).
TaskCupti task_cupti_from_record(const std::string& text, const std::string& nonce,
                                 const HarnessReport& report, const std::vector<std::string>& names,
                                 const std::string& process = "the harness's process");

// The stage's `cupti` object (used, why, dropped, unplaced, outside) and the fields one
// benchmark's JSON gets (cupti_calls, cupti_mean_us, cupti_median_us, cupti_excess_us, …).
nlohmann::json cupti_stage_json(const TaskCupti& cupti);
void add_cupti_benchmark_fields(const CuptiBenchmark& b, nlohmann::json& benchmark);

}  // namespace kjudge::task
