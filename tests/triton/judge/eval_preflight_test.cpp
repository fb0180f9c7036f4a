// The check before the first operator (issue 38): a machine whose Python cannot run any
// operator is named once, with what to install, instead of a judge_error per operator.
#include "triton/judge/eval_preflight.h"

#include <gtest/gtest.h>

#include <filesystem>

#include "run/sandbox.h"
#include "test_util.h"
#include "triton/runner/python.h"

namespace kjudge::triton {
namespace {

namespace fs = std::filesystem;

const fs::path kRunner = fs::path(KJUDGE_SOURCE_DIR) / "python/kjudge_triton_runner.py";
const fs::path kFake = fs::path(KJUDGE_SOURCE_DIR) / "tests/fixtures/fake_triton_runner.py";

TritonRunner runner_with(const fs::path& script) {
  TritonRunner r;
  r.python = probe_python("/usr/bin/python3");
  r.script = script;
  r.step.sandbox = true;
  r.step.bwrap = locate_bwrap();
  r.step.memory_limit_bytes = 2ull << 30;
  r.timeout_s = 30;
  return r;
}

bool has_torch() { return testing::run_capture("/usr/bin/python3 -c 'import torch'").rc == 0; }

TEST(TritonPreflight, APythonWithoutTorchIsNamedWithWhatToInstall) {
  if (has_torch()) GTEST_SKIP() << "this machine's python3 has torch";
  if (locate_bwrap().empty()) GTEST_SKIP() << "no bwrap";
  testing::TempDir d;
  const std::string why = triton_preflight(runner_with(kRunner), d.path() / "work");
  EXPECT_NE(why.find("cannot import torch with /usr/bin/python3"), std::string::npos) << why;
  EXPECT_NE(why.find("--python"), std::string::npos) << why;
  EXPECT_FALSE(fs::exists(d.path() / "work")) << "the probe's workspace is removed";
}

TEST(TritonPreflight, ARunnerThatHasTorchTritonAndAGpuPasses) {
  if (locate_bwrap().empty()) GTEST_SKIP() << "no bwrap";
  testing::TempDir d;
  // The fake runner reports torch, triton and a GPU, as the real one does on the GPU machine.
  EXPECT_EQ(triton_preflight(runner_with(kFake), d.path() / "work"), "");
}

}  // namespace
}  // namespace kjudge::triton
