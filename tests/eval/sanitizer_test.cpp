// compute-sanitizer as the judge runs it (eval/sanitizer.h): where it is found, the command it
// runs, what its report says, and which outcomes are the solution's and which the judge's. The
// runs themselves, with a fake sanitizer, are in evaluator_test.cpp and cli_test.cpp.
#include "eval/sanitizer.h"

#include <gtest/gtest.h>
#include <sys/stat.h>

#include <filesystem>
#include <stdexcept>

#include "test_util.h"

namespace kjudge {
namespace {

namespace fs = std::filesystem;
const fs::path kFake = fs::path(KJUDGE_SOURCE_DIR) / "tests/fixtures/fake-compute-sanitizer";

// What memcheck prints for CUDA/26's off-by-one mutant, the program's own lines between.
const char* kMemcheckReport =
    "========= COMPUTE-SANITIZER\n"
    "=== CUDA-26 Warp Reduce Test Suite ===\n"
    "========= Invalid __shared__ read of size 4 bytes\n"
    "=========     at reduce_threadblock(float, float *)+0x2f0 in solution.cu:35\n"
    "=========     by thread (1,0,0) in block (0,0,0)\n"
    "=========     Address 0x4 is out of bounds\n"
    "========= \n"
    "========= Invalid __shared__ read of size 4 bytes\n"
    "=========     at reduce_threadblock(float, float *)+0x2f0 in solution.cu:35\n"
    "=========     by thread (2,0,0) in block (0,0,0)\n"
    "  FAIL [AllOnes_Size32]: expected=32.00, got=0.00\n"
    "========= ERROR SUMMARY: 31 errors\n";

ProcessResult exited(int code, const std::string& output) {
  ProcessResult r;
  r.started = true;
  r.exit_code = code;
  r.output = output;
  return r;
}

void make_executable(const fs::path& p, const std::string& text) {
  testing::write_text(p, text);
  chmod(p.c_str(), 0755);
}

TEST(Sanitizer, ReadsTheFirstErrorAndTheErrorSummaryOfARealReport) {
  const SanitizerOutput out = parse_sanitizer_output(kMemcheckReport);
  ASSERT_TRUE(out.errors.has_value());
  EXPECT_EQ(*out.errors, 31);
  ASSERT_EQ(out.first_error.size(), 4u);
  EXPECT_EQ(out.first_error[0], "Invalid __shared__ read of size 4 bytes");
  EXPECT_EQ(out.first_error[3], "Address 0x4 is out of bounds");
  EXPECT_FALSE(parse_sanitizer_output("no sanitizer here\n").errors.has_value());
  EXPECT_EQ(parse_sanitizer_output(kMemcheckReport, 2).first_error.size(), 2u);
}

TEST(Sanitizer, OnlyErrorsTheToolCountsAreTheSolutions) {
  const SanitizerRecord found = judge_sanitizer_run("memcheck", exited(86, kMemcheckReport), 60);
  EXPECT_EQ(found.outcome, SanitizerOutcome::errors);
  EXPECT_EQ(found.errors, 31);
  EXPECT_EQ(found.detail, "memcheck: 31 errors: Invalid __shared__ read of size 4 bytes");

  EXPECT_EQ(
      judge_sanitizer_run("memcheck", exited(0, "ok\n========= ERROR SUMMARY: 0 errors\n"), 60)
          .outcome,
      SanitizerOutcome::clean);

  // racecheck alone on a clean run prints only its own summary (the real tool on the H200).
  EXPECT_EQ(judge_sanitizer_run(
                "racecheck",
                exited(0,
                       "=== All tests passed! ===\n========= RACECHECK SUMMARY: 0 hazards "
                       "displayed (0 errors, 0 warnings)\n"),
                60)
                .outcome,
            SanitizerOutcome::clean);
  EXPECT_EQ(judge_sanitizer_run("racecheck",
                                exited(86,
                                       "========= Error: Race reported between Write access\n"
                                       "========= \n"
                                       "========= RACECHECK SUMMARY: 1 hazard displayed (1 error, "
                                       "0 warnings)\n"),
                                60)
                .errors,
            1);

  // Everything else is the judge's: the tool that never checked, the test failing under it with
  // no error it names (the program's own 86 included), a signal, a timeout, no start.
  for (const ProcessResult& r :
       {exited(0, "ok\n"), exited(3, "========= ERROR SUMMARY: 0 errors\n"),
        exited(86, "the program's own 86\n========= ERROR SUMMARY: 0 errors\n")})
    EXPECT_EQ(judge_sanitizer_run("memcheck", r, 60).outcome, SanitizerOutcome::inconclusive)
        << r.output;
  ProcessResult killed = exited(-1, "");
  killed.signal = 9;
  EXPECT_EQ(judge_sanitizer_run("racecheck", killed, 60).outcome, SanitizerOutcome::inconclusive);
  ProcessResult slow = exited(-1, "");
  slow.timed_out = true;
  const SanitizerRecord late = judge_sanitizer_run("racecheck", slow, 600);
  EXPECT_EQ(late.outcome, SanitizerOutcome::inconclusive);
  EXPECT_NE(late.detail.find("did not finish within 600 s"), std::string::npos) << late.detail;
  ProcessResult absent;
  absent.error = "execve: No such file or directory";
  EXPECT_NE(judge_sanitizer_run("memcheck", absent, 60).detail.find("could not start"),
            std::string::npos);
}

TEST(Sanitizer, RunsTheTestsOwnProgramOrItsShellCommand) {
  EXPECT_EQ(sanitizer_argv("/cuda/bin/compute-sanitizer", "racecheck", "./test.out --x 3"),
            (std::vector<std::string>{"/cuda/bin/compute-sanitizer", "--tool", "racecheck",
                                      "--error-exitcode", "86", "--check-exit-code", "no",
                                      "--target-processes", "all", "./test.out", "--x", "3"}));
  const std::vector<std::string> shell = sanitizer_argv("cs", "memcheck", "cd build && ./test.out");
  ASSERT_GE(shell.size(), 3u);
  EXPECT_EQ(std::vector<std::string>(shell.end() - 3, shell.end()),
            (std::vector<std::string>{"/bin/sh", "-c", "cd build && ./test.out"}));
}

TEST(Sanitizer, IsFoundBesideNvccInEitherToolkitLayoutOrWhereTheOptionSays) {
  testing::TempDir dir;
  unsetenv("KJUDGE_COMPUTE_SANITIZER");
  const fs::path nvcc = dir / "cuda/bin/nvcc";
  make_executable(nvcc, "#!/bin/sh\n");
  EXPECT_TRUE(locate_compute_sanitizer(nvcc.string()).empty());
  // NVIDIA's packages: the tool in its own folder (bin/ holds a link to it on most machines).
  make_executable(dir / "cuda/compute-sanitizer/compute-sanitizer", "#!/bin/sh\n");
  EXPECT_EQ(locate_compute_sanitizer(nvcc.string()),
            dir / "cuda/compute-sanitizer/compute-sanitizer");
  make_executable(dir / "cuda/bin/compute-sanitizer", "#!/bin/sh\n");
  EXPECT_EQ(locate_compute_sanitizer(nvcc.string()), dir / "cuda/bin/compute-sanitizer");
  EXPECT_EQ(locate_compute_sanitizer(nvcc.string(), kFake), kFake);
  EXPECT_TRUE(locate_compute_sanitizer(nvcc.string(), dir / "nowhere").empty());
  setenv("KJUDGE_COMPUTE_SANITIZER", kFake.c_str(), 1);
  EXPECT_EQ(locate_compute_sanitizer(nvcc.string()), kFake);
  unsetenv("KJUDGE_COMPUTE_SANITIZER");
}

TEST(Sanitizer, ToolsAreCheckedAndKeptInOneOrder) {
  EXPECT_EQ(parse_sanitizer_tools({"racecheck,memcheck", "memcheck"}),
            (std::vector<std::string>{"memcheck", "racecheck"}));
  EXPECT_TRUE(parse_sanitizer_tools({}).empty());
  EXPECT_THROW(parse_sanitizer_tools({"memchek"}), std::invalid_argument);
}

TEST(Sanitizer, TheDoctorFailsWithoutItOnlyWhenItIsAskedFor) {
  testing::TempDir dir;
  unsetenv("KJUDGE_COMPUTE_SANITIZER");
  MachineInfo m;
  m.nvcc_path = (dir / "cuda/bin/nvcc").string();
  make_executable(m.nvcc_path, "#!/bin/sh\n");
  EXPECT_EQ(sanitizer_check(m, {}, false).status, CheckStatus::warn);
  const EnvCheck missing = sanitizer_check(m, {}, true);
  EXPECT_EQ(missing.status, CheckStatus::fail);
  EXPECT_NE(missing.detail.find("--sanitize needs it"), std::string::npos) << missing.detail;
  EXPECT_FALSE(missing.advice.empty());
  const EnvCheck found = sanitizer_check(m, kFake, true);
  EXPECT_EQ(found.status, CheckStatus::ok) << found.detail;
  EXPECT_NE(found.detail.find("Version 2025.3"), std::string::npos) << found.detail;
  make_executable(dir / "broken", "#!/bin/sh\nexit 1\n");
  EXPECT_EQ(sanitizer_check(m, dir / "broken", true).status, CheckStatus::fail);
}

}  // namespace
}  // namespace kjudge
