#pragma once
// The checker's side of an isolated task run (`kjudge task run --isolate`; the worker's side is
// kjudge_worker.cu, the link kjudge/worker_link.h). The submission runs in the worker, a process
// of its own; this process keeps the reference, the tolerance, the result channel and its nonce,
// and the clock.
//
// One call: the worker makes the call's input itself, from the case and repetition the checker
// names (the same generator and seed as the checker's own copy, so the same content), and says
// when it is ready. The checker then holds its default stream (the gate), records its start
// event and an interprocess event G behind it, and says "go"; the worker makes its default
// stream wait for G, calls custom_kernel, and records its interprocess event W. The checker's
// stream waits for W and records the stop event; then the gate opens. So the time is the
// checker's own events around the worker's work: the worker cannot report a time of its own
// making. Its own events' time comes along for comparison (what crossing between the processes
// adds). The checker's host clock runs from before its start event until the worker says it has
// synchronized its whole device context (work on other streams included). The output comes back
// through a buffer of the checker's, mapped into the worker with a CUDA IPC handle: the worker
// can write into it, and that is all of the checker's memory it can reach.
#include <cuda_runtime.h>

#include <chrono>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <map>
#include <string>
#include <vector>

#include "tensor.cuh"
#include "worker_link.h"

namespace kj {

template <class Output>
class RemoteWorker {
 public:
  using T = typename Output::value_type;

  struct Call {
    bool ran = false;
    std::string error;     // custom_kernel threw, or the output could not come back
    double worker_ns = 0;  // the worker's own events around the call
    double host_ns = 0;    // the checker's host clock: start event to the worker's synchronize
    Output got;            // the worker's output, in the checker's receive buffer
  };

  // Starts the worker and exchanges the two interprocess events. Exits the harness (the
  // judge's fault or the machine's) when that fails.
  // `profiler`: the judge's CUPTI profiler for the worker's process (worker_link.h), or null.
  RemoteWorker(const std::string& program, const std::vector<std::string>& args,
               const WorkerProfiler* profiler = nullptr) {
    proc_ = start_worker(program, args, profiler);
    if (proc_.pid < 0) fatal(111, "cannot start the worker: " + proc_.error);
    KJ_CHECK(cudaEventCreateWithFlags(&go_, cudaEventDisableTiming | cudaEventInterprocess));
    cudaIpcEventHandle_t h;
    KJ_CHECK(cudaIpcGetEventHandle(&h, go_));
    send("hello " + to_hex(&h, sizeof h));
    const auto f = expect("ready", "starting");
    cudaIpcEventHandle_t w;
    if (f.size() != 2 || !from_hex(f[1], &w, sizeof w)) protocol("a bad ready line");
    KJ_CHECK(cudaIpcOpenEventHandle(&done_, w));
  }

  // Has the worker make the input of `spec_text` at repetition `rep` and get ready to return
  // an output shaped like `want` (nullptr: the output is not needed, nothing comes back).
  // Returns false, with `error`, when the task's generator failed in the worker.
  bool prepare(const std::string& spec_text, std::uint64_t rep, const Output* want,
               std::string* error) {
    std::string buf = "-";
    bytes_ = 0;
    recv_ = nullptr;
    if (want && want->numel() > 0) {
      bytes_ = want->bytes();
      Buffer& b = buffer(bytes_);
      recv_ = b.ptr;
      // A worker that writes nothing must not find the last call's output here.
      KJ_CHECK(cudaMemset(recv_, std::is_integral<T>::value ? 0x80 : 0xFF, bytes_));
      buf = b.handle;
    }
    send("prep " + std::to_string(rep) + " " + std::to_string(bytes_) + " " + buf + " " +
         spec_text);
    const auto f = expect("ok", "preparing a call");
    (void)f;
    if (!last_error_.empty()) {
      *error = last_error_;
      last_error_.clear();
      return false;
    }
    return true;
  }

  // The timed part, between the checker's start event (already recorded on the default stream,
  // behind the gate) and its stop event: G, "go", the worker queues the call and W, the
  // checker's stream waits for W. `mark`: the NVTX range name the worker puts around the call.
  // Returns false with `error` when custom_kernel threw (W is recorded all the same).
  bool enqueue(const std::string& mark, std::string* error) {
    KJ_CHECK(cudaEventRecord(go_, 0));
    send("go " + mark);
    return queued(error);
  }

  // A call with nothing in it: the worker waits for G and records W at once. The checker's
  // events around it measure what crossing between the processes costs (on the H100 about
  // 300 µs: the GPU switches between the two processes' contexts twice), nothing else.
  void enqueue_empty() {
    bytes_ = 0;
    KJ_CHECK(cudaEventRecord(go_, 0));
    send("calibrate");
    std::string error;
    queued(&error);
  }

  // Ends the link and waits for the worker to exit on its own (its exit handlers write the
  // profiler's record), 20 s at most. How it ended, in words.
  std::string end() { return end_worker(proc_, 20000); }

 private:
  bool queued(std::string* error) {
    bool queued = true;
    for (;;) {
      const auto line = receive("the call");
      const auto f = split_fields(line, 2);
      if (f[0] == "queued") break;
      if (f[0] == "threw") {
        *error = f.size() > 1 ? f[1] : "custom_kernel threw";
        queued = false;
        break;
      }
      protocol("an unexpected line during the call: " + line.substr(0, 80));
    }
    KJ_CHECK(cudaStreamWaitEvent(0, done_, 0));
    return queued;
  }

 public:
  // After the stop event and the gate: the worker's synchronize (its time), then the output.
  Call finish(bool queued, const std::string& error, std::chrono::steady_clock::time_point t0) {
    Call c;
    c.error = error;
    const auto s = expect("synced", "synchronizing the call");
    c.host_ns =
        std::chrono::duration<double, std::nano>(std::chrono::steady_clock::now() - t0).count();
    c.worker_ns = s.size() > 1 ? std::atof(s[1].c_str()) : 0;
    if (!queued) return c;
    c.ran = true;
    if (!bytes_) return c;
    const auto d = expect("done", "returning the output");
    if (d.size() >= 2 && d[1] == "none") {
      c.error = "custom_kernel returned an empty output";
      c.ran = false;
      return c;
    }
    std::vector<std::int64_t> shape;
    for (std::size_t i = 1; i < d.size(); ++i) shape.push_back(std::atoll(d[i].c_str()));
    // Shaped otherwise, nothing was copied: compare_outputs names both shapes before it looks
    // at a value.
    c.got = Output::view(recv_, shape);
    return c;
  }

 private:
  struct Buffer {
    T* ptr = nullptr;
    std::string handle;
  };

  // One receive buffer per output size, a cudaMalloc of its own (an IPC handle covers a whole
  // allocation): mapped once by the worker, reused by every call of that size.
  Buffer& buffer(std::size_t bytes) {
    auto it = buffers_.find(bytes);
    if (it != buffers_.end()) return it->second;
    Buffer b;
    KJ_CHECK(cudaMalloc(&b.ptr, bytes));
    cudaIpcMemHandle_t h;
    KJ_CHECK(cudaIpcGetMemHandle(&h, b.ptr));
    b.handle = to_hex(&h, sizeof h);
    return buffers_.emplace(bytes, b).first->second;
  }

  void send(const std::string& line) {
    if (!proc_.link.send(line)) ended("a message to it");
  }

  std::string receive(const char* during) {
    auto line = proc_.link.receive();
    if (!line) ended(during);
    // The worker's own CUDA error: the run ends as the one-process harness's does (exit 110).
    if (line->rfind("cuda ", 0) == 0)
      fatal(kExitCudaError, "CUDA error in the submission's process: " + line->substr(5));
    return *line;
  }

  // The next line, which must start with `word`; an "error" line instead is kept in
  // last_error_ (the task's generator failed in the worker) and stands for it.
  std::vector<std::string> expect(const char* word, const char* during) {
    const std::string line = receive(during);
    auto f = split_fields(line);
    if (f[0] == "error") {
      last_error_ = line.size() > 6 ? line.substr(6) : "the worker failed";
      return f;
    }
    if (f[0] != word)
      protocol(std::string("expected '") + word + "' while " + during + ", got '" +
               line.substr(0, 80) + "'");
    return f;
  }

  [[noreturn]] void ended(const char* during) {
    fatal(112, std::string("the submission's process ended (") + worker_ending(proc_.pid) +
                   ") during " + during);
  }
  [[noreturn]] void protocol(const std::string& what) {
    fatal(112, "the submission's process broke the protocol: " + what);
  }
  [[noreturn]] static void fatal(int code, const std::string& what) {
    std::fprintf(stderr, "kjudge harness: %s\n", what.c_str());
    std::fflush(stderr);
    std::_Exit(code);
  }

  WorkerProcess proc_;
  cudaEvent_t go_ = nullptr, done_ = nullptr;
  std::map<std::size_t, Buffer> buffers_;
  std::size_t bytes_ = 0;
  T* recv_ = nullptr;
  std::string last_error_;
};

}  // namespace kj
