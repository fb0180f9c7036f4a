// The kjudge task harness: compiled with a task's reference and a submission into one program
// that runs one mode (test, benchmark, leaderboard, profile) over the cases the judge hands it,
// and reports to the judge over a private channel (below). docs/tasks.md describes the contract.
//
//   kjudge_task MODE CASES_FILE [name=value ...]
//
// Timing (benchmark and leaderboard modes): before every timed call, fresh inputs (a new seed:
// new content, new addresses, generated outside the timed region), the reference output made
// first (so a submission that writes into its input cannot corrupt it), persisting-L2 reset and
// L2 flushed by writing twice its size; then CUDA events around the call on the default stream
// and the host clock around call + device-wide synchronize (work left running on other streams
// shows in the host time). The default stream is held while the call is queued (StreamGate), so
// the events time the GPU's work, not the host's launch latency. Every timed output is checked
// against the reference, after the stop event. Repetitions go on until kj::should_stop
// (bench_stats.h) says so.
//
// Every call of custom_kernel sits in an NVTX range of the harness's own domain
// (kjudge/call_marks.h). When the judge preloads its CUPTI profiler, the profiler records those
// ranges with every kernel and copy of the process (all streams, threads and contexts), and the
// judge compares what each timed call launched with the events' time (src/task/cupti.h).
#include <dlfcn.h>
#include <fcntl.h>
#include <nvtx3/nvToolsExt.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <exception>
#include <fstream>
#include <memory>
#include <optional>
#include <sstream>
#include <stdexcept>
#include <string>
#include <vector>

#include "kjudge/bench_stats.h"
#include "kjudge/call_marks.h"
#include "kjudge/channel.h"
#include "kjudge/compare_gpu.cuh"
#include "kjudge/kept_calls.cuh"
#include "reference.cuh"
#include "task.h"

#ifdef KJ_CHECKER
// Built as the checker of an isolated run (`kjudge task run --isolate`): no submission in this
// program; custom_kernel runs in the worker process (kjudge/split_call.cuh, kjudge_worker.cu).
#include "kjudge/split_call.cuh"
#else
// The submission's entry point.
output_t custom_kernel(const input_t& input);
#endif

namespace {

// --- The result channel ---------------------------------------------------------------------
// kjudge/channel.h takes it before any code of the submission runs. Every record carries the
// nonce, and the last one counts the records before it: stdout is never read for results, and a
// line without the nonce, a missing end, or a wrong count makes the judge refuse the whole
// result.
//
// The records are kept in memory and written at the very end, in one piece, and the file is
// then sealed (memfd seals: no more writes, no truncation, by anyone): while the solution runs
// the file is empty, so the nonce cannot be read back from it, and the solution's code that runs
// after the report (static destructors, exit handlers, its threads) cannot rewrite it. What
// remains open is docs/cheats.md's: a thread of the solution writing in the moment between the
// final write and the seal, and reading this process's memory.
long g_records = 0;
std::string g_report;  // the records so far, for the channel

void put(const std::string& key, const std::string& value) {
  std::string v = value;
  for (char& c : v)
    if (c == '\n' || c == '\r') c = ' ';
  std::string line = "KJ1 " + std::string(kj::channel::nonce) + " " + key + " " + v + "\n";
  if (key != "end") ++g_records;
  if (kj::channel::fd < 0) {  // run by hand: show the records
    std::fputs(line.c_str(), stdout);
    return;
  }
  g_report += line;
}

#ifndef F_ADD_SEALS  // glibc older than 2.27: the kernel's values (linux/fcntl.h)
#define F_ADD_SEALS 1033
#define F_SEAL_SEAL 0x0001
#define F_SEAL_SHRINK 0x0002
#define F_SEAL_GROW 0x0004
#define F_SEAL_WRITE 0x0008
#endif

// Writes the report into the channel, in one piece, and seals it. A channel that cannot be
// sealed (a solution that sealed it first, or holds a writable mapping of it) ends the run with
// GPU MODE's EXIT_PIPE_FAIL: the judge never reads a report the solution could still change.
void write_report() {
  if (kj::channel::fd < 0) return;
  const char* p = g_report.data();
  std::size_t left = g_report.size();
  while (left > 0) {
    ssize_t w = write(kj::channel::fd, p, left);
    if (w <= 0) std::_Exit(111);
    p += w;
    left -= static_cast<std::size_t>(w);
  }
  if (fcntl(kj::channel::fd, F_ADD_SEALS,
            F_SEAL_WRITE | F_SEAL_SHRINK | F_SEAL_GROW | F_SEAL_SEAL) != 0) {
    std::fprintf(stderr, "kjudge harness: the result channel could not be sealed (%s)\n",
                 std::strerror(errno));
    std::_Exit(111);
  }
  // Sealed, the file can no longer change: read it back. A thread of the solution that wrote
  // into it between the write above and the seal (the one moment it could) shows as a
  // difference, and the run fails rather than hand the judge a report it may have shaped.
  std::string back(g_report.size() + 1, '\0');
  std::size_t got = 0;
  for (;;) {
    const ssize_t n =
        pread(kj::channel::fd, back.data() + got, back.size() - got, static_cast<off_t>(got));
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) break;
    got += static_cast<std::size_t>(n);
    if (got == back.size()) break;
  }
  if (got != g_report.size() || back.compare(0, got, g_report) != 0) {
    std::fprintf(stderr, "kjudge harness: the result channel changed before it was sealed\n");
    std::_Exit(111);
  }
}

std::string num(double x) {
  char b[64];
  std::snprintf(b, sizeof b, "%.6g", x);
  return b;
}

std::string join(const std::vector<double>& xs) {
  std::string s;
  char b[64];
  for (std::size_t i = 0; i < xs.size(); ++i) {
    std::snprintf(b, sizeof b, "%.1f", xs[i]);
    s += (i ? "," : "") + std::string(b);
  }
  return s;
}

// --- Options ----------------------------------------------------------------------------------
struct Options {
  std::string worker;  // worker=PATH: the isolated run's worker program (checker builds only)
  kj::StopRule rule;
  double warmup_ms = 200;
  bool gpumode_style = false;  // style=gpumode: time as GPU MODE's CUDA harness does
  bool arena = false;          // placement=arena: tensors from kj::Arena (kjudge/arena.cuh)
  int warmup_max_calls = 1000;
};

Options parse_options(int argc, char** argv) {
  Options o;
  for (int i = 3; i < argc; ++i) {
    std::string a = argv[i];
    std::size_t eq = a.find('=');
    if (eq == std::string::npos) continue;
    std::string k = a.substr(0, eq);
    if (a.substr(0, eq) == "style") {
      o.gpumode_style = a.substr(eq + 1) == "gpumode";
      continue;
    }
    if (k == "placement") {
      o.arena = a.substr(eq + 1) == "arena";
      continue;
    }
    if (k == "worker") {
      o.worker = a.substr(eq + 1);
      continue;
    }
    double v = std::atof(a.c_str() + eq + 1);
    if (k == "min_runs")
      o.rule.min_runs = static_cast<int>(v);
    else if (k == "max_runs")
      o.rule.max_runs = static_cast<int>(v);
    else if (k == "target_rel_err")
      o.rule.target_rel_err = v;
    else if (k == "max_timed_s")
      o.rule.max_timed_s = v;
    else if (k == "max_wall_s")
      o.rule.max_wall_s = v;
    else if (k == "warmup_ms")
      o.warmup_ms = v;
  }
  return o;
}

// --- One call -----------------------------------------------------------------------------------
// Holds the default stream until the host has queued the whole timed call (nvbench's "blocking
// kernel"): the start event and the submission's launches then run back to back on the GPU, so
// the measured time does not include how long the host took to launch them. A submission that
// waits for the GPU inside custom_kernel would wait on this kernel: it gives up after
// kBlockTimeoutNs, and the time is then still measured from the start event on.
__global__ void kj_block_stream(volatile int* release, long long timeout_ns) {
  long long t0 = 0;
  asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(t0));
  for (;;) {
    if (*release) return;
    long long t = 0;
    asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(t));
    if (t - t0 > timeout_ns) return;
  }
}

class StreamGate {
 public:
  static constexpr long long kBlockTimeoutNs = 20'000'000;  // 20 ms
  StreamGate() {
    KJ_CHECK(cudaHostAlloc(&host_, sizeof(int), cudaHostAllocMapped));
    KJ_CHECK(cudaHostGetDevicePointer(&device_, const_cast<int*>(host_), 0));
  }
  ~StreamGate() { cudaFreeHost(const_cast<int*>(host_)); }
  void close() {
    *host_ = 0;
    kj_block_stream<<<1, 1>>>(device_, kBlockTimeoutNs);
    KJ_CHECK(cudaGetLastError());
  }
  void open() { *host_ = 1; }

 private:
  volatile int* host_ = nullptr;
  int* device_ = nullptr;
};

class L2Flusher {
 public:
  L2Flusher() {
    int dev = 0, l2 = 0;
    KJ_CHECK(cudaGetDevice(&dev));
    KJ_CHECK(cudaDeviceGetAttribute(&l2, cudaDevAttrL2CacheSize, dev));
    l2_bytes_ = static_cast<std::size_t>(l2);
    bytes_ = 2 * l2_bytes_ < (8u << 20) ? (8u << 20) : 2 * l2_bytes_;
    KJ_CHECK(cudaMalloc(&buf_, bytes_));
    int persisting = 0;
    KJ_CHECK(cudaDeviceGetAttribute(&persisting, cudaDevAttrMaxPersistingL2CacheSize, dev));
    persisting_ = persisting > 0;
  }
  ~L2Flusher() { cudaFree(buf_); }
  // A submission may have set aside persisting L2 for its data: take the set-aside away and
  // reset what persists, then overwrite the whole cache.
  void flush() {
    if (persisting_) {
      KJ_CHECK(cudaDeviceSetLimit(cudaLimitPersistingL2CacheSize, 0));
      KJ_CHECK(cudaCtxResetPersistingL2Cache());
    }
    KJ_CHECK(cudaMemsetAsync(buf_, static_cast<int>(++round_ & 0xFF), bytes_, 0));
  }
  std::size_t l2_bytes() const { return l2_bytes_; }

 private:
  void* buf_ = nullptr;
  std::size_t bytes_ = 0, l2_bytes_ = 0;
  bool persisting_ = false;
  unsigned round_ = 0;
};

struct CallResult {
  bool ran = false;       // custom_kernel returned without a C++ exception or CUDA error
  std::string error;      // why not
  double event_ns = 0;    // CUDA events on the default stream
  double host_ns = 0;     // host clock around the call and a device-wide synchronize
  double checker_ns = 0;  // isolated runs: the checker's events around the worker's call
  bool checked = false;
  kj::CompareResult cmp;
};

std::string mismatch_text(const kj::CompareResult& c) {
  std::ostringstream s;
  if (!c.error.empty()) return c.error;
  s << c.bad << " of " << c.checked << " values differ beyond the tolerance";
  for (const auto& m : c.first) s << "; [" << m.index << "] got " << m.got << " want " << m.want;
  return s.str();
}

kj::CompareResult compare_outputs(const output_t& got, const output_t& want,
                                  const kj::Tolerance& tol) {
  kj::CompareResult r;
  if (!got) {
    r.ok = false;
    r.error = "custom_kernel returned an empty output";
    return r;
  }
  if (got.shape() != want.shape()) {
    r.ok = false;
    r.error = "output shape " + kj::shape_text(got.shape()) + ", expected " +
              kj::shape_text(want.shape());
    return r;
  }
  using T = typename output_t::value_type;
  // The count on the GPU decides a pass; a failure is described by the host comparison below,
  // which applies the same rule (kjudge/compare_gpu.cuh).
  if (got.numel() == want.numel()) {
    const kj::GpuCheck fast = kj::check_on_gpu<T>(got, want, tol.atol, tol.rtol);
    if (fast.failed == 0) {
      r.checked = got.numel();
      r.max_abs_error = fast.max_abs_error;
      return r;
    }
  }
  auto g = got.to_host();
  auto w = want.to_host();
  return kj::compare_values(
      got.numel(), [&](std::int64_t i) { return kj::to_double<T>(g[static_cast<std::size_t>(i)]); },
      [&](std::int64_t i) { return kj::to_double<T>(w[static_cast<std::size_t>(i)]); }, tol);
}

// The harness's NVTX domain (kjudge/call_marks.h); null when no NVTX tool is attached, which
// makes the range calls no-ops.
nvtxDomainHandle_t g_marks = nullptr;

// The last calls' inputs and outputs, kept alive (kjudge/kept_calls.cuh).
kj::KeptCalls<input_t, output_t> g_kept;

// What every call starts with, outside any timing: the input of the case's repetition `rep`,
// the reference's output and the tolerance when the call is checked (made first, so a
// submission that writes into its input cannot corrupt them), everything finished, and the
// oldest kept calls freed.
struct CallSetup {
  input_t input;
  std::optional<output_t> want;
  kj::Tolerance tol;
};

CallSetup set_up_call(const kj::Spec& spec, std::uint64_t rep, bool check) {
  kj::Spec s = spec;
  s.set_seed(kj::repetition_seed(spec.seed(), rep));
  CallSetup c{generate_input(s), std::nullopt, {}};
  if (check) {
    c.want = ref_kernel(c.input);
    c.tol = tolerance(c.input);
  }
  KJ_CHECK(cudaDeviceSynchronize());
  g_kept.trim();
  return c;
}

#ifdef KJ_CHECKER
std::unique_ptr<kj::RemoteWorker<output_t>> g_worker;

// call_once for an isolated run: the same steps in the same order, with the call itself made in
// the worker (kjudge/split_call.cuh). The checker's events time it; `range` (profile mode) has
// no meaning here.
CallResult call_once(const kj::Spec& spec, std::uint64_t rep, bool check, L2Flusher& l2,
                     cudaEvent_t start, cudaEvent_t stop, const std::string& mark,
                     const char* = nullptr) {
  CallResult r;
  auto [input, want, tol] = set_up_call(spec, rep, check);
  std::string error;
  // The task's generator failing in the worker is the task's fault, as it is here.
  if (!g_worker->prepare(spec.text(), rep, want ? &*want : nullptr, &error))
    throw std::runtime_error("in the submission's process: " + error);
  l2.flush();
  KJ_CHECK(cudaDeviceSynchronize());

  static StreamGate gate;
  gate.close();
  auto t0 = std::chrono::steady_clock::now();
  KJ_CHECK(cudaEventRecord(start, 0));
  const bool queued = g_worker->enqueue(mark, &error);
  KJ_CHECK(cudaEventRecord(stop, 0));
  gate.open();
  KJ_CHECK(cudaDeviceSynchronize());
  auto c = g_worker->finish(queued, error, t0);
  if (!c.ran) {
    r.error = c.error;
    return r;
  }
  r.ran = true;
  float ms = 0;
  KJ_CHECK(cudaEventElapsedTime(&ms, start, stop));
  // The score is the worker's own events (the same events, on the same stream, as the
  // one-process harness's: on the H100 they agree with it within its noise); the checker's,
  // which the worker cannot touch, hold them to account (`isolated_time`, src/task/run.cpp).
  r.event_ns = c.worker_ns;
  r.checker_ns = static_cast<double>(ms) * 1e6;
  r.host_ns = c.host_ns;
  if (check) {
    r.checked = true;
    r.cmp = compare_outputs(c.got, *want, tol);
  }
  g_kept.keep(std::move(input), std::move(c.got));
  return r;
}
#else
// `mark`: the name of the call's range in the harness's NVTX domain (kj::timed_mark, or
// kj::kUntimedMark). `range`: instead, an NVTX range of the global domain around the call alone
// (profile mode), so Nsight Compute, filtering on it, sees the submission's kernels and none of
// the harness's (inputs, reference, flush). Either range holds the call of custom_kernel and
// nothing else of the harness.
CallResult call_once(const kj::Spec& spec, std::uint64_t rep, bool check, L2Flusher& l2,
                     cudaEvent_t start, cudaEvent_t stop, const std::string& mark,
                     const char* range = nullptr) {
  CallResult r;
  nvtxEventAttributes_t attr{};
  attr.version = NVTX_VERSION;
  attr.size = NVTX_EVENT_ATTRIB_STRUCT_SIZE;
  attr.messageType = NVTX_MESSAGE_TYPE_ASCII;
  attr.message.ascii = mark.c_str();
  auto [input, want, tol] = set_up_call(spec, rep, check);
  l2.flush();
  KJ_CHECK(cudaDeviceSynchronize());

  output_t got;
  static StreamGate gate;
  gate.close();
  auto t0 = std::chrono::steady_clock::now();
  KJ_CHECK(cudaEventRecord(start, 0));
  if (range)
    nvtxRangePushA(range);
  else
    nvtxDomainRangePushEx(g_marks, &attr);
  try {
    got = custom_kernel(input);
  } catch (const std::exception& e) {
    r.error = std::string("custom_kernel threw: ") + e.what();
  } catch (...) {
    r.error = "custom_kernel threw a non-standard exception";
  }
  if (range)
    nvtxRangePop();
  else
    nvtxDomainRangePop(g_marks);
  KJ_CHECK(cudaEventRecord(stop, 0));
  gate.open();
  cudaError_t e = cudaDeviceSynchronize();
  auto t1 = std::chrono::steady_clock::now();
  if (e == cudaSuccess) e = cudaGetLastError();
  if (e != cudaSuccess)
    kj::check_cuda(e, "custom_kernel (or the work it launched)", __FILE__, __LINE__);
  if (!r.error.empty()) return r;
  r.ran = true;
  float ms = 0;
  KJ_CHECK(cudaEventElapsedTime(&ms, start, stop));
  r.event_ns = static_cast<double>(ms) * 1e6;
  r.host_ns = std::chrono::duration<double, std::nano>(t1 - t0).count();
  if (check) {
    r.checked = true;
    r.cmp = compare_outputs(got, *want, tol);
  }
  g_kept.keep(std::move(input), std::move(got));
  return r;
}
#endif

// --- Modes --------------------------------------------------------------------------------------
bool run_tests(const std::vector<kj::Spec>& cases, L2Flusher& l2, cudaEvent_t a, cudaEvent_t b) {
  bool all = true;
  put("test-count", std::to_string(cases.size()));
  for (std::size_t i = 0; i < cases.size(); ++i) {
    const std::string p = "test." + std::to_string(i) + ".";
    put(p + "spec", cases[i].text());
    CallResult r = call_once(cases[i], 0, true, l2, a, b, kj::kUntimedMark);
    if (!r.ran) {
      put(p + "status", "fail");
      put(p + "error", r.error);
      all = false;
    } else if (!r.cmp.ok) {
      put(p + "status", r.cmp.reference_fault ? "error" : "fail");
      put(p + "error", mismatch_text(r.cmp));
      all = false;
    } else {
      put(p + "status", "pass");
    }
    if (r.checked) put(p + "max_abs_error", num(r.cmp.max_abs_error));
  }
  return all;
}

void warm_up(const kj::Spec& spec, const Options& o, L2Flusher& l2, cudaEvent_t a, cudaEvent_t b) {
  auto t0 = std::chrono::steady_clock::now();
  int calls = 0;
  // Seeds far from the timed repetitions', so warm-up results are no use later.
  for (std::uint64_t rep = 1u << 30;; ++rep) {
    CallResult r = call_once(spec, rep, false, l2, a, b, kj::kUntimedMark);
    ++calls;
    double ms =
        std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count();
    if (!r.ran || (ms >= o.warmup_ms && calls >= 3) || calls >= o.warmup_max_calls) break;
  }
  put("warmup-calls", std::to_string(calls));
}

// Benchmark and leaderboard modes alike: every timed output is checked (after the stop event,
// so the check is never timed), and a benchmark stops at its first wrong output. The times of
// the calls before it are still reported.
bool run_benchmarks(const std::vector<kj::Spec>& cases, const Options& o, L2Flusher& l2,
                    cudaEvent_t a, cudaEvent_t b) {
  bool all = true;
  put("benchmark-count", std::to_string(cases.size()));
  if (!cases.empty()) warm_up(cases[0], o, l2, a, b);
  for (std::size_t i = 0; i < cases.size(); ++i) {
    const std::string p = "benchmark." + std::to_string(i) + ".";
    put(p + "spec", cases[i].text());
    std::vector<double> ev, host, checker;
    double timed_s = 0;
    auto t0 = std::chrono::steady_clock::now();
    std::string failure;
    kj::StopReason why = kj::StopReason::none;
    int checked = 0;
    // One untimed call at this size first: scratch a submission sizes to its input is made
    // here, not in a timed call.
    if (i > 0) call_once(cases[i], (1u << 30) + i, false, l2, a, b, kj::kUntimedMark);
    for (std::uint64_t rep = 0; why == kj::StopReason::none; ++rep) {
      CallResult r = call_once(cases[i], rep, true, l2, a, b, kj::timed_mark(i, rep));
      if (!r.ran) {
        failure = r.error;
        break;
      }
      ++checked;
      if (!r.cmp.ok) {
        failure = "repetition " + std::to_string(rep) + ": " + mismatch_text(r.cmp);
        break;
      }
      ev.push_back(r.event_ns);
      host.push_back(r.host_ns);
      checker.push_back(r.checker_ns);
      timed_s += r.event_ns * 1e-9;
      double wall = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
      why = kj::should_stop(o.rule, ev, timed_s, wall);
    }
    put(p + "times_ns", join(ev));
    put(p + "host_ns", join(host));
#ifdef KJ_CHECKER
    put(p + "checker_ns", join(checker));
#endif
    put(p + "checked", std::to_string(checked));
    if (!failure.empty()) {
      put(p + "status", "fail");
      put(p + "error", failure);
      all = false;
      break;  // a ranked run stops at the first failure
    }
    put(p + "stop", kj::to_string(why));
    put(p + "status", "pass");
  }
  return all;
}

#ifndef KJ_CHECKER
// GPU MODE's CUDA harness (examples/eval.cu), kept for comparison only (kjudge task run
// --timing gpumode): one input per benchmark, reused by every call; the host clock around a call
// between two cudaDeviceSynchronize; no L2 flush; the output checked once.
bool run_benchmarks_gpumode(const std::vector<kj::Spec>& cases, const Options& o, L2Flusher& l2,
                            cudaEvent_t a, cudaEvent_t b) {
  bool all = true;
  put("benchmark-count", std::to_string(cases.size()));
  if (!cases.empty()) warm_up(cases[0], o, l2, a, b);
  for (std::size_t i = 0; i < cases.size(); ++i) {
    const std::string p = "benchmark." + std::to_string(i) + ".";
    put(p + "spec", cases[i].text());
    input_t input = generate_input(cases[i]);
    output_t want = ref_kernel(input);
    kj::Tolerance tol = tolerance(input);
    KJ_CHECK(cudaDeviceSynchronize());
    output_t got = custom_kernel(input);
    KJ_CHECK(cudaDeviceSynchronize());
    kj::CompareResult c = compare_outputs(got, want, tol);
    put(p + "checked", "1");
    if (!c.ok) {
      put(p + "status", "fail");
      put(p + "error", mismatch_text(c));
      all = false;
      break;
    }
    std::vector<double> host;
    double timed_s = 0;
    auto t_start = std::chrono::steady_clock::now();
    kj::StopReason why = kj::StopReason::none;
    while (why == kj::StopReason::none) {
      KJ_CHECK(cudaDeviceSynchronize());
      auto t0 = std::chrono::steady_clock::now();
      got = custom_kernel(input);
      KJ_CHECK(cudaDeviceSynchronize());
      auto t1 = std::chrono::steady_clock::now();
      host.push_back(std::chrono::duration<double, std::nano>(t1 - t0).count());
      timed_s += host.back() * 1e-9;
      why = kj::should_stop(
          o.rule, host, timed_s,
          std::chrono::duration<double>(std::chrono::steady_clock::now() - t_start).count());
    }
    put(p + "times_ns", join(host));
    put(p + "host_ns", join(host));
    put(p + "stop", kj::to_string(why));
    put(p + "status", "pass");
  }
  return all;
}

#endif

bool run_profile(const std::vector<kj::Spec>& cases, L2Flusher& l2, cudaEvent_t a, cudaEvent_t b) {
  if (cases.empty()) return false;
  put("profile.spec", cases[0].text());
  // One untimed call first, so module loading and first-touch costs stay out of the profile.
  call_once(cases[0], 1, false, l2, a, b, kj::kUntimedMark);
  CallResult r = call_once(cases[0], 0, true, l2, a, b, kj::kUntimedMark, "custom_kernel");
  if (!r.ran) {
    put("profile.error", r.error);
    return false;
  }
  if (!r.cmp.ok) put("profile.error", mismatch_text(r.cmp));
  return r.cmp.ok;
}

}  // namespace

int main(int argc, char** argv) {
  if (argc < 3) {
    std::fprintf(stderr, "usage: %s test|benchmark|leaderboard|profile CASES_FILE [k=v ...]\n",
                 argv[0]);
    return 2;
  }
  const std::string mode = argv[1];
  std::vector<kj::Spec> cases;
  {
    std::ifstream in(argv[2]);
    if (!in) {
      std::fprintf(stderr, "kjudge harness: cannot read %s\n", argv[2]);
      return 2;
    }
    std::string line;
    try {
      while (std::getline(in, line))
        if (line.find_first_not_of(" \t\r") != std::string::npos)
          cases.push_back(kj::Spec::parse(line));
    } catch (const std::exception& e) {
      std::fprintf(stderr, "kjudge harness: bad case line '%s': %s\n", line.c_str(), e.what());
      return 113;  // GPU MODE's EXIT_TEST_SPEC
    }
  }
  Options opt = parse_options(argc, argv);
  put("mode", mode);
  // The judge's CUPTI profiler, when it was preloaded, exports NVTX's injection entry point.
  // Said here so that the judge can tell a profiler that never loaded (CUPTI unavailable) from
  // one whose record went missing (the process skipped its exit handlers).
  put("profiler", dlsym(RTLD_DEFAULT, "InitializeInjectionNvtx2") != nullptr ? "loaded" : "absent");
  g_marks = nvtxDomainCreateA(kj::kMarkDomain);
  cudaDeviceProp prop{};
  int dev = 0;
  KJ_CHECK(cudaGetDevice(&dev));
  KJ_CHECK(cudaGetDeviceProperties(&prop, dev));
  put("device", prop.name);
  L2Flusher l2;
  put("l2_bytes", std::to_string(l2.l2_bytes()));
  if (opt.arena && mode != "test") {
    // Half of what is free, at most 16 GiB: room for the kept calls' buffers at random places,
    // and the rest for what the submission allocates itself.
    std::size_t free_b = 0, total_b = 0;
    KJ_CHECK(cudaMemGetInfo(&free_b, &total_b));
    if (!kj::Arena::get().enable(std::min<std::size_t>(free_b / 2, std::size_t{16} << 30)))
      std::fprintf(stderr, "kjudge harness: no arena (placement=arena): cudaMalloc per tensor\n");
  }
  cudaEvent_t a, b;
  KJ_CHECK(cudaEventCreate(&a));
  KJ_CHECK(cudaEventCreate(&b));
#ifdef KJ_CHECKER
  // The worker starts after this process's CUDA context exists (its events and buffers are
  // this context's) and after the channel was taken: it inherits neither.
  if (opt.worker.empty() || mode == "profile" || opt.gpumode_style) {
    std::fprintf(stderr,
                 "kjudge harness: the checker runs test, benchmark and leaderboard modes with "
                 "worker=PATH\n");
    return 2;
  }
  // The judge's CUPTI profiler goes to the worker, the process with the submission's GPU work;
  // this process runs without it (its report says "profiler absent").
  const std::optional<kj::WorkerProfiler> worker_profiler = kj::take_worker_profiler();
  g_worker = std::make_unique<kj::RemoteWorker<output_t>>(
      opt.worker, std::vector<std::string>{opt.arena ? "placement=arena" : "placement=malloc"},
      worker_profiler ? &*worker_profiler : nullptr);
  put("process", "isolated");
  put("worker_profiler", worker_profiler ? "passed" : "absent");
  // What crossing between the processes costs the checker's events: the least of 20 empty
  // calls (the least: a submission's thread keeping the GPU busy can only make it larger,
  // which loosens the check; more than 10 ms is refused as no measurement at all).
  {
    static StreamGate gate;
    double least = 0;
    for (int i = 0; i < 20; ++i) {
      KJ_CHECK(cudaDeviceSynchronize());
      gate.close();
      KJ_CHECK(cudaEventRecord(a, 0));
      g_worker->enqueue_empty();
      KJ_CHECK(cudaEventRecord(b, 0));
      gate.open();
      KJ_CHECK(cudaDeviceSynchronize());
      g_worker->finish(true, "", std::chrono::steady_clock::now());
      float ms = 0;
      KJ_CHECK(cudaEventElapsedTime(&ms, a, b));
      const double ns = static_cast<double>(ms) * 1e6;
      if (i == 0 || ns < least) least = ns;
    }
    put("crossing_ns", num(std::min(least, 10e6)));
  }
#else
  if (!opt.worker.empty()) {
    std::fprintf(stderr, "kjudge harness: worker= needs the checker build (-DKJ_CHECKER)\n");
    return 2;
  }
#endif
  bool ok = false;
  try {
    if (mode == "test") ok = run_tests(cases, l2, a, b);
#ifndef KJ_CHECKER
    else if (mode == "benchmark" && opt.gpumode_style)
      ok = run_benchmarks_gpumode(cases, opt, l2, a, b);
#endif
    else if (mode == "benchmark")
      ok = run_benchmarks(cases, opt, l2, a, b);
    else if (mode == "leaderboard")
      ok = run_benchmarks(cases, opt, l2, a, b);
    else if (mode == "profile")
      ok = run_profile(cases, l2, a, b);
    else {
      std::fprintf(stderr, "kjudge harness: unknown mode %s\n", mode.c_str());
      return 2;
    }
  } catch (const std::exception& e) {
    // generate_input, ref_kernel or tolerance threw: the task's fault (or a bad case).
    put("task-error", e.what());
    ok = false;
  }
  put("check", ok ? "pass" : "fail");
#ifdef KJ_CHECKER
  // Before the report: the worker exits on its own, so its profiler finishes its record.
  if (g_worker) put("worker_end", g_worker->end());
#endif
  put("end", std::to_string(g_records));
  write_report();
  return 0;
}
