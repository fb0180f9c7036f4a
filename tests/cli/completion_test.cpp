// kjudge completion bash|zsh (issue 38): the scripts come from the command tree, and bash,
// running the script as a shell would on TAB, completes commands, subcommands and options.
#include <gtest/gtest.h>

#include <fstream>
#include <string>

#include "test_util.h"

namespace kjudge {
namespace {

const std::string kBin = KJUDGE_BINARY;

// What bash offers after `line` (the words typed so far; the last one is being completed).
std::string bash_completes(const std::filesystem::path& script, const std::string& line) {
  testing::TempDir d;
  const auto probe = d.path() / "probe.sh";
  std::ofstream(probe) << "source " << script << "\n"
                       << "COMP_WORDS=(" << line << ")\n"
                       << "[[ \"" << line << "\" == *' ' ]] && COMP_WORDS+=('')\n"
                       << "COMP_CWORD=$((${#COMP_WORDS[@]} - 1))\n"
                       << "_kjudge\n"
                       << "[ ${#COMPREPLY[@]} -gt 0 ] && printf '%s\\n' \"${COMPREPLY[@]}\"\n";
  return testing::run_capture("bash " + probe.string()).out;
}

TEST(Completion, BashCompletesCommandsSubcommandsAndOptions) {
  testing::TempDir d;
  const auto script = d.path() / "kjudge.bash";
  auto r = testing::run_capture(kBin + " completion bash > " + script.string());
  ASSERT_EQ(r.rc, 0) << r.out;
  EXPECT_EQ(bash_completes(script, "kjudge evalu"), "evaluate\n");
  EXPECT_EQ(bash_completes(script, "kjudge problems li"), "list\n");
  EXPECT_EQ(bash_completes(script, "kjudge users re"), "revoke\n");
  EXPECT_EQ(bash_completes(script, "kjudge evaluate --work"), "--workers\n--work-dir\n");
  // Options of another command are not offered, nor ComputeEval's hidden aliases.
  const std::string validate = bash_completes(script, "kjudge validate --");
  EXPECT_NE(validate.find("--build-only\n"), std::string::npos) << validate;
  EXPECT_EQ(validate.find("--solutions"), std::string::npos) << "evaluate's, not validate's";
  const std::string evaluate = bash_completes(script, "kjudge evaluate --");
  EXPECT_NE(evaluate.find("--solutions\n"), std::string::npos) << evaluate;
  EXPECT_EQ(evaluate.find("--solutions_datapack"), std::string::npos) << evaluate;
  EXPECT_EQ(bash_completes(script, "kjudge evaluate --n_w"), "");
  // A word past the commands is a file name.
  std::ofstream(d.path() / "pack-x.tar.gz") << "";
  EXPECT_EQ(bash_completes(script, "kjudge validate " + (d.path() / "pack-").string()),
            (d.path() / "pack-x.tar.gz").string() + "\n");
}

TEST(Completion, ZshScriptIsValidZshAndNamesEveryCommand) {
  testing::TempDir d;
  const auto script = d.path() / "_kjudge";
  auto r = testing::run_capture(kBin + " completion zsh > " + script.string());
  ASSERT_EQ(r.rc, 0) << r.out;
  std::ifstream in(script);
  const std::string text((std::istreambuf_iterator<char>(in)), {});
  EXPECT_EQ(text.rfind("#compdef kjudge\n", 0), 0u);
  for (const char* w : {"'evaluate:", "'leaderboards:", "' task run'", "'--workers:"})
    EXPECT_NE(text.find(w), std::string::npos) << w;
  if (testing::run_capture("command -v zsh").rc != 0) GTEST_SKIP() << "zsh not installed";
  auto syntax = testing::run_capture("zsh -n " + script.string());
  EXPECT_EQ(syntax.rc, 0) << syntax.out;
}

TEST(Completion, AnotherShellIsAUsageError) {
  auto r = testing::run_capture(kBin + " completion fish");
  EXPECT_EQ(r.rc, 2) << r.out;
}

}  // namespace
}  // namespace kjudge
