// The command line before CLI11 reads it (issue 38): a misspelt command is named with the
// nearest real one, and `--config` works after the subcommand as before it.
#include "cli/command_words.h"

#include <gtest/gtest.h>

#include <fstream>
#include <string>
#include <vector>

#include "cli/app.h"
#include "core/exit_codes.h"
#include "test_util.h"

namespace kjudge {
namespace {

struct Ran {
  int rc;
  std::string out, err;
};

Ran run(std::vector<std::string> args) {
  args.insert(args.begin(), "kjudge");
  std::vector<char*> argv;
  for (auto& a : args) argv.push_back(a.data());
  ::testing::internal::CaptureStdout();
  ::testing::internal::CaptureStderr();
  const int rc = run_cli(static_cast<int>(argv.size()), argv.data());
  std::string out = ::testing::internal::GetCapturedStdout();
  return {rc, out, ::testing::internal::GetCapturedStderr()};
}

const std::string kPack = std::string(KJUDGE_SOURCE_DIR) + "/examples/pack";

TEST(CommandWords, AMisspeltCommandIsNamedWithTheNearestOne) {
  const Ran r = run({"evalute", "--problems", kPack});
  EXPECT_EQ(r.rc, exit_code::usage);
  EXPECT_EQ(r.err,
            "kjudge: error: 'evalute' is not a command of kjudge; did you mean 'evaluate'? "
            "(`kjudge --help` lists them)\n");
}

TEST(CommandWords, AMisspeltSubcommandIsNamedWithinItsCommand) {
  const Ran r = run({"problems", "lsit", kPack});
  EXPECT_EQ(r.rc, exit_code::usage);
  EXPECT_NE(r.err.find("'lsit' is not a command of kjudge problems; did you mean 'list'?"),
            std::string::npos)
      << r.err;
}

TEST(CommandWords, AWordFarFromEveryCommandListsThem) {
  const Ran r = run({"zzzzzz"});
  EXPECT_EQ(r.rc, exit_code::usage);
  EXPECT_NE(r.err.find("(commands: "), std::string::npos) << r.err;
  EXPECT_NE(r.err.find("evaluate"), std::string::npos) << r.err;
}

TEST(CommandWords, OptionValuesAndPositionalsAreNotTakenForCommands) {
  CLI::App app{"t", "kjudge"};
  std::string config;
  app.add_option("--config", config);
  auto* problems = app.add_subcommand("problems");
  auto* list = problems->add_subcommand("list");
  std::string pack;
  list->add_option("PACK", pack);
  // `evalute` is --config's value; `lsit` is list's PACK: neither is a command word.
  EXPECT_FALSE(unknown_command(app, {"kjudge", "--config", "evalute", "problems", "list", "lsit"}));
  EXPECT_TRUE(unknown_command(app, {"kjudge", "--config", "x.yaml", "problms", "list"}));
}

TEST(CommandWords, ConfigMovesToTheFrontAndNothingAfterTheDashesMoves) {
  std::vector<std::string> in = {"kjudge", "evaluate", "--config", "a.yaml",
                                 "-q",     "--",       "--config", "b.yaml"};
  std::vector<char*> argv;
  for (auto& a : in) argv.push_back(a.data());
  EXPECT_EQ(hoist_config(static_cast<int>(argv.size()), argv.data()),
            (std::vector<std::string>{"kjudge", "--config", "a.yaml", "evaluate", "-q", "--",
                                      "--config", "b.yaml"}));
}

TEST(CommandWords, ConfigAfterTheSubcommandSetsItsOptions) {
  testing::TempDir dir;
  const auto cfg = dir.path() / "c.yaml";
  std::ofstream(cfg) << "problems:\n  list:\n    json: true\n";
  const Ran before = run({"--config", cfg.string(), "problems", "list", kPack});
  const Ran after = run({"problems", "list", kPack, "--config", cfg.string()});
  EXPECT_EQ(after.rc, exit_code::ok) << after.err;
  EXPECT_EQ(after.out, before.out);
  EXPECT_EQ(after.out.rfind("[", 0), 0u) << after.out;  // the config's --json took effect
}

TEST(CommandWords, EditDistanceCountsASwapAsOneStep) {
  EXPECT_EQ(edit_distance("evalute", "evaluate"), 1u);
  EXPECT_EQ(edit_distance("valdiate", "validate"), 1u);
  EXPECT_EQ(edit_distance("", "run"), 3u);
  EXPECT_EQ(edit_distance("serve", "serve"), 0u);
}

}  // namespace
}  // namespace kjudge
