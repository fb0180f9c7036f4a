#pragma once
// The one clock of the profile: CLOCK_REALTIME, the clock CUPTI reads on Linux for every
// timestamp of its activity records (cupti_activity.h), so NVTX ranges and the application's
// span line up with kernels and copies. Read without libc: CUPTI's own reading goes through
// libc's clock_gettime, which a program may define (a clock a tenth as fast shrank a 60 ms
// region to 6 ms, tests/eval/preload_interposition_test.cpp); start_tracing hands CUPTI this clock
// instead (cuptiActivityRegisterTimestampCallback).
#include <cstdint>

namespace kjudge::profiler {

// Nanoseconds of CLOCK_REALTIME, from the vDSO's clock_gettime (found through the auxiliary
// vector, called directly) or, where there is none, the system call.
std::uint64_t now_ns();

// The calling thread's OS id (gettid), the id CUPTI reports once told to use system ids.
std::uint32_t thread_id();

}  // namespace kjudge::profiler
