#pragma once
// The exit record, text, one item a line:
//   KJPROF 1 <nonce>
//   APP <start_ns> <end_ns>
//   K <start> <end> <launch_ns> <launch_tid> <device> <context> <stream> <correlation> <name…>
//   M <start> <end> <launch_ns> <launch_tid> <kind> <bytes> <device> <context> <stream> <corr>
//   R <start> <end> <tid> <name…>
//   DROPPED <n>
//   END <number of K, M and R lines>
// launch_ns/launch_tid are 0 where no runtime or driver call carries the record's correlation
// id. Names are the rest of their line, newlines turned into spaces; kernel names demangled.
// src/perf/profile_record.h parses it.
#include <cstdint>
#include <string>
#include <string_view>

#include "store.h"

namespace kjudge::profiler {

std::string format_record(std::string_view nonce, std::uint64_t app_start, std::uint64_t app_end,
                          Profile& profile);

}  // namespace kjudge::profiler
