#pragma once
// The one clock of the profile: CUPTI's, so NVTX ranges and the application's span line up with
// the kernel and copy timestamps that CUPTI writes into its activity records.
#include <cstdint>

namespace kjudge::profiler {

// Nanoseconds on CUPTI's clock (cuptiGetTimestamp); CLOCK_REALTIME if CUPTI cannot say, which
// is what CUPTI itself reads on Linux.
std::uint64_t now_ns();

// The calling thread's OS id (gettid), the id CUPTI reports once told to use system ids.
std::uint32_t thread_id();

}  // namespace kjudge::profiler
