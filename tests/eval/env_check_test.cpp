#include "eval/env_check.h"

#include <gtest/gtest.h>

namespace kjudge {
namespace {

Problem make_problem(const std::string& type, const std::string& build, bool host_only) {
  Problem p;
  p.type = type;
  if (!build.empty()) p.build_command = build;
  p.host_only = host_only;
  return p;
}

TEST(EnvCheck, ProbeFlagsTakeLibrariesAndArchitectures) {
  auto f = probe_flags(
      "nvcc -I include -o test.out solution.cu test/*.cu -arch=native -lcublas "
      "-std=c++17 -gencode arch=compute_90,code=sm_90 --extended-lambda -lcudnn");
  std::vector<std::string> want = {"-arch=native",      "-lcublas",
                                   "-std=c++17",        "-gencode arch=compute_90,code=sm_90",
                                   "--extended-lambda", "-lcudnn"};
  EXPECT_EQ(f, want);
  EXPECT_TRUE(probe_flags("echo No build step needed for Python").empty());
}

TEST(EnvCheck, MissingNvccFailsOnlyWhenSomethingMustBeBuilt) {
  MachineInfo m;  // nothing found
  const Problem build = make_problem("cuda_cpp", "nvcc -o test.out solution.cu", true);
  EnvCheckOptions o;
  o.probe_build = false;
  auto checks = check_environment(m, {&build}, o);
  EXPECT_TRUE(any_failed(checks));
  EXPECT_NE(format_checks(checks).find("fix:"), std::string::npos);
  // Nothing to build: nvcc is no failure (the Python environment's own check decides).
  const Problem py = make_problem("cuda_python", "echo none", true);
  for (const EnvCheck& c : check_environment(m, {&py}, o)) {
    if (c.name == "nvcc") {
      EXPECT_NE(c.status, CheckStatus::fail) << c.detail;
    }
  }
}

TEST(EnvCheck, NoGpuFailsWhenEveryProblemNeedsOneAndWarnsOtherwise) {
  MachineInfo m;
  m.nvcc_path = "/usr/local/cuda/bin/nvcc";
  m.cuda_version = "13.0";
  const Problem gpu = make_problem("cuda_cpp", "", false);
  const Problem host = make_problem("cuda_cpp", "", true);
  EnvCheckOptions o;
  o.probe_build = false;
  const auto none = check_environment(m, {&gpu}, o);
  EXPECT_TRUE(any_failed(none));
  // The way on without a GPU is named where the check fails (issue 38).
  EXPECT_NE(format_checks(none).find("or pass --build-only"), std::string::npos)
      << format_checks(none);
  auto mixed = check_environment(m, {&gpu, &host}, o);
  EXPECT_FALSE(any_failed(mixed));
  EXPECT_NE(format_checks(mixed).find("1 problems need one and will be skipped"),
            std::string::npos);
}

}  // namespace
}  // namespace kjudge
