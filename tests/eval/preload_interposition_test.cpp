// Judge code inside a judged program cannot be redirected by the program's own definitions of
// libc's names (issue 31). Measured before, on the H100: a program defining `write` shrank every
// kernel line of the CUPTI profiler's record (speedup 10.00 with no flag); one defining `getenv`
// received the main guard's channel and nonce. The guard's side is tried in main_return_test
// (the hostile corpus's define_* probes); here:
//   - what each preloaded library still imports through the dynamic linker (`nm -D`): the guard
//     nothing but dlsym, the profiler nothing its channel, its clock or its record goes through;
//   - the profiler preloaded into tests/fixtures/profiler_interpose.c, a program whose 60 ms NVTX
//     region would come out 1 µs (its write), 6 ms (its clock_gettime) or forged whole (its
//     getenv, strtol, fcntl, pread, close … stealing the nonce), with and without the sandbox:
//     the judge reads the true region every time, and no hook of the program ever acted.
// CPU only: without a GPU, CUPTI does not start, and the profiler's NVTX ranges and channel are
// what it records (as task_cupti_test's ProfilerLibrary).
#include <gtest/gtest.h>

#include <set>
#include <sstream>
#include <string>

#include "eval/step_runner.h"
#include "perf/profile_record.h"
#include "perf/profiler_channel.h"
#include "run/main_return.h"
#include "run/sandbox.h"
#include "test_util.h"

namespace kjudge {
namespace {

namespace fs = std::filesystem;

// The names a library imports (undefined in its dynamic symbol table), without versions.
std::set<std::string> imports(const fs::path& lib) {
  auto r = testing::run_capture("nm -D --undefined-only " + lib.string());
  EXPECT_EQ(r.rc, 0) << r.out;
  std::set<std::string> out;
  std::istringstream lines(r.out);
  for (std::string kind, name; lines >> kind >> name;) out.insert(name.substr(0, name.find('@')));
  return out;
}

fs::path profiler_library() {
  return fs::path(KJUDGE_BINARY).parent_path() / "libkjudge_profiler.so";
}

// The loader and the start files' weak references (TM clones, gmon, __cxa_finalize) run in no
// path of the guard's.
TEST(PreloadImports, TheMainGuardImportsNothingButDlsym) {
  const fs::path lib = locate_main_guard();
  ASSERT_FALSE(lib.empty());
  std::set<std::string> left;
  for (const std::string& name : imports(lib))
    if (name != "dlsym" && name.rfind("_ITM_", 0) != 0 && name != "__gmon_start__" &&
        name != "__cxa_finalize")
      left.insert(name);
  EXPECT_TRUE(left.empty()) << "imported: " << *left.begin();
}

// The profiler keeps CUPTI's calls and the C library's allocator, locks and atexit; nothing its
// channel, its clock fallback or its record text passes through (memcpy and the like included:
// it has its own).
TEST(PreloadImports, TheProfilersChannelClockAndRecordImportNothing) {
  const fs::path lib = profiler_library();
  if (!fs::exists(lib)) GTEST_SKIP() << "no " << lib << " (CUPTI not installed)";
  const std::set<std::string> got = imports(lib);
  for (const char* name :
       {"write",         "pwrite",        "pwrite64",     "writev",    "read",
        "pread",         "pread64",       "close",        "fcntl",     "fcntl64",
        "ftruncate",     "ftruncate64",   "lseek",        "lseek64",   "open",
        "open64",        "openat",        "dup",          "dup2",      "dup3",
        "getenv",        "secure_getenv", "unsetenv",     "setenv",    "strtol",
        "atoi",          "snprintf",      "vsnprintf",    "sprintf",   "getpid",
        "gettid",        "clock_gettime", "gettimeofday", "syscall",   "pthread_sigmask",
        "sigprocmask",   "sigtimedwait",  "getrlimit",    "prlimit64", "memcpy",
        "memmove",       "memset",        "memcmp",       "strlen",    "strcmp",
        "strncmp",       "strstr",        "memchr",       "_Znwm",     "_ZdlPv",
        "__cxa_demangle"})
    EXPECT_EQ(got.count(name), 0u) << "libkjudge_profiler.so imports " << name;
}

class ProfilerInterposition : public ::testing::Test {
 protected:
  void SetUp() override {
    lib_ = profiler_library();
    if (!fs::exists(lib_)) GTEST_SKIP() << "no " << lib_ << " (CUPTI not installed)";
    auto cc =
        testing::run_capture("cc -O1 -I/usr/local/cuda/include -o " + (dir_ / "prog").string() +
                             " " + KJUDGE_SOURCE_DIR + "/tests/fixtures/profiler_interpose.c -ldl");
    ASSERT_EQ(cc.rc, 0) << cc.out;
  }

  struct Outcome {
    ProcessResult r;
    std::string record_text;
    std::string nonce;
    std::string hooked;
  };

  // Runs ./prog MODE as a timed step runs it (benchmarker.cpp): the profiler preloaded and
  // named as NVTX's injection, its channel a memfd holding the nonce, the start line at once.
  Outcome run(const std::string& mode, bool sandbox) {
    fs::remove(dir_ / "hooked");
    StepSettings settings;
    settings.sandbox = sandbox;
    MachineInfo machine;
    machine.cpu_count = 2;
    ResultChannel channel = open_profiler_channel("kjudge-profile");
    StepExtras extras;
    extras.argv = {"./prog", mode};
    extras.env.push_back("NVTX_INJECTION64_PATH=" + preload_path(settings, lib_).string());
    for (std::string& e : profiler_channel_env(channel, true)) extras.env.push_back(e);
    extras.preload.push_back(lib_);
    extras.inherit_fds.push_back(channel.fd());
    Outcome o;
    o.r = run_step(settings, machine, "./prog " + mode, dir_.path(), 30, extras);
    o.record_text = profile_channel_text(channel);
    o.nonce = channel.nonce();
    o.hooked = testing::read_text(dir_ / "hooked");
    return o;
  }

  // The judge took the record, and its region is the 60 ms the program spent there.
  void expect_true_region(const Outcome& o, const std::string& what) {
    SCOPED_TRACE(what);
    EXPECT_EQ(o.r.exit_code, 0) << o.r.output;
    EXPECT_EQ(o.hooked, "") << "a hook of the program acted";
    ProfileRecord rec;
    ASSERT_NO_THROW(rec = parse_profile_record(o.record_text, o.nonce)) << o.record_text;
    ASSERT_EQ(rec.ranges.size(), 1u) << o.record_text;
    EXPECT_EQ(rec.ranges[0].name, "bench_region");
    EXPECT_GE(rec.ranges[0].end_ns - rec.ranges[0].start_ns, 55'000'000u) << o.record_text;
  }

  testing::TempDir dir_;
  fs::path lib_;
};

TEST_F(ProfilerInterposition, TheRecordStandsWhateverTheProgramDefines) {
  SandboxPolicy probe;
  probe.workspace = dir_.path();
  const bool boxed = sandbox_available(probe);
  for (bool sandbox : {false, true}) {
    if (sandbox && !boxed) continue;
    const std::string where = sandbox ? " (sandboxed)" : " (plain)";
    expect_true_region(run("honest", sandbox), "honest" + where);
    for (const char* mode : {"write", "clock", "steal"})
      expect_true_region(run(mode, sandbox), mode + where);
  }
}

}  // namespace
}  // namespace kjudge
