#pragma once
// ComputeEval's timing modes (a problem's timing_mode), applied to the profile record of one
// benchmark run: which time the run is judged by, or why it cannot be timed.
#include <optional>
#include <string>

#include "core/problem.h"
#include "perf/profile_record.h"

namespace kjudge {

struct TimeSelection {
  std::optional<double> ms;
  std::string not_timed;  // why, when !ms
  std::string how;        // one line: what was summed, when ms
};

// "" when the mode is usable; otherwise why not (unknown type, region without include, unknown
// time_type).
std::string timing_mode_problem(const TimingMode& mode);

// Every type but custom is read from the profiler's record.
bool needs_profiler(const TimingMode& mode);

// The rules, per type:
//   process  APP end - APP start.
//   kernels  The summed durations of the kernels that match an include glob (every kernel when
//            include is empty) and no exclude glob.
//   gpu      Those kernels plus every memory copy and memset.
//   region   NVTX ranges that match an include glob and no exclude glob. time_type wall_clock:
//            their summed durations. time_type kernel (the default): the summed durations of
//            the kernels launched, from any thread, inside one of those ranges; a kernel inside
//            several overlapping ranges counts once. A kernel whose launch time is unknown is
//            placed by its GPU start instead, and `how` says so.
//   custom   parse_custom_time(program_output).
// A kernel glob matches the name as recorded (e.g. "void gemm_kernel<float>(float const*, int)")
// or its bare function name, qualified or not ("ns::gemm_kernel", "gemm_kernel"): problem
// authors write `gemm*` and mean the function, not the demangled signature.
// `record` is null when the profiler wrote none.
TimeSelection select_time(const TimingMode& mode, const ProfileRecord* record,
                          const std::string& program_output);

// For a region mode timed by kernel time: the wall-clock time of the matching ranges (their
// summed durations, as time_type wall_clock would give), what the host spent in the timed region
// beside the kernels. nullopt for every other mode, or when no range matches. The benchmark
// stage sets it against the baseline's (perf/benchmarker.h, region_host_gap).
std::optional<double> region_wall_ms(const TimingMode& mode, const ProfileRecord& record);

// The value of the last output line that holds `COMPUTE_EVAL_TIME_MS:` followed by a number,
// e.g. "COMPUTE_EVAL_TIME_MS: 1.25". nullopt when no line holds it, or when the last one's value
// is not a finite, non-negative number with nothing after it: a broken last report does not
// fall back to an earlier one.
std::optional<double> parse_custom_time(const std::string& output);

// fnmatch(3) with no flags: `*` and `?` also match '/' and a leading '.'.
bool glob_match(const std::string& pattern, const std::string& text);

// The function name of a demangled kernel name without return type, template arguments or
// parameters: "void ns::gemm<float, 4>(float const*)" -> "ns::gemm". Names without a parameter
// list (C kernels, mangled names) are returned whole.
std::string bare_kernel_name(const std::string& name);

}  // namespace kjudge
