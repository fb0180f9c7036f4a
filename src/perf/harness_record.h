#pragma once
// What the task harness (harness/kjudge_harness.cu) reports over its private channel: one
// record a line, `KJ1 <nonce> <key> <value>`, the last `end <count of the records before it>`.
// A record is trusted only whole: every line must carry this run's nonce, the end record must
// be there and its count right, and nothing may follow it. Anything else means the submission
// wrote to the channel (or the run was cut), and the whole result is refused.
#include <cstdint>
#include <stdexcept>
#include <string>
#include <vector>

namespace kjudge {

struct HarnessTest {
  std::string spec;
  std::string status;  // pass, fail, or error (the task's reference failed)
  std::string error;
  double max_abs_error = -1;  // -1: not reported
};

struct HarnessBenchmark {
  std::string spec;
  std::vector<double> times_ns;  // CUDA events around each timed call
  std::vector<double> host_ns;   // host clock around call + device synchronize
  int checked = 0;               // outputs checked against the reference
  std::string status;            // pass or fail
  std::string error;
  std::string stop;  // why the repetitions stopped (kj::StopReason)
  // Isolated runs (harness/kjudge/split_call.cuh): the checker's events around each of the
  // worker's calls (times_ns are then the worker's own events, the score). Empty otherwise.
  std::vector<double> checker_ns;
};

struct HarnessReport {
  std::string mode, device;
  std::string process;      // "isolated": the checker of an isolated run wrote the report
  double crossing_ns = -1;  // isolated: the checker's events around an empty call (least of 20)
  std::int64_t l2_bytes = 0;
  int warmup_calls = 0;
  std::vector<HarnessTest> tests;
  std::vector<HarnessBenchmark> benchmarks;
  std::string profile_spec, profile_error;
  std::string task_error;  // generate_input / ref_kernel / tolerance threw
  // "loaded" when the judge's CUPTI profiler was in the harness's process, "absent" when not,
  // "" from a harness that does not say (src/task/cupti.h).
  std::string profiler;
  // Isolated runs: "passed" when the checker handed the judge's profiler to the worker (the
  // submission's process), "absent" when not; how the worker ended when the checker let it go
  // ("exit 0", "killed after 20000 ms").
  std::string worker_profiler, worker_end;
  bool passed = false;  // check: pass
};

class HarnessRecordError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

HarnessReport parse_harness_record(const std::string& text, const std::string& nonce);

}  // namespace kjudge
