// libkjudge_end_clock.so: the end of one timed call of the KernelBench runner
// (python/kjudge_kernelbench/timing.py), in one foreign call. Between recording the stream's end
// event and reading the host clock after the whole device is idle, no Python runs: the runner
// calls this through ctypes, which releases the GIL, so no signal handler of the solution's (run
// by Python in the main thread whichever thread took the signal), no collected object's __del__
// and no thread of the solution's holding the GIL can sit between the end event's wait and the
// first clock while work the call left on another stream finishes unseen.
//
// It links nothing: the driver's functions come as arguments (cuEventRecord, cuEventSynchronize,
// cuCtxSynchronize from libcuda through ctypes), so the same code runs under the CPU tests with
// stand-ins (python/tests/kernelbench/test_end_clock.py).
#include <cstdint>
#include <ctime>

namespace {

double monotonic_s() {
  timespec t{};
  clock_gettime(CLOCK_MONOTONIC, &t);  // time.perf_counter's clock, as the runner reads it
  return static_cast<double>(t.tv_sec) + static_cast<double>(t.tv_nsec) * 1e-9;
}

}  // namespace

extern "C" {

using kj_record_fn = int (*)(std::uintptr_t event, std::uintptr_t stream);
using kj_wait_fn = int (*)(std::uintptr_t event);
using kj_sync_fn = int (*)();

// Records `event` on `stream`, waits for it, reads the clock into host[0], waits for the whole
// device, reads the clock into host[1]. Returns 0, or the failing step (1 record, 2 wait, 3
// sync) times 1000 plus the driver's code, which the runner names.
__attribute__((visibility("default"))) int kj_end_clock(kj_record_fn record, kj_wait_fn wait,
                                                        kj_sync_fn sync, std::uintptr_t event,
                                                        std::uintptr_t stream, double* host) {
  if (int rc = record(event, stream); rc != 0) return 1000 + rc % 1000;
  if (int rc = wait(event); rc != 0) return 2000 + rc % 1000;
  host[0] = monotonic_s();
  const int rc = sync();
  host[1] = monotonic_s();
  return rc != 0 ? 3000 + rc % 1000 : 0;
}

}  // extern "C"
