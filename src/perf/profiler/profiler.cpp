// The library's life: set up when the loader runs its constructor (LD_PRELOAD), write the
// record when the process exits normally. Nothing here runs unless the judge (or a person)
// named an output channel, so the processes a profiled program starts are left alone. The
// channel is handled on raw system calls (output_channel.h): the program's own write, getpid or
// close never sees the record.
#include <pthread.h>

#include <atomic>
#include <cstdint>
#include <cstdlib>
#include <string>

#include "clock.h"
#include "cupti_tracer.h"
#include "output_channel.h"
#include "record_writer.h"
#include "run/raw_syscall.h"
#include "store.h"

namespace kjudge::profiler {

namespace {

namespace raw = kjudge::raw;

// Plain pointers, never freed: CUPTI may still call back while the process tears down, after
// any destructor of ours would have run.
OutputChannel* g_channel = nullptr;
Store* g_store = nullptr;
bool g_tracing = false;
std::uint64_t g_app_start = 0;
int g_pid = 0;
std::atomic<bool> g_written{false};

// True when this call wrote the record; false when it was written already (or belongs to
// another process), so a caller can tell that someone finished it first.
bool write_record_once() {
  if (g_channel == nullptr || raw::getpid() != g_pid || g_written.exchange(true)) return false;
  std::uint64_t app_end = now_ns();
  if (g_tracing) flush_tracing(*g_store);
  Profile profile = g_store->take();
  set_active_store(nullptr);
  const std::string record = format_record(g_channel->nonce, g_app_start, app_end, profile);
  finish_output(*g_channel, record.data(), record.size());
  return true;
}

void write_record() { (void)write_record_once(); }

// A forked child shares the descriptor: it must not write a second record into it.
void forget_in_child() {
  set_active_store(nullptr);
  g_written.store(true);
  if (g_channel != nullptr) raw::close(g_channel->fd);
}

// glibc hands every constructor the process's argc, argv and environment.
__attribute__((constructor)) void start_profiler(int, char**, char** envp) {
  OutputChannel channel;
  if (!take_output_channel(envp, channel)) return;
  g_app_start = now_ns();
  g_pid = raw::getpid();
  g_channel = new OutputChannel(channel);
  if (g_channel->early_header) write_start_line(*g_channel);
  g_store = new Store;
  set_active_store(g_store);
  g_tracing = start_tracing(*g_store);
  pthread_atfork(nullptr, nullptr, forget_in_child);
  // Registered before main, so it runs after the program's own exit handlers and static
  // destructors, which may still launch work or close ranges.
  std::atexit(write_record);
}

}  // namespace

}  // namespace kjudge::profiler

extern "C" {

// The clock of the record's timestamps (CUPTI's), for a program that marks its own windows in
// time: the Triton runner brackets each call with it (triton/timing/cupti.h).
__attribute__((visibility("default"))) std::uint64_t kjudge_profiler_now_ns() {
  return kjudge::profiler::now_ns();
}

// Writes the record now, for a program that ends without running exit handlers (the Triton
// runner's os._exit). 1: this call wrote it; 0: it was written already (by an earlier call,
// which a runner reports: the work after it is missing), or no channel was named.
__attribute__((visibility("default"))) int kjudge_profiler_finish() {
  return kjudge::profiler::write_record_once() ? 1 : 0;
}

}  // extern "C"
