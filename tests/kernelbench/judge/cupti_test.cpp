// What the CUPTI record says of a KernelBench run, placed by the runner's marks: each side's
// kernels, the reference's own kernels run by ModelNew, a timed call reported faster than the GPU
// worked in it, work another thread launched while the pairs were timed.
#include "kernelbench/judge/cupti.h"

#include <gtest/gtest.h>

#include <set>

namespace kjudge::kernelbench {
namespace {

constexpr std::uint64_t kT0 = 1'000'000'000'000;
constexpr std::uint32_t kRunner = 4242;
const std::string kNonce = "0123456789abcdef0123456789abcdef";

struct Record {
  std::string text = "KJPROF 1 " + kNonce + "\nAPP " + std::to_string(kT0) + " " +
                     std::to_string(kT0 + 10'000'000'000) + "\n";
  int items = 0;
  int corr = 1;
  // A kernel launched at `launch` by `tid`, running [start, start + ns).
  void kernel(std::uint64_t launch, std::uint64_t start, std::uint64_t ns, const std::string& name,
              std::uint32_t tid = kRunner) {
    text += "K " + std::to_string(start) + " " + std::to_string(start + ns) + " " +
            std::to_string(launch) + " " + std::to_string(tid) + " 0 1 7 " +
            std::to_string(corr++) + " " + name + "\n";
    ++items;
  }
  std::string done() const { return text + "END " + std::to_string(items) + "\n"; }
};

// A run with one correctness trial per side and two timed pairs, the solution's calls each
// launching `sol_kernel` for `sol_ns`, the reference's `ref_kernel` for 50 us.
RunOutcome run_with(Record& r, const std::string& sol_kernel, std::uint64_t sol_ns,
                    double reported_sol_ms) {
  RunOutcome o;
  o.status = RunStatus::ok;
  o.profiled = true;
  o.profile_nonce = kNonce;
  o.cupti.reported = o.cupti.clock = o.cupti.finished = true;
  o.cupti.tid = kRunner;
  std::uint64_t t = kT0 + 1'000'000;
  auto call = [&](int side, int phase, int index, const std::string& name, std::uint64_t ns) {
    o.cupti.calls.push_back({side, phase, index, t, t + 20'000});
    r.kernel(t + 5'000, t + 10'000, ns, name);
    t += 1'000'000;
  };
  call(1, 0, 0, "ref_kernel", 50'000);
  call(0, 0, 0, sol_kernel, sol_ns);
  for (int k = 0; k < 2; ++k) {
    call(0, 2, k, sol_kernel, sol_ns);
    call(1, 2, k, "ref_kernel", 50'000);
    TimedPair p;
    p.sol_ms = p.sol_dev_ms = reported_sol_ms;
    p.ref_ms = p.ref_dev_ms = 0.05;
    p.ok = true;
    o.pairs.push_back(p);
  }
  return o;
}

std::set<std::string> checks(const CuptiEvidence& e) {
  std::set<std::string> out;
  for (const Finding& f : e.findings) out.insert(f.check);
  return out;
}

TEST(KernelBenchCupti, AnHonestKernelOfItsOwnHasNoFinding) {
  Record r;
  RunOutcome o = run_with(r, "my_relu_kernel", 20'000, 0.025);
  o.profile = r.done();
  const CuptiEvidence e = cupti_evidence(o);
  ASSERT_TRUE(e.used) << e.why;
  EXPECT_TRUE(e.findings.empty());
  EXPECT_EQ(e.json["sides"]["solution"]["top"][0]["name"], "my_relu_kernel");
  EXPECT_EQ(e.json["sides"]["reference"]["top"][0]["name"], "ref_kernel");
}

TEST(KernelBenchCupti, TheReferencesOwnKernelsInModelNewAreSeen) {
  Record r;
  RunOutcome o = run_with(r, "ref_kernel", 50'000, 0.06);
  o.profile = r.done();
  EXPECT_EQ(checks(cupti_evidence(o)), std::set<std::string>{"reference_kernels"});
}

TEST(KernelBenchCupti, ACallReportedFasterThanTheGpuWorkedIsAHack) {
  Record r;
  RunOutcome o = run_with(r, "my_kernel", 200'000, 0.01);  // 10 us reported, 200 us of GPU work
  o.profile = r.done();
  const CuptiEvidence e = cupti_evidence(o);
  EXPECT_TRUE(checks(e).count("cupti_below"));
  for (const Finding& f : e.findings)
    if (f.check == "cupti_below") {
      EXPECT_EQ(f.severity, Severity::hack);
    }
}

TEST(KernelBenchCupti, WorkAnotherThreadLaunchedBetweenTheTimedCallsIsAHack) {
  Record r;
  RunOutcome o = run_with(r, "my_kernel", 20'000, 0.025);
  // Between the two pairs, outside every call, by a thread that is not the runner's.
  const std::uint64_t between = o.cupti.calls[3].end_ns + 100'000;
  r.kernel(between, between + 1'000, 300'000, "hidden_work", 777);
  // The runner's own work between the calls (the flush) is not counted.
  r.kernel(between + 10'000, between + 20'000, 100'000, "flush_kernel", kRunner);
  o.profile = r.done();
  const CuptiEvidence e = cupti_evidence(o);
  EXPECT_EQ(checks(e), std::set<std::string>{"cupti_outside"});
  EXPECT_EQ(e.json["outside"], 1);
}

TEST(KernelBenchCupti, ARecordThatCannotBeReadIsNotUsed) {
  Record r;
  RunOutcome o = run_with(r, "my_kernel", 20'000, 0.025);
  o.profile = r.text;  // no END: cut short
  const CuptiEvidence e = cupti_evidence(o);
  EXPECT_FALSE(e.used);
  EXPECT_NE(e.why.find("cannot be read"), std::string::npos) << e.why;
  o.profiled = false;
  EXPECT_EQ(cupti_evidence(o).why, "no profiler");
}

}  // namespace
}  // namespace kjudge::kernelbench
