// What a step sees of the judge's machine: here, the folder of scripts/install-libs.
#include "eval/step_runner.h"

#include <gtest/gtest.h>
#include <stdlib.h>

#include "run/sandbox.h"
#include "test_util.h"

namespace kjudge {
namespace {

namespace fs = std::filesystem;

class StepRunnerLibs : public ::testing::Test {
 protected:
  void SetUp() override {
    if (const char* v = std::getenv("KJUDGE_LIBS")) was_ = v;
    testing::write_text(libs_ / "include/kjudge_probe.h", "#define KJUDGE_PROBE 42\n");
    fs::create_directories(libs_ / "lib");
    setenv("KJUDGE_LIBS", libs_.path().c_str(), 1);
    fs::create_directories(work_.path());
  }
  void TearDown() override {
    if (was_)
      setenv("KJUDGE_LIBS", was_->c_str(), 1);
    else
      unsetenv("KJUDGE_LIBS");
  }
  testing::TempDir libs_, work_;
  std::optional<std::string> was_;
};

TEST_F(StepRunnerLibs, AStepSeesTheFolderOnItsPaths) {
  StepSettings s;  // no sandbox: the judge's environment, the folder first
  MachineInfo m;
  ProcessResult r =
      run_step(s, m, "echo \"$CPATH|$LIBRARY_PATH|$LD_LIBRARY_PATH\"", work_.path(), 10);
  ASSERT_TRUE(r.ok()) << r.output;
  const std::string root = fs::canonical(libs_.path()).string();
  EXPECT_EQ(r.output.rfind(root + "/include", 0), 0u) << r.output;
  EXPECT_NE(r.output.find("|" + root + "/lib"), std::string::npos) << r.output;
}

TEST_F(StepRunnerLibs, TheSandboxBindsTheFolderReadOnly) {
  StepSettings s;
  s.sandbox = true;
  s.bwrap = locate_bwrap();
  SandboxPolicy probe;
  probe.bwrap = s.bwrap;
  std::string why;
  if (!sandbox_available(probe, &why)) GTEST_SKIP() << "bubblewrap unusable here: " << why;
  MachineInfo m;
  ProcessResult r = run_step(s, m,
                             "cat \"$CPATH/kjudge_probe.h\" && "
                             "(touch \"$CPATH/written\" 2>/dev/null && echo WRITABLE || true)",
                             work_.path(), 20);
  ASSERT_TRUE(r.ok()) << r.output;
  EXPECT_NE(r.output.find("#define KJUDGE_PROBE 42"), std::string::npos) << r.output;
  EXPECT_EQ(r.output.find("WRITABLE"), std::string::npos) << r.output;
  EXPECT_FALSE(fs::exists(libs_ / "include/written"));
}

}  // namespace
}  // namespace kjudge
