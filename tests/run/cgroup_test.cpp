#include "run/cgroup.h"

#include <gtest/gtest.h>
#include <unistd.h>

#include "run/process.h"
#include "run/sandbox.h"
#include "test_util.h"

namespace kjudge {
namespace {

namespace fs = std::filesystem;

// A fake /proc/self/mounts and /proc/self/cgroup: detection reads only these and the
// hierarchies' cgroup.controllers, so any machine can check every layout.
class CgroupLayout : public ::testing::Test {
 protected:
  fs::path mounts() const { return dir_ / "mounts"; }
  fs::path self() const { return dir_ / "self-cgroup"; }
  testing::TempDir dir_;
};

TEST_F(CgroupLayout, V2UsesTheJudgesOwnGroup) {
  const fs::path v2 = dir_ / "v2";
  testing::write_text(v2 / "cgroup.controllers", "cpuset cpu io memory hugetlb pids\n");
  testing::write_text(v2 / "process_api/abc/cgroup.controllers", "memory pids\n");
  testing::write_text(mounts(), "proc /proc proc rw 0 0\ncgroup2 " + v2.string() +
                                    " cgroup2 rw,nosuid,nsdelegate 0 0\n");
  testing::write_text(self(), "0::/process_api/abc\n");
  CgroupPlace p = find_cgroup_place(mounts(), self(), false);
  EXPECT_EQ(p.version, 2);
  EXPECT_EQ(p.pids_parent, v2 / "process_api/abc/kjudge");
  EXPECT_EQ(p.memory_parent, p.pids_parent);
  EXPECT_NE(p.describe().find("pids memory"), std::string::npos) << p.describe();
}

// A shell an earlier judge moved into <group>/judge starts the next judge there: same place.
TEST_F(CgroupLayout, V2JudgeLeafReusesThePlaceAboveIt) {
  const fs::path v2 = dir_ / "v2";
  testing::write_text(v2 / "cgroup.controllers", "memory pids\n");
  testing::write_text(v2 / "job/cgroup.controllers", "memory pids\n");
  testing::write_text(v2 / "job/kjudge/cgroup.controllers", "memory pids\n");
  testing::write_text(v2 / "job/judge/cgroup.controllers", "\n");
  testing::write_text(mounts(), "cgroup2 " + v2.string() + " cgroup2 rw 0 0\n");
  testing::write_text(self(), "0::/job/judge\n");
  CgroupPlace p = find_cgroup_place(mounts(), self(), false);
  EXPECT_EQ(p.version, 2);
  EXPECT_EQ(p.memory_parent, v2 / "job/kjudge");
}

TEST_F(CgroupLayout, V2WithoutTheControllersHasNoPlace) {
  const fs::path v2 = dir_ / "v2";
  testing::write_text(v2 / "cgroup.controllers", "cpu io pids memory\n");
  testing::write_text(v2 / "user/cgroup.controllers", "cpu io\n");
  testing::write_text(mounts(), "cgroup2 " + v2.string() + " cgroup2 rw 0 0\n");
  testing::write_text(self(), "0::/user\n");
  CgroupPlace p = find_cgroup_place(mounts(), self(), false);
  EXPECT_EQ(p.version, 0);
  EXPECT_FALSE(p.has_pids());
  EXPECT_NE(p.why.find("neither pids nor memory"), std::string::npos) << p.why;
}

TEST_F(CgroupLayout, HybridPrefersTheV1HierarchiesOverAnEmptyUnifiedOne) {
  const fs::path unified = dir_ / "unified", pids = dir_ / "pids", mem = dir_ / "memory";
  testing::write_text(unified / "cgroup.controllers", "");
  testing::write_text(mounts(), "cgroup " + pids.string() + " cgroup rw,relatime,pids 0 0\n" +
                                    "cgroup " + mem.string() + " cgroup rw,memory 0 0\n" +
                                    "cgroup2 " + unified.string() + " cgroup2 rw 0 0\n");
  testing::write_text(self(), "8:pids:/\n4:memory:/job/7\n2:cpu,cpuacct:/\n0::/\n");
  CgroupPlace p = find_cgroup_place(mounts(), self(), false);
  EXPECT_EQ(p.version, 1);
  EXPECT_EQ(p.pids_parent, pids / "kjudge");
  EXPECT_EQ(p.memory_parent, mem / "job/7/kjudge");
}

TEST_F(CgroupLayout, NoCgroupsAtAll) {
  testing::write_text(mounts(), "proc /proc proc rw 0 0\n");
  testing::write_text(self(), "");
  CgroupPlace p = find_cgroup_place(mounts(), self(), false);
  EXPECT_EQ(p.version, 0);
  EXPECT_NE(p.describe().find("no pids hierarchy"), std::string::npos) << p.describe();
  EXPECT_FALSE(StepCgroup::create({64, 1 << 30}, p).has_value());
}

// The real thing, where this machine lets the judge make groups (root with v1 or v2).
class RealCgroup : public ::testing::Test {
 protected:
  void SetUp() override {
    if (!cgroup_place().has_memory())
      GTEST_SKIP() << "no memory cgroup here: " << cgroup_place().describe();
  }
  testing::TempDir dir_;
};

// Touches `mib` MiB one page at a time, then reports; a step past its limit never reports.
constexpr const char* kHog = R"(
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
int main(int argc, char** argv) {
  long mib = atol(argv[1]);
  for (long i = 0; i < mib; ++i) {
    char* p = malloc(1 << 20);
    if (!p) { printf("malloc failed after %ld MiB\n", i); return 3; }
    memset(p, 1, 1 << 20);
  }
  printf("touched %ld MiB\n", mib);
  return 0;
}
)";

fs::path build_hog(const fs::path& dir) {
  testing::write_text(dir / "hog.c", kHog);
  ProcessResult cc = run_shell("cc -O1 -o hog hog.c", dir, 60);
  EXPECT_TRUE(cc.ok()) << cc.output;
  return dir / "hog";
}

TEST_F(RealCgroup, AStepPastItsMemoryLimitIsKilledAndSaysSo) {
  const fs::path hog = build_hog(dir_.path());
  std::optional<StepCgroup> group = StepCgroup::create({64, 64ull << 20});
  ASSERT_TRUE(group.has_value());
  ASSERT_TRUE(group->limits_memory());
  ProcessSpec spec;
  spec.argv = {hog.string(), "256"};
  spec.timeout_s = 30;
  spec.cgroups = group->dirs();
  ProcessResult r = run_process(spec);
  EXPECT_EQ(r.signal, SIGKILL) << r.output;
  EXPECT_EQ(r.output.find("touched"), std::string::npos) << r.output;
  EXPECT_TRUE(group->oom_killed());
  std::optional<std::uint64_t> peak = group->memory_peak();
  ASSERT_TRUE(peak.has_value());
  EXPECT_LE(*peak, (64ull << 20) + (1 << 20)) << "the limit held, page cache included";
}

TEST_F(RealCgroup, AStepWithinItsLimitRunsAndIsMeasured) {
  const fs::path hog = build_hog(dir_.path());
  std::optional<StepCgroup> group = StepCgroup::create({64, 256ull << 20});
  ASSERT_TRUE(group.has_value());
  ProcessSpec spec;
  spec.argv = {hog.string(), "64"};
  spec.timeout_s = 30;
  spec.cgroups = group->dirs();
  ProcessResult r = run_process(spec);
  EXPECT_TRUE(r.ok()) << r.output;
  EXPECT_FALSE(group->oom_killed());
  std::optional<std::uint64_t> peak = group->memory_peak();
  ASSERT_TRUE(peak.has_value());
  EXPECT_GE(*peak, 64ull << 20);
  EXPECT_LT(*peak, 256ull << 20);
}

// Issue 35: a busy step's CPU stall where the kernel keeps pressure per group (v2 with PSI).
// Twice as many busy loops as cores wait for each other, as a loaded machine makes a test wait.
TEST_F(RealCgroup, AStepKeptWaitingForCoresHasItsStallCounted) {
  std::optional<StepCgroup> group = StepCgroup::create({64, 256ull << 20});
  ASSERT_TRUE(group.has_value());
  if (!group->stall_seconds()) GTEST_SKIP() << "no pressure (PSI) for step groups here";
  const long cores = sysconf(_SC_NPROCESSORS_ONLN);
  ProcessSpec spec;
  spec.argv = {"/bin/sh", "-c",
               "i=0; while [ $i -lt " + std::to_string(2 * cores + 1) +
                   " ]; do (end=$(($(date +%s) + 2)); while [ $(date +%s) -lt $end ]; do :; "
                   "done) & i=$((i + 1)); done; wait"};
  spec.timeout_s = 30;
  spec.cgroups = group->dirs();
  ProcessResult r = run_process(spec);
  EXPECT_TRUE(r.ok()) << r.output;
  std::optional<double> stall = group->stall_seconds();
  ASSERT_TRUE(stall.has_value());
  EXPECT_GT(*stall, 0.5) << "more busy processes than cores wait for them";
}

TEST(Pressure, TheSomeLinesTotalIsRead) {
  testing::TempDir dir;
  testing::write_text(dir / "cpu.pressure",
                      "some avg10=1.00 avg60=0.50 avg300=0.10 total=2500000\n"
                      "full avg10=0.00 avg60=0.00 avg300=0.00 total=7\n");
  EXPECT_DOUBLE_EQ(pressure_some_seconds(dir / "cpu.pressure").value_or(-1), 2.5);
  testing::write_text(dir / "bad.pressure", "some avg10=1.00\n");
  EXPECT_FALSE(pressure_some_seconds(dir / "bad.pressure").has_value());
  EXPECT_FALSE(pressure_some_seconds(dir / "missing.pressure").has_value());
}

TEST_F(RealCgroup, GroupsAreRemovedWithWhatIsLeftInThem) {
  fs::path dir;
  {
    std::optional<StepCgroup> group = StepCgroup::create({16, 64ull << 20});
    ASSERT_TRUE(group.has_value());
    ASSERT_FALSE(group->dirs().empty());
    dir = group->dirs().front();
    // A process that would outlive the step: the group's removal kills it.
    ProcessSpec spec;
    spec.argv = {"/bin/sh", "-c", "setsid sleep 300 >/dev/null 2>&1 < /dev/null & echo started"};
    spec.timeout_s = 10;
    spec.cgroups = group->dirs();
    ProcessResult r = run_process(spec);
    ASSERT_TRUE(r.ok()) << r.output;
  }
  EXPECT_FALSE(fs::exists(dir)) << dir;
}

// Without a memory cgroup the sandbox falls back to RLIMIT_DATA, which CUDA tolerates (its
// address-space reservations are PROT_NONE, not data). Checked here without any cgroup.
TEST(DataLimit, StopsAHeapHogWithoutACgroup) {
  testing::TempDir dir;
  const fs::path hog = build_hog(dir.path());
  ProcessSpec spec;
  spec.argv = {hog.string(), "512"};
  spec.timeout_s = 30;
  Limits l;
  l.data_bytes = 128L << 20;
  spec.limits = l;
  ProcessResult r = run_process(spec);
  EXPECT_EQ(r.exit_code, 3) << r.output;
  EXPECT_NE(r.output.find("malloc failed after"), std::string::npos) << r.output;
}

}  // namespace
}  // namespace kjudge
