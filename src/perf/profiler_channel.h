#pragma once
// The judge's end of the CUPTI profiler's channel (src/perf/profiler/output_channel.h): a memfd
// that holds the run's nonce until the profiler, preloaded into the timed process, takes it and
// empties the file before any code of the program runs. Only the descriptor's number travels in
// the environment: bubblewrap's command line and every /proc/<pid>/environ are readable inside
// the sandbox, a descriptor's content is not once it is empty.
#include <string>
#include <vector>

#include "run/result_channel.h"

namespace kjudge {

// A channel with the nonce in it. Throws std::runtime_error when none can be made.
ResultChannel open_profiler_channel(const char* name);

// The KEY=VALUE entries that hand `channel` to the profiler (the step also keeps its
// descriptor); `early_header`: the profiler writes its start line at once (a record that stops
// there says the process never ran its exit handlers).
std::vector<std::string> profiler_channel_env(const ResultChannel& channel, bool early_header);

// What the channel holds, as the record readers (profile_record.h, task/cupti.h,
// triton/timing/cupti.h) take it: "" when the profiler never took the channel (the judge's nonce
// line is still there alone: it was not loaded), "KJPROF 1 <nonce>\n" (the header alone: started,
// never finished) for the profiler's nonce-free start line alone, else the text as it is.
std::string profile_channel_text(const std::string& text, const std::string& nonce);
std::string profile_channel_text(const ResultChannel& channel);

}  // namespace kjudge
