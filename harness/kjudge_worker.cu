// The worker of an isolated task run (`kjudge task run --isolate`): the submission and this thin
// loop, in a process of their own. The checker (kjudge_harness.cu built with -DKJ_CHECKER)
// starts it and drives it over the link on descriptors 3 and 4 (kjudge/worker_link.h); the
// protocol is kjudge/split_call.cuh's. This program has no result channel, no nonce, no
// reference output and no clock that counts: what it says about its own time is shown beside the
// checker's, never used as the score.
//
//   kjudge_worker IN_FD OUT_FD [placement=arena|malloc]
#include <nvtx3/nvToolsExt.h>

#include <cstdio>
#include <cstdlib>
#include <exception>
#include <map>
#include <optional>
#include <string>

#include "kjudge/call_marks.h"
#include "kjudge/kept_calls.cuh"
#include "kjudge/worker_link.h"
#include "reference.cuh"
#include "task.h"

// The submission's entry point.
output_t custom_kernel(const input_t& input);

namespace {

kj::LineLink g_link;

// A CUDA error of the submission ends the run as it does in the one-process harness (exit 110);
// the checker says so for both.
void fail_cuda(cudaError_t e, const char* what) {
  g_link.send(std::string("cuda ") + cudaGetErrorName(e) + " (" + cudaGetErrorString(e) + ") in " +
              what);
  std::_Exit(kj::kExitCudaError);
}

void check(cudaError_t e, const char* what) {
  if (e != cudaSuccess) fail_cuda(e, what);
}

// As in the harness (kjudge/kept_calls.cuh): a call's buffers sit at addresses the recent calls
// did not use, so a result cached by pointer misses.
kj::KeptCalls<input_t, output_t> g_kept;

// The persisting-L2 set-aside is reset here as in the harness's flush (the checker flushes the
// cache itself: the L2 is the device's, whichever process writes it).
bool g_persisting = false;
void reset_persisting_l2() {
  if (!g_persisting) return;
  check(cudaDeviceSetLimit(cudaLimitPersistingL2CacheSize, 0), "resetting persisting L2");
  check(cudaCtxResetPersistingL2Cache(), "resetting persisting L2");
}

}  // namespace

int main(int argc, char** argv) {
  if (argc < 3) {
    std::fprintf(stderr, "usage: %s IN_FD OUT_FD [placement=arena|malloc]\n", argv[0]);
    return 2;
  }
  g_link = kj::LineLink(std::atoi(argv[1]), std::atoi(argv[2]));
  const bool arena = argc > 3 && std::string(argv[3]) == "placement=arena";
  nvtxDomainHandle_t marks = nvtxDomainCreateA(kj::kMarkDomain);

  auto hello = g_link.receive();
  if (!hello || hello->rfind("hello ", 0) != 0) return 2;
  cudaIpcEventHandle_t go_handle;
  if (!kj::from_hex(hello->substr(6), &go_handle, sizeof go_handle)) return 2;
  cudaEvent_t go, done, a, b;
  check(cudaIpcOpenEventHandle(&go, go_handle), "opening the checker's event");
  check(cudaEventCreateWithFlags(&done, cudaEventDisableTiming | cudaEventInterprocess),
        "creating the worker's event");
  check(cudaEventCreate(&a), "cudaEventCreate");
  check(cudaEventCreate(&b), "cudaEventCreate");
  int dev = 0, persisting = 0;
  check(cudaGetDevice(&dev), "cudaGetDevice");
  check(cudaDeviceGetAttribute(&persisting, cudaDevAttrMaxPersistingL2CacheSize, dev),
        "cudaDeviceGetAttribute");
  g_persisting = persisting > 0;
  if (arena) {
    std::size_t free_b = 0, total_b = 0;
    check(cudaMemGetInfo(&free_b, &total_b), "cudaMemGetInfo");
    kj::Arena::get().enable(std::min<std::size_t>(free_b / 2, std::size_t{16} << 30));
  }
  cudaIpcEventHandle_t done_handle;
  check(cudaIpcGetEventHandle(&done_handle, done), "cudaIpcGetEventHandle");
  g_link.send("ready " + kj::to_hex(&done_handle, sizeof done_handle));

  std::map<std::string, void*> opened;  // the checker's receive buffers, by handle
  std::optional<input_t> input;
  void* dst = nullptr;
  std::size_t bytes = 0;
  for (;;) {
    auto line = g_link.receive();
    if (!line) return 0;  // the checker is done
    const auto f = kj::split_fields(*line, 5);
    if (f[0] == "prep" && f.size() == 5) {
      // prep REP BYTES HANDLE|- CASE
      try {
        kj::Spec s = kj::Spec::parse(f[4]);
        s.set_seed(kj::repetition_seed(s.seed(), std::strtoull(f[1].c_str(), nullptr, 10)));
        check(cudaDeviceSynchronize(), "the previous call");
        g_kept.trim();
        input = generate_input(s);
      } catch (const std::exception& e) {
        g_link.send(std::string("error ") + e.what());
        continue;
      }
      bytes = std::strtoull(f[2].c_str(), nullptr, 10);
      dst = nullptr;
      if (f[3] != "-") {
        auto it = opened.find(f[3]);
        if (it == opened.end()) {
          cudaIpcMemHandle_t h;
          if (!kj::from_hex(f[3], &h, sizeof h)) return 2;
          void* p = nullptr;
          check(cudaIpcOpenMemHandle(&p, h, cudaIpcMemLazyEnablePeerAccess),
                "opening the checker's buffer");
          it = opened.emplace(f[3], p).first;
        }
        dst = it->second;
      }
      reset_persisting_l2();
      check(cudaDeviceSynchronize(), "making the input");
      g_link.send("ok");
    } else if (f[0] == "calibrate") {
      // The checker measures the crossing alone: W right behind G, nothing of the submission.
      check(cudaStreamWaitEvent(0, go, 0), "waiting for the checker");
      check(cudaEventRecord(done, 0), "cudaEventRecord");
      g_link.send("queued");
      check(cudaDeviceSynchronize(), "the calibration");
      g_link.send("synced 0");
    } else if (f[0] == "go" && input) {
      const std::string mark = line->size() > 3 ? line->substr(3) : "";
      nvtxEventAttributes_t attr{};
      attr.version = NVTX_VERSION;
      attr.size = NVTX_EVENT_ATTRIB_STRUCT_SIZE;
      attr.messageType = NVTX_MESSAGE_TYPE_ASCII;
      attr.message.ascii = mark.c_str();
      // The checker recorded `go` behind its start event and its gate: nothing of the call runs
      // on the default stream before them.
      check(cudaStreamWaitEvent(0, go, 0), "waiting for the checker");
      check(cudaEventRecord(a, 0), "cudaEventRecord");
      output_t got;
      std::string threw;
      nvtxDomainRangePushEx(marks, &attr);
      try {
        got = custom_kernel(*input);
      } catch (const std::exception& e) {
        threw = std::string("custom_kernel threw: ") + e.what();
      } catch (...) {
        threw = "custom_kernel threw a non-standard exception";
      }
      nvtxDomainRangePop(marks);
      check(cudaEventRecord(b, 0), "cudaEventRecord");
      check(cudaEventRecord(done, 0), "cudaEventRecord");
      for (char& c : threw)
        if (c == '\n' || c == '\r') c = ' ';
      g_link.send(threw.empty() ? "queued" : "threw " + threw);
      cudaError_t e = cudaDeviceSynchronize();
      if (e == cudaSuccess) e = cudaGetLastError();
      if (e != cudaSuccess) fail_cuda(e, "custom_kernel (or the work it launched)");
      float ms = 0;
      check(cudaEventElapsedTime(&ms, a, b), "cudaEventElapsedTime");
      char t[64];
      std::snprintf(t, sizeof t, "synced %.1f", static_cast<double>(ms) * 1e6);
      g_link.send(t);
      if (!threw.empty() || bytes == 0) {
        g_kept.keep(*input, got);
        continue;
      }
      if (!got) {
        g_link.send("done none");
        continue;
      }
      if (got.bytes() == bytes && dst) {
        check(cudaMemcpy(dst, got.data(), bytes, cudaMemcpyDeviceToDevice), "returning the output");
        check(cudaDeviceSynchronize(), "returning the output");
      }
      std::string d = "done";
      for (std::int64_t x : got.shape()) d += " " + std::to_string(x);
      g_link.send(d);
      g_kept.keep(*input, got);
    } else {
      return 2;
    }
  }
}
