// A folder of solution packs, as ComputeEval 2026.1 evaluates several models at once, and the
// names ComputeEval gives packs (core/solution_packs.h).
#include "core/solution_packs.h"

#include <gtest/gtest.h>

#include "test_util.h"

namespace kjudge {
namespace {

namespace fs = std::filesystem;

TEST(SolutionPacks, APackIsNamedAsComputeEvalNamesIt) {
  EXPECT_EQ(solutions_pack_name("runs/gpt-4.1-solutions.tar.gz"), "gpt-4.1");
  EXPECT_EQ(solutions_pack_name("claude-solutions.jsonl"), "claude");
  EXPECT_EQ(solutions_pack_name("mine.jsonl"), "mine");
  EXPECT_EQ(solutions_pack_name("/x/pack.tar.gz"), "pack");
  EXPECT_EQ(solutions_pack_name("-solutions.tar.gz"), "solutions") << "never empty";
  testing::TempDir d;
  fs::create_directories(d / "by-hand");
  EXPECT_EQ(solutions_pack_name(d / "by-hand"), "by-hand");
  EXPECT_EQ(solutions_pack_name((d / "by-hand").string() + "/"), "by-hand");
}

TEST(SolutionPacks, AFolderListsItsPacksByNameAndNothingElse) {
  testing::TempDir d;
  testing::write_text(d / "b-solutions.tar.gz", "x");
  testing::write_text(d / "a-solutions.jsonl", "x");
  testing::write_text(d / "notes.txt", "x");
  testing::write_text(d / "solutions.jsonl", "x");  // no name: not a pack of the folder
  fs::create_directories(d / "c-solutions.tar.gz.d");
  fs::create_directories(d / "d-solutions.jsonl");  // a folder, not a pack
  const auto packs = list_solution_packs(d.path());
  ASSERT_EQ(packs.size(), 2u);
  EXPECT_EQ(packs[0].name, "a");
  EXPECT_EQ(packs[0].path, d / "a-solutions.jsonl");
  EXPECT_EQ(packs[1].name, "b");
}

TEST(SolutionPacks, AFolderOfSolutionDirectoriesOrAFileHoldsNoPack) {
  EXPECT_TRUE(list_solution_packs(fs::path(KJUDGE_SOURCE_DIR) / "examples/solutions").empty());
  testing::TempDir d;
  testing::write_text(d / "x-solutions.tar.gz", "x");
  EXPECT_TRUE(list_solution_packs(d / "x-solutions.tar.gz").empty());
  EXPECT_TRUE(list_solution_packs(d / "missing").empty());
}

TEST(SolutionPacks, TwoPacksOfOneNameAreAnErrorNamingBoth) {
  testing::TempDir d;
  testing::write_text(d / "m-solutions.tar.gz", "x");
  testing::write_text(d / "m-solutions.jsonl", "x");
  const InputError e = testing::expect_input_error([&] { list_solution_packs(d.path()); });
  EXPECT_EQ(e.file(), d.path().string());
  EXPECT_NE(e.reason().find("m-solutions.tar.gz"), std::string::npos) << e.what();
  EXPECT_NE(e.reason().find("m-solutions.jsonl"), std::string::npos) << e.what();
}

TEST(SolutionPacks, APackWhoseNameCannotNameAFolderIsRefused) {
  for (const char* file : {"-solutions.tar.gz", "..-solutions.jsonl", ".-solutions.tar.gz"}) {
    testing::TempDir d;
    testing::write_text(d / file, "x");
    const InputError e = testing::expect_input_error([&] { list_solution_packs(d.path()); });
    EXPECT_EQ(e.file(), (d / file).string());
  }
}

}  // namespace
}  // namespace kjudge
