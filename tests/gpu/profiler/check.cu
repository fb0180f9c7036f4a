// GPU check of the CUPTI profiler (issue 4), run by tests/gpu/run-profiler-check.sh. Kernels of
// known length (they spin on the GPU's global timer) on the default stream, on two streams at
// once, from a second host thread, through the cooperative, graph and driver launch paths;
// copies and a memset; NVTX ranges of every kind the profiler hooks. Each timed launch is also
// bracketed by CUDA events, and its own length measured inside the kernel, and printed:
//   EVENT <kernel> <case> <rep> <event_us> <in_kernel_us>
//   COPY <kind> <bytes> <event_us>
// Modes: `check` (all of the above), `check tiny N` (N empty kernels, prints
// TINY <loop_us> <submit_us>), `check env` (what the program sees of the judge's variables, one
// kernel), `check reset` (cudaDeviceReset before exit), `check nosync` (exits mid-kernel).
#include <cuda.h>
#include <cuda_runtime.h>
#include <nvtx3/nvToolsExt.h>

#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <map>
#include <string>
#include <thread>
#include <vector>

#define CHECK(call)                                                                             \
  do {                                                                                          \
    cudaError_t e = (call);                                                                     \
    if (e != cudaSuccess) {                                                                     \
      std::fprintf(stderr, "%s:%d %s: %s\n", __FILE__, __LINE__, #call, cudaGetErrorString(e)); \
      std::exit(1);                                                                             \
    }                                                                                           \
  } while (0)

__device__ __forceinline__ unsigned long long global_ns() {
  unsigned long long t;
  asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(t));
  return t;
}

// Distinct instances, so each case is told apart by name in the profile.
template <int Tag>
__global__ void spin(unsigned long long ns, unsigned long long* measured) {
  unsigned long long start = global_ns();
  while (global_ns() - start < ns) {
  }
  if (measured != nullptr) *measured = global_ns() - start;
}

__global__ void tiny() {}

using Kernel = void (*)(unsigned long long, unsigned long long*);

struct Timing {
  const char* kernel;
  std::string label;
  cudaEvent_t start, stop;
  unsigned long long* measured;  // device slot
};

std::vector<Timing> g_timings;
unsigned long long* g_slots = nullptr;
int g_next_slot = 0;

Timing& begin(const char* kernel, const std::string& label, cudaStream_t stream) {
  Timing t{kernel, label, nullptr, nullptr, g_slots + g_next_slot++};
  CHECK(cudaEventCreate(&t.start));
  CHECK(cudaEventCreate(&t.stop));
  CHECK(cudaEventRecord(t.start, stream));
  g_timings.push_back(t);
  return g_timings.back();
}

void timed_launch(Kernel k, const char* name, const std::string& label, unsigned long long ns,
                  cudaStream_t stream) {
  Timing& t = begin(name, label, stream);
  k<<<1, 1, 0, stream>>>(ns, t.measured);
  CHECK(cudaGetLastError());
  CHECK(cudaEventRecord(t.stop, stream));
}

void print_timings() {
  CHECK(cudaDeviceSynchronize());
  std::vector<unsigned long long> measured(g_next_slot);
  CHECK(cudaMemcpy(measured.data(), g_slots, g_next_slot * sizeof(unsigned long long),
                   cudaMemcpyDeviceToHost));
  std::map<std::string, int> reps;
  for (const auto& t : g_timings) {
    int rep = reps[t.kernel]++;
    float ms = 0;
    CHECK(cudaEventElapsedTime(&ms, t.start, t.stop));
    std::printf("EVENT %s %s %d %.3f %.3f\n", t.kernel, t.label.c_str(), rep, ms * 1000.0,
                measured[&t - g_timings.data()] / 1000.0);
  }
}

void copies() {
  const size_t bytes = 64u << 20;
  void *host = nullptr, *host2 = nullptr, *dev = nullptr, *dev2 = nullptr;
  CHECK(cudaMallocHost(&host, bytes));
  CHECK(cudaMallocHost(&host2, bytes));
  CHECK(cudaMalloc(&dev, bytes));
  CHECK(cudaMalloc(&dev2, bytes));
  std::memset(host, 1, bytes);
  struct Copy {
    const char* kind;
    void* dst;
    const void* src;
    cudaMemcpyKind direction;
  };
  const Copy list[] = {{"HtoD", dev, host, cudaMemcpyHostToDevice},
                       {"DtoH", host2, dev, cudaMemcpyDeviceToHost},
                       {"DtoD", dev2, dev, cudaMemcpyDeviceToDevice},
                       {"HtoH", host2, host, cudaMemcpyHostToHost}};
  cudaEvent_t a, b;
  CHECK(cudaEventCreate(&a));
  CHECK(cudaEventCreate(&b));
  for (const auto& c : list) {
    CHECK(cudaEventRecord(a));
    CHECK(cudaMemcpyAsync(c.dst, c.src, bytes, c.direction));
    CHECK(cudaEventRecord(b));
    CHECK(cudaEventSynchronize(b));
    float ms = 0;
    CHECK(cudaEventElapsedTime(&ms, a, b));
    std::printf("COPY %s %zu %.3f\n", c.kind, bytes, ms * 1000.0);
  }
  CHECK(cudaEventRecord(a));
  CHECK(cudaMemsetAsync(dev, 0, bytes));
  CHECK(cudaEventRecord(b));
  CHECK(cudaEventSynchronize(b));
  float ms = 0;
  CHECK(cudaEventElapsedTime(&ms, a, b));
  std::printf("COPY memset %zu %.3f\n", bytes, ms * 1000.0);
  CHECK(cudaFreeHost(host));
  CHECK(cudaFreeHost(host2));
  CHECK(cudaFree(dev));
  CHECK(cudaFree(dev2));
}

int full_check() {
  constexpr int kReps = 5;
  CHECK(cudaMalloc(&g_slots, 256 * sizeof(unsigned long long)));
  CHECK(cudaMemset(g_slots, 0, 256 * sizeof(unsigned long long)));  // 0: not measured (graph)
  // Warm-up, outside the timed region, as the ComputeEval harness does. Every kernel once too:
  // with lazy module loading a first launch waits for the GPU to drain, which would show in
  // its event timing (not in the profiler's).
  for (int i = 0; i < 3; ++i) spin<9><<<1, 1>>>(20000, nullptr);
  for (Kernel k :
       {spin<0>, spin<1>, spin<2>, spin<3>, spin<4>, spin<5>, spin<6>, spin<7>, spin<8>}) {
    k<<<1, 1>>>(1000, nullptr);
  }
  CHECK(cudaDeviceSynchronize());

  nvtxRangePushA("bench_region");
  for (int i = 0; i < kReps; ++i) timed_launch(spin<0>, "spin<0>", "default_50us", 50000, 0);
  for (int i = 0; i < kReps; ++i) timed_launch(spin<1>, "spin<1>", "default_200us", 200000, 0);
  for (int i = 0; i < kReps; ++i) timed_launch(spin<2>, "spin<2>", "default_1ms", 1000000, 0);

  // Two streams at once: the kernels overlap on the GPU.
  cudaStream_t a, b;
  CHECK(cudaStreamCreateWithFlags(&a, cudaStreamNonBlocking));
  CHECK(cudaStreamCreateWithFlags(&b, cudaStreamNonBlocking));
  for (int i = 0; i < kReps; ++i) {
    timed_launch(spin<3>, "spin<3>", "streamA_200us", 200000, a);
    timed_launch(spin<4>, "spin<4>", "streamB_200us", 200000, b);
  }
  CHECK(cudaDeviceSynchronize());

  // From a second host thread, on its own stream (events printed from here afterwards).
  std::thread worker([&] {
    nvtxRangePushA("worker_thread");
    cudaStream_t s;
    CHECK(cudaStreamCreateWithFlags(&s, cudaStreamNonBlocking));
    for (int i = 0; i < kReps; ++i) timed_launch(spin<5>, "spin<5>", "thread_200us", 200000, s);
    CHECK(cudaStreamSynchronize(s));
    nvtxRangePop();
  });
  worker.join();

  // Cooperative launch.
  for (int i = 0; i < kReps; ++i) {
    Timing& t = begin("spin<6>", "cooperative_100us", 0);
    unsigned long long ns = 100000;
    void* args[] = {&ns, &t.measured};
    CHECK(cudaLaunchCooperativeKernel(reinterpret_cast<const void*>(spin<6>), dim3(1), dim3(1),
                                      args, 0, 0));
    CHECK(cudaEventRecord(t.stop, 0));
  }

  // Graph launch: a captured kernel, replayed.
  {
    cudaStream_t s;
    CHECK(cudaStreamCreateWithFlags(&s, cudaStreamNonBlocking));
    cudaGraph_t graph;
    cudaGraphExec_t exec;
    CHECK(cudaStreamBeginCapture(s, cudaStreamCaptureModeGlobal));
    spin<7><<<1, 1, 0, s>>>(100000, nullptr);
    CHECK(cudaStreamEndCapture(s, &graph));
    CHECK(cudaGraphInstantiate(&exec, graph, 0));
    for (int i = 0; i < kReps; ++i) {
      cudaEvent_t e0, e1;
      CHECK(cudaEventCreate(&e0));
      CHECK(cudaEventCreate(&e1));
      CHECK(cudaEventRecord(e0, s));
      CHECK(cudaGraphLaunch(exec, s));
      CHECK(cudaEventRecord(e1, s));
      g_timings.push_back({"spin<7>", "graph_100us", e0, e1, g_slots + g_next_slot++});
    }
    CHECK(cudaStreamSynchronize(s));
  }

  // Driver API launch.
  {
    cudaFunction_t function;
    CHECK(cudaGetFuncBySymbol(&function, reinterpret_cast<const void*>(spin<8>)));
    for (int i = 0; i < kReps; ++i) {
      Timing& t = begin("spin<8>", "driver_100us", 0);
      unsigned long long ns = 100000;
      void* args[] = {&ns, &t.measured};
      if (cuLaunchKernel(reinterpret_cast<CUfunction>(function), 1, 1, 1, 1, 1, 1, 0, nullptr, args,
                         nullptr) != CUDA_SUCCESS) {
        std::fprintf(stderr, "cuLaunchKernel failed\n");
        return 1;
      }
      CHECK(cudaEventRecord(t.stop, 0));
    }
  }
  CHECK(cudaDeviceSynchronize());
  nvtxRangePop();

  nvtxRangeId_t range = nvtxRangeStartA("copies_startend");
  nvtxEventAttributes_t attributes{};
  attributes.version = NVTX_VERSION;
  attributes.size = NVTX_EVENT_ATTRIB_STRUCT_SIZE;
  attributes.messageType = NVTX_MESSAGE_TYPE_ASCII;
  attributes.message.ascii = "copies_pushex";
  nvtxRangePushEx(&attributes);
  copies();
  nvtxRangePop();
  nvtxRangeEnd(range);

  print_timings();
  return 0;
}

int tiny_loop(int count) {
  CHECK(cudaFree(nullptr));
  for (int i = 0; i < 100; ++i) tiny<<<1, 1>>>();
  CHECK(cudaDeviceSynchronize());
  using Clock = std::chrono::steady_clock;
  auto start = Clock::now();
  for (int i = 0; i < count; ++i) tiny<<<1, 1>>>();
  auto submitted = Clock::now();
  CHECK(cudaDeviceSynchronize());
  auto done = Clock::now();
  // Host time to submit the launches, then to the end of the last kernel.
  std::printf("TINY %.1f %.1f\n", std::chrono::duration<double, std::micro>(done - start).count(),
              std::chrono::duration<double, std::micro>(submitted - start).count());
  return 0;
}

// Kernels, then cudaDeviceReset() before returning, as some tests do: the context and its
// activity buffers are gone before the profiler's exit handler runs.
int reset_then_exit() {
  for (int i = 0; i < 3; ++i) spin<0><<<1, 1>>>(50000, nullptr);
  CHECK(cudaDeviceSynchronize());
  CHECK(cudaDeviceReset());
  return 0;
}

// A 20 ms kernel still running when main returns.
int exit_without_sync() {
  spin<1><<<1, 1>>>(20000000, nullptr);
  return 0;
}

int env_check() {
  for (const char* name : {"KJUDGE_PROFILE_FD", "KJUDGE_PROFILE_NONCE", "KJUDGE_PROFILE_FILE"}) {
    std::printf("ENV %s %s\n", name, std::getenv(name) != nullptr ? "visible" : "absent");
  }
  spin<0><<<1, 1>>>(50000, nullptr);
  CHECK(cudaDeviceSynchronize());
  return 0;
}

int main(int argc, char** argv) {
  if (argc > 1 && std::strcmp(argv[1], "tiny") == 0) {
    return tiny_loop(argc > 2 ? std::atoi(argv[2]) : 10000);
  }
  if (argc > 1 && std::strcmp(argv[1], "env") == 0) return env_check();
  if (argc > 1 && std::strcmp(argv[1], "reset") == 0) return reset_then_exit();
  if (argc > 1 && std::strcmp(argv[1], "nosync") == 0) return exit_without_sync();
  return full_check();
}
