// The judge's reading of the CUPTI profiler's record of a Triton timing process
// (triton/timing/cupti.h), on hand-written records in the profiler's own format and the runner's
// call marks: where each kernel and copy belongs (a timed call, another call of the operator
// code, its import, the runner's own work, another thread), the per-call span against the
// samples, the flags the candidate's processes make against the reference's, and the profiler
// library's clock and finish as the runner calls them (ctypes, in a real Python process).
#include "triton/timing/cupti.h"

#include <gtest/gtest.h>
#include <unistd.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

namespace kjudge::triton {
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
    p.rec.copy(t0 + 26000, t0 + 27000, t0 + 25000, kRunner);  // the read-back to the host
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
  // The side stream is also busy well past each sample: that decides (issue 31).
  ASSERT_EQ(checks(under), (std::vector<std::string>{"cupti_below_gpu", "cupti_undercount"}));
  EXPECT_NE(under.flags()[1].second[0].find("candidate round 0: add: "), std::string::npos);
  EXPECT_NE(under.flags()[1].second[0].find("2 stream(s)"), std::string::npos);
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
  // The hook's kernel is the operator's work while its calls are timed: it decides.
  ASSERT_EQ(checks(h), std::vector<std::string>{"cupti_hidden_work"});
  EXPECT_NE(h.flags()[0].second[0].find("add_kernel_deferred x1"), std::string::npos);
  EXPECT_EQ(h.flags()[0].second[0].find("from_a_method"), std::string::npos);
  EXPECT_EQ(h.flags()[0].second[0].find("reduce_kernel"), std::string::npos);
  EXPECT_TRUE(TritonCuptiJudge::decides("cupti_hidden_work"));
  EXPECT_FALSE(TritonCuptiJudge::decides("cupti_outside"));
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

// Issue 31: the judge's per-call channel, as the judge's clock saw it: each timed call's key
// went out 70 us before its window (the runner then makes the new inputs and flushes L2, 50 us
// before the window) and its done came back 20 us after the window began (10 us after it
// ended). The record starts at 1 ns, the process at 0: the clocks are comparable.
TritonStreamLog stream_of(const Process& p) {
  TritonStreamLog log;
  log.served = true;
  log.spawn_ns = 0;
  for (const TritonCallMark& m : p.marks.calls) {
    if (m.rep < 0) continue;
    TritonStreamEvent key, done, kept;
    key.kind = TritonStreamEvent::Kind::key;
    done.kind = TritonStreamEvent::Kind::done;
    kept.kind = TritonStreamEvent::Kind::kept;
    key.site = done.site = kept.site = m.site;
    key.rep = done.rep = kept.rep = static_cast<std::size_t>(m.rep);
    key.at_ns = static_cast<std::int64_t>(m.start_ns) - 70000;
    done.at_ns = static_cast<std::int64_t>(m.start_ns) + 20000;
    kept.at_ns = static_cast<std::int64_t>(m.start_ns) + 40000;  // read back in between
    log.events.push_back(key);
    log.events.push_back(done);
    log.events.push_back(kept);
  }
  return log;
}

TritonCuptiProcess analyze_streamed(const Process& p) {
  const TritonStreamLog log = stream_of(honest());
  return analyze_triton_profile(p.rec.parsed(), p.marks, p.sites, &log);
}

TEST(TritonCuptiStream, AnHonestProcessHoldsItsCallsBetweenTheirKeysAndDones) {
  TritonCuptiProcess c = analyze_streamed(honest());
  ASSERT_TRUE(c.used) << c.why;
  EXPECT_EQ(c.clock, "comparable");
  const TritonCuptiSite& s = c.sites[0];
  EXPECT_EQ(s.below, 0);
  EXPECT_EQ(s.no_work, 0);
  EXPECT_EQ(s.outside_interval, 0);
  ASSERT_EQ(s.interval_launches.size(), 5u);
  // Inside each call's interval, outside its window: the flush alone.
  for (const auto& launches : s.interval_launches)
    EXPECT_EQ(launches, (std::map<std::string, int>{{kFill, 1}}));
  EXPECT_EQ(s.busy_ns, std::vector<double>(5, 9000));
  TritonCuptiJudge j;
  j.add(analyze_streamed(honest()), true, "reference round 0", {"add"});
  j.add(analyze_streamed(honest()), false, "candidate round 0", {"add"});
  EXPECT_TRUE(j.flags().empty());
}

// The report's samples halved (json.dumps replaced, the timer scaled through gc): the GPU was
// busy longer in each call than its sample says.
TEST(TritonCuptiStream, SamplesBelowTheGpuWorkInTheirCallsDecide) {
  Process forged = honest();
  for (double& ms : forged.sites[0].samples_ms) ms = 0.0045;
  TritonCuptiProcess c = analyze_streamed(forged);
  EXPECT_EQ(c.sites[0].below, 5);
  EXPECT_NE(c.sites[0].below_example.find("call 0 reported 4.5 us, its GPU work was busy 9.0 us"),
            std::string::npos)
      << c.sites[0].below_example;
  TritonCuptiJudge j;
  j.add(analyze_streamed(honest()), true, "reference round 0", {"add"});
  j.add(c, false, "candidate round 0", {"add"});
  // The span beyond the (forged) events is an undercount too, a flag beside the decision.
  ASSERT_EQ(checks(j), (std::vector<std::string>{"cupti_below_gpu", "cupti_undercount"}));
  EXPECT_TRUE(TritonCuptiJudge::decides("cupti_below_gpu"));
  EXPECT_FALSE(TritonCuptiJudge::decides("cupti_undercount"));
  // Within the tolerance (1 us, 2 %): nothing.
  Process close = honest();
  for (double& ms : close.sites[0].samples_ms) ms = 0.0085;
  EXPECT_EQ(analyze_streamed(close).sites[0].below, 0);
}

// Attack 3: every timed call's output computed in the untimed first call, the timed calls
// handing it back with no GPU work at all.
TEST(TritonCuptiStream, TimedCallsWithNoDeviceWorkWhereTheReferencesHadSomeDecide) {
  Process ahead;
  const Process h = honest();
  ahead.marks = h.marks;
  ahead.sites = h.sites;
  ahead.rec.kernel(500, 600, 200, kRunner, 7, "op_setup");
  ahead.rec.kernel(902000, 951000, 901000, kRunner);  // five calls' work in the test's own call
  for (int r = 0; r < 5; ++r) {
    const std::uint64_t t0 = 1000000 + 100000 * static_cast<std::uint64_t>(r);
    ahead.rec.kernel(t0 - 40000, t0 - 20000, t0 - 50000, kRunner, 7, kFill);
    ahead.rec.copy(t0 + 2000, t0 + 3000, t0 + 1000, kRunner);  // a copy to the host: not work
  }
  TritonCuptiProcess c = analyze_streamed(ahead);
  EXPECT_EQ(c.sites[0].no_work, 5);
  TritonCuptiJudge j;
  j.add(analyze_streamed(honest()), true, "reference round 0", {"add"});
  j.add(c, false, "candidate round 0", {"add"});
  EXPECT_EQ(checks(j), std::vector<std::string>{"cupti_no_work"});
}

// The cheap-copy variant: the work launched after the key, before the marked window (or the
// window's marks moved off it), and a copy kernel in the window. The window's busy time and the
// sample agree; what gives it away is the work inside the call's interval outside its window.
TEST(TritonCuptiStream, WorkBetweenAKeyAndItsCallDecides) {
  Process hidden = honest(5, 900);
  for (int r = 0; r < 5; ++r) {
    const std::uint64_t t0 = 1000000 + 100000 * static_cast<std::uint64_t>(r);
    hidden.rec.kernel(t0 - 15000, t0 - 6000, t0 - 30000, kRunner, 7, "softmax_kernel");
  }
  for (double& ms : hidden.sites[0].samples_ms) ms = 0.002;
  TritonCuptiProcess c = analyze_streamed(hidden);
  EXPECT_EQ(c.sites[0].below, 0);
  EXPECT_EQ(c.sites[0].no_work, 0);
  EXPECT_EQ(c.sites[0].interval_launches[0].at("softmax_kernel"), 1);
  TritonCuptiJudge j;
  j.add(analyze_streamed(honest()), true, "reference round 0", {"add"});
  j.add(c, false, "candidate round 0", {"add"});
  ASSERT_EQ(checks(j), std::vector<std::string>{"cupti_hidden_work"});
  EXPECT_NE(j.flags()[0].second[0].find("softmax_kernel x1"), std::string::npos);
  // ATen's kernels count too when the reference launched fewer there: a second flush-named
  // kernel in every interval.
  Process aten = honest();
  for (int r = 0; r < 5; ++r) {
    const std::uint64_t t0 = 1000000 + 100000 * static_cast<std::uint64_t>(r);
    aten.rec.kernel(t0 - 15000, t0 - 6000, t0 - 30000, kRunner, 7, kFill);
  }
  TritonCuptiJudge a;
  a.add(analyze_streamed(honest()), true, "reference round 0", {"add"});
  a.add(analyze_streamed(aten), false, "candidate round 0", {"add"});
  EXPECT_EQ(checks(a), std::vector<std::string>{"cupti_hidden_work"});
  // torch's own spin (the hold before a call) is the runner's, once per attempt.
  Process held = honest();
  for (int r = 0; r < 5; ++r) {
    const std::uint64_t t0 = 1000000 + 100000 * static_cast<std::uint64_t>(r);
    held.rec.kernel(t0 - 15000, t0 - 1000, t0 - 30000, kRunner, 7,
                    "at::cuda::(anonymous namespace)::spin_kernel(long)");
  }
  TritonCuptiJudge hj;
  hj.add(analyze_streamed(honest()), true, "reference round 0", {"add"});
  hj.add(analyze_streamed(held), false, "candidate round 0", {"add"});
  EXPECT_TRUE(hj.flags().empty());
}

// Prefetching with forged acknowledgements: the keys were all asked for (and the outputs made)
// early, the calls marked later: outside the time between their key and their done.
TEST(TritonCuptiStream, CallsMarkedOutsideTheirKeyAndDoneDecide) {
  Process late = honest();
  TritonStreamLog log = stream_of(late);
  for (TritonStreamEvent& e : log.events) e.at_ns -= 2000000;  // every message 2 ms earlier
  TritonCuptiProcess c = analyze_triton_profile(late.rec.parsed(), late.marks, late.sites, &log);
  ASSERT_EQ(c.clock, "comparable");
  EXPECT_EQ(c.sites[0].outside_interval, 5);
  TritonCuptiJudge j;
  j.add(analyze_streamed(honest()), true, "reference round 0", {"add"});
  j.add(c, false, "candidate round 0", {"add"});
  EXPECT_EQ(checks(j), std::vector<std::string>{"cupti_interval"});
}

// An attempt not counted (its start had passed) did the work; the counted call, on the same
// inputs, handed back what it made.
TEST(TritonCuptiStream, AnAttemptNotCountedThatDidTheWorkDecides) {
  Process retry = honest(5, 900);
  for (int r = 0; r < 5; ++r) {
    const std::uint64_t t0 = 1000000 + 100000 * static_cast<std::uint64_t>(r);
    retry.marks.calls.push_back({0, -1, t0 - 19000, t0 - 9000});
    retry.rec.kernel(t0 - 17000, t0 - 8000, t0 - 18000, kRunner);
  }
  for (double& ms : retry.sites[0].samples_ms) ms = 0.002;
  TritonCuptiProcess c = analyze_streamed(retry);
  ASSERT_TRUE(c.used) << c.why;
  EXPECT_EQ(c.sites[0].retry_heavier, 5);
  EXPECT_EQ(c.sites[0].attempts, std::vector<int>(5, 2));
  TritonCuptiJudge j;
  j.add(analyze_streamed(honest()), true, "reference round 0", {"add"});
  j.add(c, false, "candidate round 0", {"add"});
  EXPECT_EQ(checks(j), std::vector<std::string>{"cupti_hidden_work"});
}

// Marks forged to hide the work: an untimed window added around it, reaching into the call's
// interval from before its key. No call of the runner's lies there.
TEST(TritonCuptiStream, AnUntimedWindowReachingIntoACallsIntervalDecides) {
  Process forged = honest(5, 900);
  for (int r = 0; r < 5; ++r) {
    const std::uint64_t t0 = 1000000 + 100000 * static_cast<std::uint64_t>(r);
    forged.marks.calls.push_back({0, -1, t0 - 75000, t0 - 20000});  // from before the key
    forged.rec.kernel(t0 - 17000, t0 - 8000, t0 - 30000, kRunner, 7, "softmax_kernel");
  }
  TritonCuptiProcess c = analyze_streamed(forged);
  ASSERT_TRUE(c.used) << c.why;
  EXPECT_EQ(c.sites[0].retry_heavier, 0);
  // The softmax kernel and the flush the window swallowed.
  EXPECT_EQ(
      c.sites[0].interval_launches[0].at("work of another call marked inside this one's interval"),
      2);
  TritonCuptiJudge j;
  j.add(analyze_streamed(honest()), true, "reference round 0", {"add"});
  j.add(c, false, "candidate round 0", {"add"});
  EXPECT_EQ(checks(j), std::vector<std::string>{"cupti_hidden_work"});
}

// A hook that runs while the runner reads an output back (a kernel registered with
// torch.library for the copy to the host, computing the real answer there): ATen's own kernels,
// which the runner's-thread rule lets pass, but not what the reference launched there.
TEST(TritonCuptiStream, WorkWhileAnOutputIsReadBackDecides) {
  TritonCuptiProcess h = analyze_streamed(honest());
  EXPECT_EQ(h.sites[0].readback_launches[0], (std::map<std::string, int>{{"copy DtoH", 1}}));
  Process hook = honest();
  for (int r = 0; r < 5; ++r) {
    const std::uint64_t t0 = 1000000 + 100000 * static_cast<std::uint64_t>(r);
    hook.rec.kernel(t0 + 23000, t0 + 24000, t0 + 22000, kRunner, 7,
                    "void at::native::reduce_kernel<512>");
  }
  TritonCuptiJudge j;
  j.add(analyze_streamed(honest()), true, "reference round 0", {"add"});
  j.add(analyze_streamed(hook), false, "candidate round 0", {"add"});
  ASSERT_EQ(checks(j), std::vector<std::string>{"cupti_hidden_work"});
  EXPECT_NE(j.flags()[0].second[0].find("read back"), std::string::npos);
  EXPECT_NE(j.flags()[0].second[0].find("reduce_kernel<512> x1"), std::string::npos);
}

TEST(TritonCuptiStream, OtherThreadsWorkingWhileASiteIsTimedDecide) {
  Process other = honest();
  other.rec.kernel(1051000, 1061000, 1050000, kOther, 7, "worker_kernel");
  TritonCuptiJudge j;
  j.add(analyze_streamed(honest()), true, "reference round 0", {"add"});
  j.add(analyze_streamed(other), false, "candidate round 0", {"add"});
  const std::vector<std::string> c = checks(j);
  ASSERT_FALSE(c.empty());
  EXPECT_EQ(c[0], "cupti_hidden_work");
}

TEST(TritonCuptiStream, ClocksThatCannotBeComparedAreSaid) {
  Process p = honest();
  TritonStreamLog log = stream_of(p);
  log.spawn_ns = 10'000'000'000;  // the record would start 10 s before the process did
  TritonCuptiProcess c = analyze_triton_profile(p.rec.parsed(), p.marks, p.sites, &log);
  EXPECT_NE(c.clock.find("not comparable"), std::string::npos) << c.clock;
  EXPECT_EQ(c.sites[0].outside_interval, 0);  // nothing is held to a clock that is not ours
  TritonCuptiJudge j;
  j.add(analyze_streamed(honest()), true, "reference round 0", {"add"});
  j.add(c, false, "candidate round 0", {"add"});
  EXPECT_EQ(checks(j), std::vector<std::string>{"cupti_clock"});
  // Where the references' clocks were not comparable either, no interval rule holds at all.
  TritonCuptiJudge none;
  none.add(c, true, "reference round 0", {"add"});
  none.add(c, false, "candidate round 0", {"add"});
  EXPECT_TRUE(none.flags().empty());
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
      "import time\n"
      "t = time.time_ns()\n"
      "print(int(a > 0 and b >= a), l.kjudge_profiler_finish(), l.kjudge_profiler_finish(), a, "
      "t)\n"
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
  std::uint64_t stamp = 0, realtime = 0;
  words >> clock_ok >> first >> second >> stamp >> realtime;
  // The profiler's clock is CLOCK_REALTIME (what the judge's per-call channel is timed by):
  // within a second of Python's time.time_ns() read just after.
  EXPECT_LE(stamp, realtime) << said;
  EXPECT_LT(realtime - stamp, 1000000000u) << said;
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
}  // namespace kjudge::triton
