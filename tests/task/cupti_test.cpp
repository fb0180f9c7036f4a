// The judge's reading of the CUPTI profiler's record of a task's timed run (task/cupti.h),
// on hand-written records in the profiler's own format: where each kernel and copy belongs
// (a timed call, an untimed call, the harness, another thread), the per-call span against the
// events' time, and the flags. The records mimic what the profiler writes for the corpus's
// cheats (tests/cheats/task/); the device run (tests/cheats/run-device.sh) checks the real ones.
#include "task/cupti.h"

#include <gtest/gtest.h>
#include <unistd.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include "kjudge/call_marks.h"
#include "perf/profiler_channel.h"

namespace kjudge::task {
namespace {

constexpr std::uint32_t kMain = 100;  // the harness's thread
constexpr std::uint32_t kOther = 200;

// A record in the profiler's text format (perf/profile_record.h), built line by line.
class Record {
 public:
  // A kernel: GPU [start, end], launched at `launch` by thread `tid` on `stream`.
  Record& kernel(std::uint64_t start, std::uint64_t end, std::uint64_t launch, std::uint32_t tid,
                 std::uint32_t stream = 7, const std::string& name = "add(float*)",
                 std::uint32_t context = 1) {
    lines_ += "K " + n(start) + " " + n(end) + " " + n(launch) + " " + n(tid) + " 0 " + n(context) +
              " " + n(stream) + " " + n(++corr_) + " " + name + "\n";
    ++items_;
    return *this;
  }
  Record& copy(std::uint64_t start, std::uint64_t end, std::uint64_t launch, std::uint32_t tid) {
    lines_ += "M " + n(start) + " " + n(end) + " " + n(launch) + " " + n(tid) +
              " memset 64 0 1 7 " + n(++corr_) + "\n";
    ++items_;
    return *this;
  }
  Record& range(std::uint64_t start, std::uint64_t end, const std::string& name,
                std::uint32_t tid = kMain) {
    lines_ += "R " + n(start) + " " + n(end) + " " + n(tid) + " " + name + "\n";
    ++items_;
    return *this;
  }
  Record& timed(std::uint64_t bench, std::uint64_t rep, std::uint64_t start, std::uint64_t end,
                std::uint32_t tid = kMain) {
    return range(start, end, std::string(kj::kMarkDomain) + "::" + kj::timed_mark(bench, rep), tid);
  }
  Record& untimed(std::uint64_t start, std::uint64_t end) {
    return range(start, end, std::string(kj::kMarkDomain) + "::" + kj::kUntimedMark);
  }
  std::string text(const std::string& nonce = "n0nce") const {
    return "KJPROF 1 " + nonce + "\nAPP 1 999999999\n" + lines_ + "DROPPED 0\nEND " + n(items_) +
           "\n";
  }

 private:
  static std::string n(std::uint64_t x) { return std::to_string(x); }
  std::string lines_;
  std::uint32_t corr_ = 0;
  int items_ = 0;
};

// The harness's report: one benchmark with these event times (ns), every output checked.
HarnessReport report_with(const std::vector<double>& times,
                          const std::string& profiler = "loaded") {
  HarnessReport r;
  r.mode = "benchmark";
  r.profiler = profiler;
  HarnessBenchmark b;
  b.spec = "size: 100; seed: 7";
  b.times_ns = times;
  b.host_ns = times;
  b.checked = static_cast<int>(times.size());
  b.status = "pass";
  r.benchmarks.push_back(b);
  r.passed = true;
  return r;
}

const std::vector<std::string> kNames = {"size: 100; seed: 7"};

TaskCupti analyze(const Record& rec, const HarnessReport& rep) {
  return task_cupti_from_record(rec.text(), "n0nce", rep, kNames);
}

std::vector<std::string> checks(const TaskCupti& c) {
  std::vector<std::string> out;
  for (const auto& f : c.flags) out.push_back(f.check);
  return out;
}

// The harness's work between calls: inputs, reference, flush (main thread, outside ranges).
Record& harness_work(Record& r, std::uint64_t at) {
  return r.kernel(at + 10, at + 50, at, kMain, 7, "fill_uniform")
      .copy(at + 60, at + 90, at + 5, kMain);
}

// Three timed calls of 10 µs by the events, each launching its kernels at the start of the
// call (host range [t, t + 3 µs]) that run on the GPU for `gpu_ns` from the call's start.
Record honest_calls(std::uint64_t gpu_ns) {
  Record r;
  r.untimed(1000, 2000).kernel(2100, 2100 + gpu_ns, 1500, kMain);  // warm-up
  for (std::uint64_t rep = 0; rep < 3; ++rep) {
    const std::uint64_t t = 100000 * (rep + 1);
    harness_work(r, t - 50000);
    r.timed(0, rep, t, t + 3000).kernel(t + 4000, t + 4000 + gpu_ns, t + 1000, kMain);
  }
  return r;
}

TEST(TaskCupti, HonestWorkOnTheTimedStreamIsNotFlagged) {
  // 8 µs of kernel inside 10 µs of events: the span is below the event time.
  TaskCupti c = analyze(honest_calls(8000), report_with({10000, 10000, 10000}));
  ASSERT_TRUE(c.used) << c.why;
  EXPECT_TRUE(c.flags.empty()) << c.flags[0].detail;
  ASSERT_EQ(c.benchmarks.size(), 1u);
  const CuptiBenchmark& b = c.benchmarks[0];
  EXPECT_EQ(b.calls, 3);
  EXPECT_EQ(b.kernels, 3) << "the warm-up's and the harness's kernels are not the calls'";
  EXPECT_EQ(b.copies, 0);
  EXPECT_EQ(b.span_ns, (std::vector<double>{8000, 8000, 8000}));
  EXPECT_DOUBLE_EQ(b.excess_ns, 0);
  EXPECT_EQ(b.other_thread_launches, 0);
  EXPECT_EQ(c.outside_kernels + c.outside_copies, 0);
  nlohmann::json x;
  add_cupti_benchmark_fields(b, x);
  EXPECT_DOUBLE_EQ(x["cupti_mean_us"].get<double>(), 8.0);
  EXPECT_EQ(x["cupti_calls"], 3);
  EXPECT_EQ(cupti_stage_json(c)["used"], true);
}

TEST(TaskCupti, WorkTheEventsDidNotSeeIsAnUndercount) {
  // side_stream.cu: 800 µs of kernels on a stream of their own, while the events on the held
  // default stream time 4 µs.
  TaskCupti c = analyze(honest_calls(800000), report_with({4000, 4000, 4000}));
  ASSERT_TRUE(c.used) << c.why;
  ASSERT_EQ(checks(c), std::vector<std::string>{"cupti_undercount"});
  EXPECT_DOUBLE_EQ(c.benchmarks[0].excess_ns, 796000);
  const std::string& d = c.flags[0].detail;
  EXPECT_NE(d.find("size: 100; seed: 7"), std::string::npos) << d;
  EXPECT_NE(d.find("800.0 us"), std::string::npos) << d;
  EXPECT_NE(d.find("4.0 us"), std::string::npos) << d;
}

TEST(TaskCupti, AnotherThreadsLaunchInsideTheCallCountsForIt) {
  // background_thread.cu: the call waits until a thread of its own has queued the work.
  Record r;
  for (std::uint64_t rep = 0; rep < 3; ++rep) {
    const std::uint64_t t = 100000 * (rep + 1);
    harness_work(r, t - 50000);
    r.timed(0, rep, t, t + 20000).kernel(t + 5000, t + 505000, t + 15000, kOther, 9);
  }
  TaskCupti c = analyze(r, report_with({3000, 3000, 3000}));
  ASSERT_EQ(checks(c), std::vector<std::string>{"cupti_undercount"});
  EXPECT_EQ(c.benchmarks[0].other_thread_launches, 3);
  EXPECT_NE(c.flags[0].detail.find("3 launches from other threads"), std::string::npos)
      << c.flags[0].detail;
}

TEST(TaskCupti, WorkLeftRunningPastTheCallIsAnUndercount) {
  // deferred_host_callback.cu: the kernel starts in the call and ends long after the stop event.
  Record r;
  for (std::uint64_t rep = 0; rep < 3; ++rep) {
    const std::uint64_t t = 100000 * (rep + 1);
    harness_work(r, t - 50000);
    r.timed(0, rep, t, t + 3000)
        .kernel(t + 4000, t + 6000, t + 1000, kMain, 7, "tiny")  // on the timed stream
        .kernel(t + 1500, t + 60000, t + 2000, kMain, 9);        // spins, released later
  }
  TaskCupti c = analyze(r, report_with({5000, 5000, 5000}));
  ASSERT_EQ(checks(c), std::vector<std::string>{"cupti_undercount"});
  EXPECT_EQ(c.benchmarks[0].streams, 2);
  EXPECT_DOUBLE_EQ(c.benchmarks[0].span_ns[0], 58500);
}

TEST(TaskCupti, SmallExcessesWithinTheSlackAreNot) {
  // 1.5 µs over 10 µs: the clocks' resolution, not hidden work (below 2 µs).
  EXPECT_FALSE(cupti_undercounts(1500, 10000));
  // 5 µs over 1 ms: 0.5 %, below 10 %.
  EXPECT_FALSE(cupti_undercounts(5000, 1e6));
  EXPECT_TRUE(cupti_undercounts(5000, 10000));
  EXPECT_TRUE(cupti_undercounts(200e3, 1e6));
  // An excess on some calls only still counts, averaged over all of them.
  Record r = honest_calls(8000);
  const std::uint64_t t = 400000;
  r.timed(0, 3, t, t + 3000).kernel(t + 4000, t + 304000, t + 1000, kMain, 9);
  TaskCupti c = analyze(r, report_with({10000, 10000, 10000, 10000}));
  EXPECT_EQ(checks(c), std::vector<std::string>{"cupti_undercount"});
  EXPECT_DOUBLE_EQ(c.benchmarks[0].excess_ns, 290000.0 / 4);
}

TEST(TaskCupti, OtherThreadsWorkBetweenCallsIsFlagged) {
  Record r = honest_calls(8000);
  r.kernel(150000, 170000, 149000, kOther, 11, "keep_warm(float*)")
      .kernel(250000, 270000, 249000, kOther, 11, "keep_warm(float*)")
      .copy(260000, 261000, 255000, kOther);
  TaskCupti c = analyze(r, report_with({10000, 10000, 10000}));
  ASSERT_TRUE(c.used);
  ASSERT_EQ(checks(c), std::vector<std::string>{"cupti_outside"});
  EXPECT_EQ(c.outside_kernels, 2);
  EXPECT_EQ(c.outside_copies, 1);
  EXPECT_DOUBLE_EQ(c.outside_gpu_ns, 41000);
  EXPECT_EQ(c.outside_names, std::vector<std::string>{"keep_warm(float*)"});
  EXPECT_NE(c.flags[0].detail.find("keep_warm"), std::string::npos);
  // The harness's own work between the calls is never the submission's.
  EXPECT_EQ(cupti_stage_json(c)["outside"]["kernels"], 2);
}

TEST(TaskCupti, ThreadsNumberedOtherwiseAreNotCompared) {
  // The ranges say thread 100, every launch says 7: the numbering differs (it never should), so
  // the harness's own launches must not pass for another thread's work between the calls.
  Record r;
  for (std::uint64_t rep = 0; rep < 3; ++rep) {
    const std::uint64_t t = 100000 * (rep + 1);
    r.kernel(t - 40000, t - 30000, t - 50000, 7, 7, "fill_uniform");
    r.timed(0, rep, t, t + 3000).kernel(t + 4000, t + 12000, t + 1000, 7);
  }
  TaskCupti c = analyze(r, report_with({10000, 10000, 10000}));
  ASSERT_TRUE(c.used);
  EXPECT_FALSE(c.threads_known);
  EXPECT_TRUE(c.flags.empty()) << c.flags[0].detail;
  EXPECT_EQ(c.outside_kernels, 0);
  EXPECT_EQ(c.benchmarks[0].other_thread_launches, 0);
  EXPECT_EQ(cupti_stage_json(c)["threads_known"], false);
  EXPECT_TRUE(analyze(honest_calls(8000), report_with({10000, 10000, 10000})).threads_known);
}

TEST(TaskCupti, TheFailedCallsRangeIsNeitherMatchedNorMissing) {
  // Three passing calls, then the fourth failed its check: the harness reports three times.
  Record r = honest_calls(8000);
  r.timed(0, 3, 400000, 403000).kernel(404000, 904000, 401000, kMain, 9);
  TaskCupti c = analyze(r, report_with({10000, 10000, 10000}));
  ASSERT_TRUE(c.used);
  EXPECT_TRUE(c.flags.empty());
  EXPECT_EQ(c.benchmarks[0].calls, 3);
}

TEST(TaskCupti, ForgedOrMissingRangesMakeTheRecordUntrusted) {
  // A submission that writes the harness's range names from another thread.
  Record dup = honest_calls(8000);
  dup.timed(0, 1, 200500, 201000, kOther);
  TaskCupti c = analyze(dup, report_with({10000, 10000, 10000}));
  EXPECT_FALSE(c.used);
  EXPECT_EQ(checks(c), std::vector<std::string>{"cupti_ranges"});
  EXPECT_FALSE(c.why.empty());

  // A name for a benchmark the harness never ran.
  Record stray = honest_calls(8000);
  stray.timed(5, 0, 500000, 501000);
  EXPECT_EQ(checks(analyze(stray, report_with({10000, 10000, 10000}))),
            std::vector<std::string>{"cupti_ranges"});

  // A timed call without its range (NVTX injection turned off by the submission).
  Record two;
  for (std::uint64_t rep = 0; rep < 2; ++rep) {
    const std::uint64_t t = 100000 * (rep + 1);
    two.timed(0, rep, t, t + 3000).kernel(t + 4000, t + 6000, t + 1000, kMain);
  }
  c = analyze(two, report_with({10000, 10000, 10000}));
  EXPECT_FALSE(c.used);
  ASSERT_EQ(checks(c), std::vector<std::string>{"cupti_ranges"});
  EXPECT_NE(c.flags[0].detail.find("1 of 3"), std::string::npos) << c.flags[0].detail;

  // Ranges of the harness's names from two threads.
  Record split = honest_calls(8000);
  Record moved;
  moved.timed(0, 0, 100000, 103000).timed(0, 1, 200000, 203000, kOther);
  moved.timed(0, 2, 300000, 303000).kernel(1, 2, 1, kMain);
  EXPECT_EQ(checks(analyze(moved, report_with({10000, 10000, 10000}))),
            std::vector<std::string>{"cupti_ranges"});
  // A range in the harness's domain nested inside a timed call, to move launches out of it.
  Record nested = honest_calls(8000);
  nested.range(200500, 201000, "kjudge::untimed");
  EXPECT_EQ(checks(analyze(nested, report_with({10000, 10000, 10000}))),
            std::vector<std::string>{"cupti_ranges"});

  // A submission's own ranges (any other name) are not the harness's business.
  split.range(100500, 101000, "kjudge::timedx 0 0").range(100500, 101000, "timed 0 0", kOther);
  EXPECT_TRUE(analyze(split, report_with({10000, 10000, 10000})).flags.empty());
}

TEST(TaskCupti, NoRecordIsAFlagOnlyWhenTheProfilerWasLoaded) {
  HarnessReport loaded = report_with({10000});
  TaskCupti c = task_cupti_from_record("", "n0nce", loaded, kNames);
  EXPECT_FALSE(c.used);
  EXPECT_EQ(checks(c), std::vector<std::string>{"cupti_record"});

  TaskCupti absent = task_cupti_from_record("", "n0nce", report_with({10000}, "absent"), kNames);
  EXPECT_FALSE(absent.used);
  EXPECT_TRUE(absent.flags.empty());
  EXPECT_NE(absent.why.find("did not load"), std::string::npos) << absent.why;
  EXPECT_EQ(cupti_stage_json(absent)["used"], false);
  EXPECT_FALSE(cupti_stage_json(absent)["why"].get<std::string>().empty());
}

TEST(TaskCupti, AHeaderAloneMeansTheProcessSkippedItsExitHandlers) {
  // A report forged before the harness wrote one, then _exit(0): it may well claim that no
  // profiler was loaded, but the profiler's header, written as it started, says otherwise.
  for (const char* said : {"loaded", "absent", ""}) {
    TaskCupti c =
        task_cupti_from_record("KJPROF 1 n0nce\n", "n0nce", report_with({10000}, said), kNames);
    EXPECT_FALSE(c.used);
    ASSERT_EQ(checks(c), std::vector<std::string>{"cupti_record"}) << said;
    EXPECT_NE(c.flags[0].detail.find("exit handlers"), std::string::npos);
    EXPECT_TRUE(c.unfinished) << said << ": task_run refuses such a report";
  }
  EXPECT_FALSE(
      task_cupti_from_record("", "n0nce", report_with({10000}, "loaded"), kNames).unfinished)
      << "no record at all is a flag only";
}

TEST(TaskCupti, AForeignOrCutRecordIsRefused) {
  TaskCupti c = task_cupti_from_record(honest_calls(8000).text("someone-else"), "n0nce",
                                       report_with({10000, 10000, 10000}), kNames);
  EXPECT_FALSE(c.used);
  ASSERT_EQ(checks(c), std::vector<std::string>{"cupti_record"});
  EXPECT_NE(c.flags[0].detail.find("nonce"), std::string::npos) << c.flags[0].detail;

  std::string cut = honest_calls(8000).text();
  cut.resize(cut.size() / 2);
  c = task_cupti_from_record(cut, "n0nce", report_with({10000, 10000, 10000}), kNames);
  EXPECT_EQ(checks(c), std::vector<std::string>{"cupti_record"});
}

TEST(TaskCupti, NoKernelsMeansTracingWasOff) {
  Record r;
  r.timed(0, 0, 100000, 103000);
  TaskCupti c = analyze(r, report_with({10000}));
  EXPECT_FALSE(c.used);
  EXPECT_TRUE(c.flags.empty());
  EXPECT_NE(c.why.find("no GPU activity"), std::string::npos) << c.why;
}

TEST(TaskCupti, UnplacedActivitiesAreCountedNotJudged) {
  Record r = honest_calls(8000);
  r.kernel(200500, 900000, 0, 0, 9);  // CUPTI could not name the launching call
  TaskCupti c = analyze(r, report_with({10000, 10000, 10000}));
  ASSERT_TRUE(c.used);
  EXPECT_EQ(c.unplaced, 1);
  EXPECT_TRUE(c.flags.empty());
}

// The profiler library itself (built beside kjudge where CUPTI is installed), preloaded into
// programs on this machine (no GPU needed), its channel a file that holds the nonce as the
// judge's memfd does (perf/profiler_channel.h): with KJUDGE_PROFILE_EARLY_HEADER=1 its start line
// (no nonce) is written as it starts, so a process that ends without its exit handlers leaves
// that line alone, and one that exits normally leaves one whole record (one header, the nonce's).
class ProfilerLibrary : public testing::Test {
 protected:
  void SetUp() override {
    lib_ = std::filesystem::path(KJUDGE_BINARY).parent_path() / "libkjudge_profiler.so";
    if (!std::filesystem::exists(lib_)) GTEST_SKIP() << "no " << lib_ << " (CUPTI not installed)";
    out_ = std::filesystem::temp_directory_path() /
           ("kjudge-early-header-" + std::to_string(::getpid()) + ".txt");
  }
  void TearDown() override { std::filesystem::remove(out_); }
  // `program`: /bin/true returns from main (exit handlers run); a shell killed by SIGKILL runs
  // none (nor does dash's own `exit`, which calls _exit).
  std::string run(const std::string& early, const std::string& program) {
    std::ofstream(out_) << "n0nce\n";
    const std::string cmd = "LD_PRELOAD=" + lib_.string() + " KJUDGE_PROFILE_FD=7" + early + " " +
                            program + " 7<>" + out_.string() + " 2>/dev/null";
    (void)std::system(cmd.c_str());
    std::ifstream in(out_);
    std::stringstream s;
    s << in.rdbuf();
    return s.str();
  }
  std::filesystem::path lib_, out_;
};

TEST_F(ProfilerLibrary, EarlyHeaderThenTheRestAtExit) {
  const std::string kKilled = "/bin/sh -c 'kill -9 $$'";
  const std::string whole = run(" KJUDGE_PROFILE_EARLY_HEADER=1", "/bin/true");
  ProfileRecord r = parse_profile_record(whole, "n0nce");  // one header, or it throws
  EXPECT_EQ(r.nonce, "n0nce");
  EXPECT_EQ(whole.rfind("KJPROF 1 n0nce\n", 0), 0u);

  // The start line carries no nonce: the program can read its channel while it runs.
  const std::string killed = run(" KJUDGE_PROFILE_EARLY_HEADER=1", kKilled);
  EXPECT_EQ(killed, "KJPROF 1 -\n");
  EXPECT_EQ(killed.find("n0nce"), std::string::npos);
  TaskCupti c = task_cupti_from_record(profile_channel_text(killed, "n0nce"), "n0nce",
                                       report_with({1}, "absent"), kNames);
  EXPECT_EQ(checks(c), std::vector<std::string>{"cupti_record"});
  EXPECT_TRUE(c.unfinished);

  // Without the variable (the ComputeEval path), nothing before the exit: the nonce taken, the
  // file emptied.
  EXPECT_EQ(run("", kKilled), "");
  EXPECT_NO_THROW(parse_profile_record(run("", "/bin/true"), "n0nce"));
  // A profiler that never loaded leaves the judge's nonce line: no record at all.
  EXPECT_EQ(profile_channel_text("n0nce\n", "n0nce"), "");
}

}  // namespace
}  // namespace kjudge::task
