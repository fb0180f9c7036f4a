// The one atomic writer (issue 33): readers see the old file or the new one, a writer that gives
// up leaves nothing behind, and a link at the target is replaced, never written through.
#include "core/atomic_file.h"

#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

#include "test_util.h"

namespace kjudge {
namespace {

namespace fs = std::filesystem;

std::size_t entries(const fs::path& dir) {
  std::size_t n = 0;
  for ([[maybe_unused]] const auto& e : fs::directory_iterator(dir)) ++n;
  return n;
}

TEST(AtomicFile, ReplacesTheWholeFileAndLeavesNoTemporary) {
  testing::TempDir dir;
  const fs::path target = dir / "run.json";
  testing::write_text(target, "old and longer than the new text\n");
  write_file_atomically(target, "new\n");
  EXPECT_EQ(testing::read_text(target), "new\n");
  write_json_atomically(target, nlohmann::json{{"a", 1}});
  EXPECT_EQ(testing::read_text(target), "{\n  \"a\": 1\n}\n");
  EXPECT_EQ(entries(dir.path()), 1u);
}

TEST(AtomicFile, AWriterThatGivesUpLeavesTheOldFile) {
  testing::TempDir dir;
  const fs::path target = dir / "summary.json";
  testing::write_text(target, "old\n");
  {
    AtomicFile f(target);
    f.write("half of the new");
    EXPECT_TRUE(fs::exists(f.temp()));
    EXPECT_EQ(f.temp().parent_path(), target.parent_path()) << "renamed within one file system";
  }
  EXPECT_EQ(testing::read_text(target), "old\n");
  EXPECT_EQ(entries(dir.path()), 1u);
}

TEST(AtomicFile, ALinkAtTheTargetIsReplacedNotFollowed) {
  testing::TempDir dir;
  testing::write_text(dir / "elsewhere", "keep me\n");
  fs::create_symlink(dir / "elsewhere", dir / "results.jsonl");
  write_file_atomically(dir / "results.jsonl", "mine\n");
  EXPECT_FALSE(fs::is_symlink(dir / "results.jsonl"));
  EXPECT_EQ(testing::read_text(dir / "results.jsonl"), "mine\n");
  EXPECT_EQ(testing::read_text(dir / "elsewhere"), "keep me\n");
}

TEST(AtomicFile, AFailureNamesTheTarget) {
  testing::TempDir dir;
  const fs::path target = dir / "missing-folder" / "run.json";
  try {
    write_file_atomically(target, "x");
    FAIL() << "wrote into a folder that does not exist";
  } catch (const std::runtime_error& e) {
    EXPECT_NE(std::string(e.what()).find(target.string()), std::string::npos) << e.what();
  }
}

TEST(AtomicFile, TwoWritersOfOneFileUseTwoTemporaries) {
  testing::TempDir dir;
  AtomicFile a(dir / "cost-model.json");
  AtomicFile b(dir / "cost-model.json");
  EXPECT_NE(a.temp(), b.temp());
}

}  // namespace
}  // namespace kjudge
