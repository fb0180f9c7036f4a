// run_cli is the one place errors are caught (issue 33): a command's Error ends kjudge with its
// own exit code and `kjudge: error: <message>` on stderr, an InputError with usage.
#include "cli/app.h"

#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "core/exit_codes.h"
#include "test_util.h"

namespace kjudge {
namespace {

struct Ran {
  int rc;
  std::string err;
};

Ran run(std::vector<std::string> args) {
  args.insert(args.begin(), "kjudge");
  std::vector<char*> argv;
  for (auto& a : args) argv.push_back(a.data());
  ::testing::internal::CaptureStderr();
  const int rc = run_cli(static_cast<int>(argv.size()), argv.data());
  return {rc, ::testing::internal::GetCapturedStderr()};
}

TEST(CliErrors, ACommandErrorEndsWithItsCodeAndOneMessage) {
  testing::TempDir dir;
  const Ran r = run({"task", "new", "bad name!", "--dir", dir.path().string()});
  EXPECT_EQ(r.rc, exit_code::usage) << r.err;
  EXPECT_EQ(r.err,
            "kjudge: error: 'bad name!' is not a usable task name (letters, digits, _ . -)\n");
}

TEST(CliErrors, AnInputErrorNamesTheFileAndIsUsage) {
  testing::TempDir dir;
  const Ran r = run({"validate", (dir.path() / "absent").string(), "-q"});
  EXPECT_EQ(r.rc, exit_code::usage) << r.err;
  EXPECT_EQ(r.err.rfind("kjudge: error: ", 0), 0u) << r.err;
  EXPECT_NE(r.err.find("absent"), std::string::npos) << r.err;
}

TEST(CliErrors, AnOptionErrorKeepsItsCode) {
  const std::string pack = std::string(KJUDGE_SOURCE_DIR) + "/examples/pack";
  testing::TempDir dir;
  const Ran r = run({"validate", pack, "--skip-env-check", "--sandbox", "none", "--memory-limit",
                     "lots", "--out", (dir.path() / "run").string(), "-q"});
  EXPECT_EQ(r.rc, exit_code::usage) << r.err;
  EXPECT_NE(r.err.find("kjudge: error: --memory-limit 'lots' is not a size"), std::string::npos)
      << r.err;
}

// --version names the commit the binary was built from (issue 38), as git names it.
TEST(CliVersion, NamesTheCommitOfTheBuild) {
  ::testing::internal::CaptureStdout();
  std::vector<std::string> args = {"kjudge", "--version"};
  std::vector<char*> argv;
  for (auto& a : args) argv.push_back(a.data());
  EXPECT_EQ(run_cli(2, argv.data()), 0);
  const std::string out = ::testing::internal::GetCapturedStdout();
  EXPECT_EQ(out.rfind(std::string("kjudge ") + KJUDGE_VERSION + " (commit ", 0), 0u) << out;
  const auto git = testing::run_capture("git -C " + std::string(KJUDGE_SOURCE_DIR) +
                                        " rev-parse --short=12 HEAD 2>/dev/null");
  if (git.rc != 0) GTEST_SKIP() << "not a git checkout: " << out;
  const std::string commit = git.out.substr(0, git.out.find('\n'));
  EXPECT_NE(out.find("(commit " + commit), std::string::npos) << out << " vs " << commit;
}

}  // namespace
}  // namespace kjudge
