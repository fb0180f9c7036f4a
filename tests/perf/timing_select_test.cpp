#include "perf/timing_select.h"

#include <gtest/gtest.h>

#include <cstdint>
#include <filesystem>
#include <string>

#include "perf/profile_record.h"
#include "test_util.h"

namespace kjudge {
namespace {

constexpr std::uint64_t kT0 = 1718012345000000000ULL;
constexpr const char* kGemm =
    "void gemm_kernel<float, 128>(float const*, float const*, float*, int)";
constexpr const char* kAdd = "void add<float>(float const*, float*, int)";

KernelRecord kernel(std::uint64_t launch, std::uint64_t start, std::uint64_t dur,
                    const std::string& name = kAdd, std::uint32_t tid = 100) {
  KernelRecord k;
  k.launch_ns = launch == 0 ? 0 : kT0 + launch;
  k.start_ns = kT0 + start;
  k.end_ns = kT0 + start + dur;
  k.launch_tid = tid;
  k.stream = 7;
  k.name = name;
  return k;
}

RangeRecord range(std::uint64_t start, std::uint64_t end, const std::string& name,
                  std::uint32_t tid = 100) {
  return RangeRecord{kT0 + start, kT0 + end, tid, name};
}

CopyRecord copy(std::uint64_t start, std::uint64_t dur, const std::string& kind) {
  CopyRecord c;
  c.start_ns = kT0 + start;
  c.end_ns = kT0 + start + dur;
  c.kind = kind;
  c.bytes = 1 << 20;
  return c;
}

ProfileRecord record() {
  ProfileRecord r;
  r.nonce = "n";
  r.app_start_ns = kT0;
  r.app_end_ns = kT0 + 2'500'000'000;
  return r;
}

TimingMode mode(const std::string& type, std::vector<std::string> include = {},
                std::vector<std::string> exclude = {}, const std::string& time_type = "") {
  return TimingMode{type, std::move(include), std::move(exclude), time_type};
}

void expect_ms(const TimeSelection& t, double ms) {
  ASSERT_TRUE(t.ms.has_value()) << "not timed: " << t.not_timed;
  EXPECT_NEAR(*t.ms, ms, 1e-9);
  EXPECT_TRUE(t.not_timed.empty());
  EXPECT_FALSE(t.how.empty());
}

void expect_not_timed(const TimeSelection& t, const std::string& words) {
  EXPECT_FALSE(t.ms.has_value()) << "timed " << *t.ms << " ms: " << t.how;
  EXPECT_NE(t.not_timed.find(words), std::string::npos)
      << "reason \"" << t.not_timed << "\" lacks \"" << words << "\"";
}

TEST(TimingMode, ProblemsWithTheMode) {
  EXPECT_EQ(timing_mode_problem(mode("process")), "");
  EXPECT_EQ(timing_mode_problem(mode("kernels", {"gemm*"})), "");
  EXPECT_EQ(timing_mode_problem(mode("gpu")), "");
  EXPECT_EQ(timing_mode_problem(mode("custom")), "");
  EXPECT_EQ(timing_mode_problem(mode("region", {"bench"})), "") << "time_type defaults to kernel";
  EXPECT_EQ(timing_mode_problem(mode("region", {"bench"}, {}, "wall_clock")), "");
  EXPECT_NE(timing_mode_problem(mode("wallclock")).find("unknown timing mode type"),
            std::string::npos);
  EXPECT_NE(timing_mode_problem(mode("region")).find("needs include"), std::string::npos);
  EXPECT_NE(timing_mode_problem(mode("region", {"b"}, {}, "cpu")).find("time_type \"cpu\""),
            std::string::npos);
  expect_not_timed(select_time(mode("region"), nullptr, ""), "unusable timing mode");
}

TEST(TimingMode, OnlyCustomRunsWithoutTheProfiler) {
  for (const char* t : {"process", "kernels", "region", "gpu"})
    EXPECT_TRUE(needs_profiler(mode(t)));
  EXPECT_FALSE(needs_profiler(mode("custom")));
}

TEST(GlobMatch, FnmatchWithoutFlags) {
  EXPECT_TRUE(glob_match("bench_region", "bench_region"));
  EXPECT_FALSE(glob_match("bench_region", "bench_region2"));
  EXPECT_TRUE(glob_match("bench*", "bench_region"));
  EXPECT_TRUE(glob_match("*", ""));
  EXPECT_TRUE(glob_match("", ""));
  EXPECT_FALSE(glob_match("", "x"));
  EXPECT_TRUE(glob_match("k?", "k1"));
  EXPECT_FALSE(glob_match("k?", "k12"));
  EXPECT_TRUE(glob_match("k[0-3]", "k2"));
  EXPECT_FALSE(glob_match("k[0-3]", "k7"));
  EXPECT_TRUE(glob_match("a*c", "a/b/c")) << "no FNM_PATHNAME";
  EXPECT_TRUE(glob_match("*x", ".x")) << "no FNM_PERIOD";
  EXPECT_TRUE(glob_match("\\*", "*"));
  EXPECT_FALSE(glob_match("\\*", "a"));
  EXPECT_FALSE(glob_match("Bench*", "bench")) << "case matters";
}

TEST(BareKernelName, StripsReturnTypeTemplatesAndParameters) {
  EXPECT_EQ(bare_kernel_name(kGemm), "gemm_kernel");
  EXPECT_EQ(bare_kernel_name("void ns::inner::reduce<int, 4>(int*)"), "ns::inner::reduce");
  EXPECT_EQ(bare_kernel_name("void (anonymous namespace)::scale(float*, int)"),
            "(anonymous namespace)::scale");
  EXPECT_EQ(bare_kernel_name("void k<std::pair<int, float>, 2>(std::pair<int, float>*)"), "k");
  EXPECT_EQ(bare_kernel_name("my_kernel(int)"), "my_kernel");
  EXPECT_EQ(bare_kernel_name("my_kernel"), "my_kernel") << "an extern \"C\" kernel";
  EXPECT_EQ(bare_kernel_name("_Z6kernelPfi"), "_Z6kernelPfi") << "mangled: left whole";
  EXPECT_EQ(bare_kernel_name("void cub::DeviceReduceKernel<cub::Policy<(int)600>>(int)"),
            "cub::DeviceReduceKernel");
}

TEST(SelectTime, ProcessIsTheApplicationSpan) {
  ProfileRecord r = record();
  TimeSelection t = select_time(mode("process"), &r, "");
  expect_ms(t, 2500.0);
  EXPECT_NE(t.how.find("process"), std::string::npos);

  r.app_start_ns = r.app_end_ns = 0;
  expect_not_timed(select_time(mode("process"), &r, ""), "no APP line");
  r.app_start_ns = r.app_end_ns = kT0;
  expect_not_timed(select_time(mode("process"), &r, ""), "zero");
}

TEST(SelectTime, KernelsSumsTheMatchingKernels) {
  ProfileRecord r = record();
  r.kernels = {kernel(10, 20, 1'000'000, kGemm), kernel(30, 40, 2'000'000, kAdd),
               kernel(50, 60, 4'000'000, "void ns::gemm_splitk<double>(double*)"),
               kernel(70, 80, 8'000'000, "gemm_reference_check")};
  r.copies = {copy(0, 16'000'000, "HtoD")};
  // Empty include: every kernel, and no copy.
  expect_ms(select_time(mode("kernels"), &r, ""), 15.0);
  // gemm* matches the bare name, qualified or not, of the templated kernels.
  TimeSelection t = select_time(mode("kernels", {"gemm*"}), &r, "");
  expect_ms(t, 13.0);
  EXPECT_NE(t.how.find("3 kernels of 4"), std::string::npos) << t.how;
  expect_ms(select_time(mode("kernels", {"gemm*"}, {"*reference*"}), &r, ""), 5.0);
  // Exclude by bare name too.
  expect_ms(select_time(mode("kernels", {}, {"add"}), &r, ""), 13.0);
  // The full recorded name works as a glob as well.
  expect_ms(select_time(mode("kernels", {"void add<float>(*"}), &r, ""), 2.0);
  expect_ms(select_time(mode("kernels", {"ns::gemm*"}), &r, ""), 4.0);
  expect_ms(select_time(mode("kernels", {"add", "gemm_kernel"}), &r, ""), 3.0);

  expect_not_timed(select_time(mode("kernels", {"conv*"}), &r, ""),
                   "no kernels matched: none of the 4 kernels launched (include conv*)");
  r.kernels.clear();
  expect_not_timed(select_time(mode("kernels"), &r, ""), "the program launched none");
}

TEST(SelectTime, GpuAddsCopiesAndMemsets) {
  ProfileRecord r = record();
  r.kernels = {kernel(10, 20, 1'000'000, kGemm), kernel(30, 40, 2'000'000, kAdd)};
  r.copies = {copy(0, 4'000'000, "HtoD"), copy(5, 8'000'000, "DtoH"),
              copy(9, 16'000'000, "memset")};
  TimeSelection t = select_time(mode("gpu"), &r, "");
  expect_ms(t, 31.0);
  EXPECT_NE(t.how.find("2 kernels and 3 copies or memsets"), std::string::npos) << t.how;
  // Include and exclude filter kernels only.
  expect_ms(select_time(mode("gpu", {"gemm*"}), &r, ""), 29.0);
  expect_ms(select_time(mode("gpu", {}, {"*"}), &r, ""), 28.0);

  r.copies.clear();
  expect_not_timed(select_time(mode("gpu", {"conv"}), &r, ""), "no GPU activity matched");
}

TEST(SelectTime, RegionWallClockSumsTheMatchingRanges) {
  ProfileRecord r = record();
  r.ranges = {range(1'000'000, 4'000'000, "warmup"), range(10'000'000, 15'000'000, "bench_region"),
              range(20'000'000, 22'000'000, "bench_region"),
              range(30'000'000, 38'000'000, "bench_region_debug")};
  TimeSelection t = select_time(mode("region", {"bench_region"}, {}, "wall_clock"), &r, "");
  expect_ms(t, 7.0);
  EXPECT_EQ(t.how, "region bench_region: wall-clock time of 2 ranges");
  expect_ms(select_time(mode("region", {"bench*"}, {}, "wall_clock"), &r, ""), 15.0);
  expect_ms(select_time(mode("region", {"bench*"}, {"*debug"}, "wall_clock"), &r, ""), 7.0);
  expect_ms(select_time(mode("region", {"warmup", "bench_region"}, {}, "wall_clock"), &r, ""),
            10.0);
}

// The fixture of a typical region benchmark: warm-up launches before the range, 100 launches
// inside it from two threads on two streams, the last of which run on the GPU after the range
// is popped (launches are asynchronous), and a verification kernel after it.
ProfileRecord region_benchmark() {
  ProfileRecord r = record();
  for (int i = 0; i < 3; ++i) r.kernels.push_back(kernel(1'000 + i * 100, 5'000 + i * 100, 50));
  r.ranges = {range(100'000, 200'000, "bench_region")};
  for (int i = 0; i < 100; ++i) {
    std::uint64_t launch = 100'000 + i * 1'000;  // the first exactly at the range's start
    r.kernels.push_back(
        kernel(launch, launch + 150'000, 10'000, i % 2 ? kGemm : kAdd, i % 2 ? 101 : 100));
  }
  r.kernels.push_back(kernel(200'001, 400'000, 7'000'000, "verify"));
  r.copies = {copy(0, 999'000, "HtoD")};
  return r;
}

TEST(SelectTime, RegionKernelTimeCountsLaunchesInsideTheRange) {
  ProfileRecord r = region_benchmark();
  TimeSelection t = select_time(mode("region", {"bench_region"}), &r, "");
  expect_ms(t, 1.0);  // 100 kernels of 10 us
  EXPECT_EQ(t.how, "region bench_region: kernel time of 100 kernels launched in 1 range");
  // Same with the explicit time_type.
  expect_ms(select_time(mode("region", {"bench_region"}, {}, "kernel"), &r, ""), 1.0);

  // A launch exactly at the range's end still belongs to it.
  r.kernels.push_back(kernel(200'000, 500'000, 10'000));
  expect_ms(select_time(mode("region", {"bench_region"}), &r, ""), 1.01);
}

// Beside a region's kernel time, its wall-clock time: what the benchmark stage sets against the
// baseline's (region_host_gap). Only for region modes timed by kernel time.
TEST(RegionWall, TheMatchingRangesWallClockBesideTheKernelTime) {
  ProfileRecord r = region_benchmark();
  ASSERT_TRUE(region_wall_ms(mode("region", {"bench_region"}), r).has_value());
  EXPECT_DOUBLE_EQ(*region_wall_ms(mode("region", {"bench_region"}), r), 0.1);
  EXPECT_DOUBLE_EQ(*region_wall_ms(mode("region", {"bench_region"}, {}, "kernel"), r), 0.1);
  EXPECT_FALSE(region_wall_ms(mode("region", {"bench_region"}, {}, "wall_clock"), r))
      << "the timed figure is the wall clock already";
  EXPECT_FALSE(region_wall_ms(mode("region", {"no_such_range"}), r));
  EXPECT_FALSE(region_wall_ms(mode("kernels", {}), r));
  EXPECT_FALSE(region_wall_ms(mode("process", {}), r));
}

TEST(SelectTime, OverlappingRangesCountAKernelOnce) {
  ProfileRecord r = region_benchmark();
  // The same work seen through a nested range, an overlapping one, and another thread's range.
  r.ranges.push_back(range(120'000, 150'000, "bench_region", 100));
  r.ranges.push_back(range(180'000, 260'000, "bench_region", 101));
  r.ranges.push_back(range(100'000, 200'000, "bench_region", 101));
  TimeSelection t = select_time(mode("region", {"bench_region"}), &r, "");
  // 100 kernels as before plus the verify launch at 200'001, now inside the 180k-260k range.
  expect_ms(t, 8.0);
  EXPECT_EQ(t.how, "region bench_region: kernel time of 101 kernels launched in 4 ranges");
}

TEST(SelectTime, KernelsWithoutALaunchTimeArePlacedByTheirGpuStart) {
  ProfileRecord r = record();
  r.ranges = {range(100'000, 200'000, "bench_region")};
  r.kernels = {kernel(0, 90'000, 1'000'000),           // starts before: out
               kernel(0, 100'000, 2'000'000),          // starts at the range's start: in
               kernel(0, 150'000, 4'000'000),          // in
               kernel(0, 200'001, 8'000'000),          // starts after: out
               kernel(150'000, 250'000, 16'000'000)};  // launch known and inside: in
  TimeSelection t = select_time(mode("region", {"bench_region"}), &r, "");
  expect_ms(t, 22.0);
  EXPECT_NE(t.how.find("kernel time of 3 kernels launched in 1 range; 2 of them had no launch "
                       "time and were placed by their GPU start instead"),
            std::string::npos)
      << t.how;
}

TEST(SelectTime, RegionReasonsForNoTime) {
  ProfileRecord r = region_benchmark();
  expect_not_timed(select_time(mode("region", {"bench"}), &r, ""), "no NVTX range matches bench");
  expect_not_timed(select_time(mode("region", {"bench*"}, {"bench_region"}), &r, ""),
                   "no NVTX range matches bench* (exclude bench_region)");
  r.ranges.push_back(range(1'000'000, 2'000'000, "idle"));
  expect_not_timed(select_time(mode("region", {"idle"}), &r, ""),
                   "no kernels matched: none was launched inside the 1 range matching idle");
  r.ranges.clear();
  expect_not_timed(select_time(mode("region", {"bench_region"}), &r, ""),
                   "no NVTX range matches bench_region: the program recorded no ranges");
  // A range with no time in it.
  r.ranges = {range(5, 5, "bench_region")};
  expect_not_timed(select_time(mode("region", {"bench_region"}, {}, "wall_clock"), &r, ""), "zero");
}

TEST(SelectTime, NoRecordOrDroppedActivity) {
  for (const char* type : {"process", "kernels", "gpu"}) {
    expect_not_timed(select_time(mode(type), nullptr, ""), "the profiler wrote nothing");
  }
  expect_not_timed(select_time(mode("region", {"b"}), nullptr, ""), "no profile record");
  ProfileRecord r = region_benchmark();
  r.dropped = 12;
  expect_not_timed(select_time(mode("kernels"), &r, ""), "CUPTI dropped 12 records");
  expect_not_timed(select_time(mode("process"), &r, ""), "CUPTI dropped 12 records");
}

TEST(SelectTime, ZeroKernelTime) {
  ProfileRecord r = record();
  r.kernels = {kernel(10, 20, 0)};
  expect_not_timed(select_time(mode("kernels"), &r, ""), "measured time is zero");
}

TEST(SelectTime, WorksOnAParsedRecord) {
  const std::string text =
      "KJPROF 1 abc\n"
      "APP 1000 9000000\n"
      "K 2000 3000 1500 11 0 1 7 1 void warm<int>(int*)\n"
      "K 5000 8000 4100 11 0 1 7 2 void step<int>(int*)\n"
      "K 6000 9500 4200 12 0 1 13 3 void step<int>(int*)\n"
      "R 4000 4500 11 bench_region\n"
      "END 4\n";
  ProfileRecord r = parse_profile_record(text, "abc");
  expect_ms(select_time(mode("region", {"bench_region"}), &r, ""), 0.0065);
  expect_ms(select_time(mode("kernels", {"step"}), &r, ""), 0.0065);
  expect_ms(select_time(mode("process"), &r, ""), 8.999);
}

TEST(CustomTime, ParsesTheLastReport) {
  EXPECT_EQ(parse_custom_time("COMPUTE_EVAL_TIME_MS: 1.25\n"), 1.25);
  EXPECT_EQ(parse_custom_time("COMPUTE_EVAL_TIME_MS: 3"), 3.0) << "no final newline";
  EXPECT_EQ(parse_custom_time("COMPUTE_EVAL_TIME_MS:0.5\r\n"), 0.5);
  EXPECT_EQ(parse_custom_time("COMPUTE_EVAL_TIME_MS: 2e-3  \n"), 0.002);
  EXPECT_EQ(parse_custom_time("[bench] COMPUTE_EVAL_TIME_MS: 7.5\n"), 7.5);
  EXPECT_EQ(parse_custom_time("warming up\nCOMPUTE_EVAL_TIME_MS: 9.0\nrun 2\n"
                              "COMPUTE_EVAL_TIME_MS: 4.0\ndone\n"),
            4.0);
  EXPECT_EQ(parse_custom_time("COMPUTE_EVAL_TIME_MS: 0\n"), 0.0);
}

TEST(CustomTime, RejectsMissingAndMalformedReports) {
  EXPECT_FALSE(parse_custom_time(""));
  EXPECT_FALSE(parse_custom_time("time: 1.0 ms\n"));
  EXPECT_FALSE(parse_custom_time("compute_eval_time_ms: 1.0\n"));
  for (const char* bad : {"nan", "NaN", "inf", "-inf", "infinity", "-1", "-0", "-0.5", "", "abc",
                          "1.0ms", "1.0 ms", "1,5", "0x10", "+1", "1.0 2.0"}) {
    EXPECT_FALSE(parse_custom_time(std::string("COMPUTE_EVAL_TIME_MS: ") + bad + "\n")) << bad;
  }
  // A broken last report does not fall back to an earlier valid one.
  EXPECT_FALSE(parse_custom_time("COMPUTE_EVAL_TIME_MS: 1.0\nCOMPUTE_EVAL_TIME_MS: oops\n"));
}

TEST(SelectTime, CustomReadsTheProgramOutput) {
  TimeSelection t = select_time(mode("custom"), nullptr, "ok\nCOMPUTE_EVAL_TIME_MS: 12.5\n");
  expect_ms(t, 12.5);
  EXPECT_NE(t.how.find("COMPUTE_EVAL_TIME_MS"), std::string::npos);
  expect_not_timed(select_time(mode("custom"), nullptr, "all tests passed\n"),
                   "printed no COMPUTE_EVAL_TIME_MS line");
  expect_not_timed(select_time(mode("custom"), nullptr, "COMPUTE_EVAL_TIME_MS: fast\n"),
                   "holds no valid time");
  expect_not_timed(select_time(mode("custom"), nullptr, "COMPUTE_EVAL_TIME_MS: 0\n"), "zero");
}

}  // namespace
}  // namespace kjudge

namespace kjudge {
namespace {

// A record the profiler wrote on the H100 (tests/gpu/profiler/check.cu, results/gpu-runs.md): 57
// kernels on three streams and two threads, 7 copies and memsets, 4 NVTX ranges. The expected
// figures were summed from the file independently of the parser (a few lines of Python).
TEST(RecordedProfile, H100RecordParsesAndEachModeSumsWhatItShould) {
  const std::string text = testing::read_text(std::filesystem::path(KJUDGE_SOURCE_DIR) /
                                              "tests/fixtures/profile-h100-check.txt");
  ProfileRecord r = parse_profile_record(text, "");
  EXPECT_EQ(r.kernels.size(), 57u);
  EXPECT_EQ(r.copies.size(), 7u);
  EXPECT_EQ(r.ranges.size(), 4u);

  TimingMode region;
  region.type = "region";
  region.include = {"bench_region"};
  region.time_type = "kernel";
  TimeSelection k = select_time(region, &r, "");
  ASSERT_TRUE(k.ms.has_value()) << k.not_timed;
  EXPECT_NEAR(*k.ms, 10.79373, 1e-6);
  EXPECT_NE(k.how.find("45"), std::string::npos) << k.how;

  region.time_type = "wall_clock";
  TimeSelection w = select_time(region, &r, "");
  ASSERT_TRUE(w.ms.has_value());
  EXPECT_NEAR(*w.ms, 12.965305, 1e-6);

  TimingMode kernels;
  kernels.type = "kernels";
  kernels.include = {"*spin<1>(*"};  // the full name; the bare name "spin" has no <1>
  TimeSelection one = select_time(kernels, &r, "");
  ASSERT_TRUE(one.ms.has_value()) << one.not_timed;
  EXPECT_NEAR(*one.ms, 1.00712, 1e-6);

  TimingMode gpu;
  gpu.type = "gpu";
  TimeSelection g = select_time(gpu, &r, "");
  ASSERT_TRUE(g.ms.has_value());
  EXPECT_NEAR(*g.ms, 10.873541 + 9.798679, 1e-6);

  TimingMode process;
  process.type = "process";
  TimeSelection p = select_time(process, &r, "");
  ASSERT_TRUE(p.ms.has_value());
  EXPECT_NEAR(*p.ms, 400.884249, 1e-6);
}

}  // namespace
}  // namespace kjudge
