// The judge's reading of the CUPTI profiler's record of a Triton timing process
// (eval/triton_cupti.h), on hand-written records in the profiler's own format and the runner's
// call marks: where each kernel and copy belongs (a timed call, another call of the operator
// code, its import, the runner's own work, another thread), the per-call span against the
// samples, the flags the candidate's processes make against the reference's, and the profiler
// library's clock and finish as the runner calls them (ctypes, in a real Python process).
#include "eval/triton_cupti.h"

#include <gtest/gtest.h>
#include <unistd.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include "eval/task_cupti.h"

namespace kjudge {
namespace {

constexpr std::uint32_t kRunner = 100;  // the runner's thread
constexpr std::uint32_t kOther = 200;
const std::string kFill = "void at::native::vectorized_elementwise_kernel<4, FillFunctor<int>>";

// A record in the profiler's text format (perf/profile_record.h), built line by line.
class Record {
 public:
  Record& kernel(std::uint64_t start, std::uint64_t end, std::uint64_t launch, std::uint32_t tid,
                 std::uint32_t stream = 7, const std::string& name = "add_kernel") {
    lines_ += "K " + n(start) + " " + n(end) + " " + n(launch) + " " + n(tid) + " 0 1 " +
              n(stream) + " " + n(++corr_) + " " + name + "\n";
    ++items_;
    return *this;
  }
  Record& copy(std::uint64_t start, std::uint64_t end, std::uint64_t launch, std::uint32_t tid) {
    lines_ += "M " + n(start) + " " + n(end) + " " + n(launch) + " " + n(tid) + " DtoH 64 0 1 7 " +
              n(++corr_) + "\n";
    ++items_;
    return *this;
  }
  std::string text(const std::string& nonce = "n0nce", std::uint64_t app_end = 999999999) const {
    return "KJPROF 1 " + nonce + "\nAPP 1 " + n(app_end) + "\n" + lines_ + "DROPPED 0\nEND " +
           n(items_) + "\n";
  }
  ProfileRecord parsed() const { return parse_profile_record(text(), "n0nce"); }

 private:
  static std::string n(std::uint64_t x) { return std::to_string(x); }
  std::string lines_;
  std::uint32_t corr_ = 0;
  int items_ = 0;
};

// One site of `reps` timed calls of 10 us each (the samples), their windows 100 us apart from
// 1000 us on, 10 us long; before each, the runner's L2 flush on its own thread. `call_ns` is
// how long each call's kernel runs on the GPU, starting 2 us into its window.
struct Process {
  TritonCuptiMarks marks;
  std::vector<TritonCallSite> sites;
  Record rec;
};

Process honest(int reps = 5, std::uint64_t call_ns = 9000) {
  Process p;
  p.marks.reported = p.marks.clock = p.marks.finished = true;
  p.marks.tid = kRunner;
  p.marks.import_start_ns = 100;
  p.marks.import_end_ns = 900;
  p.rec.kernel(500, 600, 200, kRunner, 7, "op_setup");  // the import's own work
  TritonCallSite site;
  site.entry = "add";
  // The test's own call, untimed, before the timed ones.
  p.marks.calls.push_back({0, -1, 900000, 910000});
  p.rec.kernel(902000, 911000, 901000, kRunner);
  for (int r = 0; r < reps; ++r) {
    const std::uint64_t t0 = 1000000 + 100000 * static_cast<std::uint64_t>(r);
    p.rec.kernel(t0 - 40000, t0 - 20000, t0 - 50000, kRunner, 7, kFill);
    p.marks.calls.push_back({0, r, t0, t0 + 10000});
    p.rec.kernel(t0 + 2000, t0 + 2000 + call_ns, t0 + 1000, kRunner);
    site.samples_ms.push_back(0.010);
  }
  p.sites.push_back(site);
  return p;
}

TritonCuptiProcess analyze(const Process& p) {
  return analyze_triton_profile(p.rec.parsed(), p.marks, p.sites);
}

TEST(TritonCupti, HonestCallsSpanNoMoreThanTheirEvents) {
  TritonCuptiProcess c = analyze(honest());
  ASSERT_TRUE(c.used) << c.why;
  ASSERT_EQ(c.sites.size(), 1u);
  EXPECT_EQ(c.sites[0].calls, 5);
  EXPECT_EQ(c.sites[0].empty, 0);
  EXPECT_EQ(c.sites[0].kernels, 5);  // the untimed call's and the import's are not counted
  EXPECT_DOUBLE_EQ(c.sites[0].span_mean_ns, 9000);
  EXPECT_DOUBLE_EQ(c.sites[0].event_mean_ns, 10000);
  EXPECT_DOUBLE_EQ(c.sites[0].excess_ns, 0);
  EXPECT_EQ(c.sites[0].streams, 1);
  EXPECT_EQ(c.outside_kernels, 0);
  // The runner's flush between the timed calls is counted by name (the one before the first
  // timed call is the test's time, not the loop's), the import's kernel is not.
  ASSERT_EQ(c.runner_kernels.size(), 1u);
  EXPECT_EQ(c.runner_kernels.at(kFill), 4);
}

TEST(TritonCupti, WorkOnASideStreamPastTheEventsIsExcess) {
  Process p = honest(5, 9000);
  // A second kernel per call on stream 9, still running 0.5 ms after the call's end event.
  for (int r = 0; r < 5; ++r) {
    const std::uint64_t t0 = 1000000 + 100000 * static_cast<std::uint64_t>(r);
    p.rec.kernel(t0 + 3000, t0 + 500000, t0 + 1500, kRunner, 9);
  }
  TritonCuptiProcess c = analyze(p);
  ASSERT_TRUE(c.used) << c.why;
  EXPECT_EQ(c.sites[0].streams, 2);
  EXPECT_NEAR(c.sites[0].excess_ns, 488000, 1);
  EXPECT_TRUE(cupti_undercounts(c.sites[0].excess_ns, c.sites[0].event_mean_ns));
}

TEST(TritonCupti, WorkAThreadLaunchesAfterTheCallIsOutside) {
  Process p = honest();
  Process late;
  late.marks = p.marks;
  late.sites = p.sites;
  late.rec.kernel(500, 600, 200, kRunner, 7, "op_setup");
  late.rec.kernel(902000, 911000, 901000, kRunner);
  for (int r = 0; r < 5; ++r) {
    const std::uint64_t t0 = 1000000 + 100000 * static_cast<std::uint64_t>(r);
    late.rec.kernel(t0 - 40000, t0 - 20000, t0 - 50000, kRunner, 7, kFill);
    late.rec.kernel(t0 + 60000, t0 + 69000, t0 + 59000, kOther);  // after the window
  }
  TritonCuptiProcess c = analyze(late);
  ASSERT_TRUE(c.used) << c.why;
  EXPECT_EQ(c.sites[0].empty, 5);
  EXPECT_EQ(c.outside_kernels, 5);
  EXPECT_DOUBLE_EQ(c.outside_gpu_ns, 45000);
  EXPECT_EQ(c.outside_names, std::vector<std::string>{"add_kernel"});
}

TEST(TritonCupti, LaunchesWithoutATimeOrThreadAreCountedNotPlaced) {
  Process p = honest();
  p.rec.kernel(1000100, 1000200, 0, 0);
  p.rec.copy(1000100, 1000200, 1000050, 0);
  TritonCuptiProcess c = analyze(p);
  ASSERT_TRUE(c.used);
  EXPECT_EQ(c.unplaced, 2);
  EXPECT_EQ(c.sites[0].kernels, 5);
}

// rmsnorm_fused's test ends with a call that raises on purpose (a row over its 64 KB limit):
// that site has no timed calls and is not reported, but the runner still marks the call. What
// it launched (another thread's work included) belongs to the operator code, not outside it.
TEST(TritonCupti, ACallOfASiteWithNoTimedCallsIsStillTheOperatorsCode) {
  Process p = honest();
  p.marks.calls.push_back({1, -1, 2000000, 2010000});
  p.rec.kernel(2001000, 2002000, 2000500, kOther);
  TritonCuptiProcess c = analyze(p);
  ASSERT_TRUE(c.used) << c.why;
  ASSERT_EQ(c.sites.size(), 1u);
  EXPECT_EQ(c.sites[0].kernels, 5);
  EXPECT_EQ(c.outside_kernels, 0);
}

TEST(TritonCupti, MarksThatDisagreeWithTheSamplesAreNotUsed) {
  Process p = honest();
  p.marks.calls.pop_back();
  TritonCuptiProcess c = analyze(p);
  EXPECT_FALSE(c.used);
  EXPECT_NE(c.why.find("marked 4 of its 5 timed calls"), std::string::npos) << c.why;
  p = honest();
  p.marks.calls.push_back({0, 2, 5000000, 5000100});  // a timed call marked twice
  EXPECT_NE(analyze(p).why.find("disagree"), std::string::npos);
  p = honest();
  p.marks.calls.push_back({3, 0, 5000000, 5000100});  // a timed call of a site never reported
  EXPECT_NE(analyze(p).why.find("site 3"), std::string::npos);
  p = honest();
  p.marks.calls.push_back({0, -1, 1000005, 1000006});  // inside a timed call's window
  EXPECT_NE(analyze(p).why.find("overlap"), std::string::npos);
}

// The text as it came over the channel: what a process whose record cannot be trusted gives.
TEST(TritonCupti, ARecordThatCannotBeTrustedIsNotUsedAndSaysWhy) {
  Process p = honest();
  TritonRunOutcome o;
  o.profiled = true;
  o.profile_nonce = "n0nce";
  o.cupti = p.marks;
  o.sites = p.sites;
  o.profile = p.rec.text();
  EXPECT_TRUE(triton_cupti_process(o).used) << triton_cupti_process(o).why;

  auto why = [&](const std::string& text) {
    TritonRunOutcome x = o;
    x.profile = text;
    TritonCuptiProcess c = triton_cupti_process(x);
    EXPECT_FALSE(c.used);
    return c.why;
  };
  EXPECT_NE(why("").find("did not load"), std::string::npos);
  EXPECT_NE(why("KJPROF 1 n0nce\n").find("never finished"), std::string::npos);
  EXPECT_NE(why(p.rec.text("other")).find("refused"), std::string::npos);
  // Written (by something in the process) before the runner's last call had ended.
  EXPECT_NE(why(p.rec.text("n0nce", 1200000)).find("ends before the runner's last call"),
            std::string::npos);
  TritonRunOutcome early = o;
  early.cupti.finished = false;
  EXPECT_NE(triton_cupti_process(early).why.find("written already"), std::string::npos);
  TritonRunOutcome no_clock = o;
  no_clock.cupti.clock = false;
  no_clock.cupti.why = "AttributeError: undefined symbol";
  EXPECT_NE(triton_cupti_process(no_clock).why.find("undefined symbol"), std::string::npos);
  TritonRunOutcome not_asked;
  EXPECT_EQ(triton_cupti_process(not_asked).why, "the profiler was not asked for");
}

std::vector<std::string> checks(const TritonCuptiJudge& j) {
  std::vector<std::string> out;
  for (const auto& [check, lines] : j.flags()) out.push_back(check);
  return out;
}

TEST(TritonCuptiJudge, OnlyWhatTheReferenceDidNotShowIsHeldAgainstTheCandidate) {
  TritonCuptiJudge same;
  same.add(analyze(honest()), true, "reference round 0", {"add"});
  same.add(analyze(honest()), false, "candidate round 0", {"add"});
  EXPECT_TRUE(same.flags().empty());
  const nlohmann::ordered_json j = same.json();
  EXPECT_EQ(j["used"], true);
  EXPECT_EQ(j["candidate"]["sites"][0]["span_us"], 9.0);
  EXPECT_EQ(j["reference"]["runner_kernels_between_calls"], 4);

  // The candidate's side stream: undercount, unless the reference's calls ran past their
  // events too.
  Process side = honest();
  for (int r = 0; r < 5; ++r) {
    const std::uint64_t t0 = 1000000 + 100000 * static_cast<std::uint64_t>(r);
    side.rec.kernel(t0 + 3000, t0 + 500000, t0 + 1500, kRunner, 9);
  }
  TritonCuptiJudge under;
  under.add(analyze(honest()), true, "reference round 0", {"add"});
  under.add(analyze(side), false, "candidate round 0", {"add"});
  ASSERT_EQ(checks(under), std::vector<std::string>{"cupti_undercount"});
  EXPECT_NE(under.flags()[0].second[0].find("candidate round 0: add: "), std::string::npos);
  EXPECT_NE(under.flags()[0].second[0].find("2 stream(s)"), std::string::npos);
  TritonCuptiJudge both;
  both.add(analyze(side), true, "reference round 0", {"add"});
  both.add(analyze(side), false, "candidate round 0", {"add"});
  EXPECT_TRUE(both.flags().empty());
}

TEST(TritonCuptiJudge, WorkBetweenTheCallsFromAnotherThreadOrAHookIsOutside) {
  Process other = honest();
  other.rec.kernel(3000000, 3100000, 2999000, kOther, 7, "late_kernel");
  TritonCuptiJudge j;
  j.add(analyze(honest()), true, "reference round 0", {"add"});
  j.add(analyze(other), false, "candidate round 0", {"add"});
  ASSERT_EQ(checks(j), std::vector<std::string>{"cupti_outside"});
  EXPECT_NE(j.flags()[0].second[0].find("late_kernel"), std::string::npos);
  // The reference's processes do the same (torch's autograd thread running a backward pass the
  // test starts between the calls): within 25 % and 20 us, nothing.
  TritonCuptiJudge autograd;
  autograd.add(analyze(other), true, "reference round 0", {"add"});
  autograd.add(analyze(other), false, "candidate round 0", {"add"});
  EXPECT_TRUE(autograd.flags().empty());

  // The runner's thread launching a kernel the reference's never did between the calls: the
  // operator code's, from a hook. ATen's own kernels there are the runner's and the test's.
  Process hook = honest();
  hook.rec.kernel(1051000, 1052000, 1050000, kRunner, 7, "add_kernel_deferred");
  hook.rec.kernel(1061000, 1062000, 1060000, kRunner, 7, "void at::native::reduce_kernel<512>");
  // After the site's last timed call the runner's thread runs the test's code again: a
  // kernel there (an instance method the test calls, which is no entry) is not judged.
  hook.rec.kernel(3001000, 3002000, 3000000, kRunner, 7, "add_kernel_from_a_method");
  TritonCuptiJudge h;
  h.add(analyze(honest()), true, "reference round 0", {"add"});
  h.add(analyze(hook), false, "candidate round 0", {"add"});
  ASSERT_EQ(checks(h), std::vector<std::string>{"cupti_outside"});
  EXPECT_NE(h.flags()[0].second[0].find("add_kernel_deferred x1"), std::string::npos);
  EXPECT_EQ(h.flags()[0].second[0].find("from_a_method"), std::string::npos);
  EXPECT_EQ(h.flags()[0].second[0].find("reduce_kernel"), std::string::npos);
  EXPECT_TRUE(aten_kernel("void at::native::reduce_kernel<512>"));
  EXPECT_FALSE(aten_kernel("add_kernel"));
}

TEST(TritonCuptiJudge, ACandidateRecordThatCannotBeTrustedIsFlaggedWhereTheReferencesWere) {
  TritonCuptiProcess broken;
  broken.why = "the profiler started but its record was never finished";
  TritonCuptiJudge j;
  j.add(analyze(honest()), true, "reference round 0", {"add"});
  j.add(broken, false, "candidate round 1", {"add"});
  ASSERT_EQ(checks(j), std::vector<std::string>{"cupti_record"});
  EXPECT_EQ(j.flags()[0].second[0],
            "candidate round 1: the profiler started but its record was never finished");
  EXPECT_EQ(j.json()["used"], false);
  // Where CUPTI failed the reference too, nothing is held against anyone; the job says why.
  TritonCuptiJudge none;
  none.add(broken, true, "reference round 0", {"add"});
  none.add(broken, false, "candidate round 0", {"add"});
  EXPECT_TRUE(none.flags().empty());
  EXPECT_EQ(none.json()["why"],
            "reference round 0: the profiler started but its record was never finished");
}

// The library the judge preloads, in a real Python process as the runner uses it: its clock
// and its finish through ctypes, the record written by the finish (the process then leaves with
// os._exit, as the runner does, so no exit handler writes it), a second finish says 0. The
// interpreter itself, not a wrapper script (a pyenv shim's shell would take the channel and
// exec python without it): the judge runs sys.executable for the same reason.
TEST(TritonCuptiLibrary, TheRunnersClockAndFinishThroughCtypes) {
  const std::filesystem::path lib =
      std::filesystem::path(KJUDGE_BINARY).parent_path() / "libkjudge_profiler.so";
  if (!std::filesystem::exists(lib)) GTEST_SKIP() << "no " << lib << " (CUPTI not installed)";
  const std::filesystem::path out = std::filesystem::temp_directory_path() /
                                    ("kjudge-triton-cupti-" + std::to_string(::getpid()));
  const std::string script =
      "import ctypes, os\n"
      "l = ctypes.CDLL(None)\n"
      "now = l.kjudge_profiler_now_ns\n"
      "now.restype = ctypes.c_uint64\n"
      "a = now(); b = now()\n"
      "print(int(a > 0 and b >= a), l.kjudge_profiler_finish(), l.kjudge_profiler_finish(), a)\n"
      "os._exit(0)\n";
  // The channel holds the nonce, as the judge's memfd does (perf/profiler_channel.h).
  std::ofstream(out) << "n0nce\n";
  const std::string cmd =
      "LD_PRELOAD=" + lib.string() +
      " KJUDGE_PROFILE_FD=7 KJUDGE_PROFILE_EARLY_HEADER=1 /usr/bin/python3 -c '" + script +
      "' 7<>" + out.string() + " 2>/dev/null";
  FILE* pipe = ::popen(cmd.c_str(), "r");
  ASSERT_NE(pipe, nullptr);
  char buf[256] = {};
  const std::string said = fgets(buf, sizeof buf, pipe) ? buf : "";
  ::pclose(pipe);
  std::ifstream in(out);
  std::stringstream s;
  s << in.rdbuf();
  std::filesystem::remove(out);
  std::istringstream words(said);
  int clock_ok = 0, first = -1, second = -1;
  std::uint64_t stamp = 0;
  words >> clock_ok >> first >> second >> stamp;
  EXPECT_EQ(clock_ok, 1) << said;
  EXPECT_EQ(first, 1);
  EXPECT_EQ(second, 0);
  // One whole record (one header, though the early header went out first), which ends after
  // the clock's reading: the clock is the record's.
  ProfileRecord r = parse_profile_record(s.str(), "n0nce");
  EXPECT_GE(r.app_end_ns, stamp);
  EXPECT_LE(r.app_start_ns, stamp);
}

}  // namespace
}  // namespace kjudge
