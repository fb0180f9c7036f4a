#pragma once
// The text record that the judge's CUPTI profiler library writes when a benchmark exits, and its
// parser. The parser trusts nothing: the record is written inside the sandbox, next to code the
// judge is measuring, so a malformed, truncated or forged record is an error, never a timing.
//
//   KJPROF 1 <nonce>
//   APP <start_ns> <end_ns>
//   K <start_ns> <end_ns> <launch_ns> <launch_tid> <device> <context> <stream> <correlation> <name>
//   M <start_ns> <end_ns> <launch_ns> <launch_tid> <kind> <bytes> <device> <context> <stream>
//     <correlation>                                      (one line; kind: HtoD DtoH DtoD HtoH
//                                                         PtoP memset other)
//   R <start_ns> <end_ns> <tid> <name>
//   DROPPED <n>
//   END <count of K, M and R lines>
//
// Fields are separated by one space; a name is the rest of its line. Timestamps are nanoseconds
// on one clock; launch_ns and launch_tid are 0 when the profiler could not tell.
#include <cstdint>
#include <stdexcept>
#include <string>
#include <vector>

namespace kjudge {

struct KernelRecord {
  std::uint64_t start_ns = 0, end_ns = 0, launch_ns = 0;
  std::uint32_t launch_tid = 0, device = 0, context = 0, stream = 0, correlation = 0;
  std::string name;
};

// A memory copy or a memset.
struct CopyRecord {
  std::uint64_t start_ns = 0, end_ns = 0, launch_ns = 0;
  std::uint32_t launch_tid = 0;
  std::string kind;
  std::uint64_t bytes = 0;
  std::uint32_t device = 0, context = 0, stream = 0, correlation = 0;
};

// An NVTX push/pop or start/end range.
struct RangeRecord {
  std::uint64_t start_ns = 0, end_ns = 0;
  std::uint32_t tid = 0;
  std::string name;
};

struct ProfileRecord {
  std::string nonce;
  // Both 0 when the record has no APP line.
  std::uint64_t app_start_ns = 0, app_end_ns = 0;
  std::vector<KernelRecord> kernels;
  std::vector<CopyRecord> copies;
  std::vector<RangeRecord> ranges;
  std::uint64_t dropped = 0;  // activity records CUPTI lost (its buffers were full)
};

class ProfileError : public std::runtime_error {
 public:
  ProfileError(int line, const std::string& what);
  int line() const { return line_; }  // 1-based; the line at fault, or the last for a cut record
  const std::string& reason() const { return reason_; }  // the message without the line

 private:
  int line_;
  std::string reason_;
};

// Throws ProfileError naming the line and what is wrong with it. A non-empty `expected_nonce`
// must equal the header's: the judge hands each run a fresh one, so a record with another was
// written by something other than this run's profiler.
ProfileRecord parse_profile_record(const std::string& text, const std::string& expected_nonce);

// Whether a timed call's spans say the events under-count it (tasks and Triton alike): the mean
// excess of span over event time per call is above 2 µs and above 10 % of the mean event time.
// The slack covers the clocks' resolution; honest work on the timed stream has no excess at all.
bool cupti_undercounts(double excess_ns, double event_mean_ns);

}  // namespace kjudge
