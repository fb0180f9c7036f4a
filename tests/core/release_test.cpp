// ComputeEval release names resolved from a datasets folder.
#include "core/release.h"

#include <gtest/gtest.h>

#include "core/input_error.h"
#include "test_util.h"

namespace kjudge {
namespace {

namespace fs = std::filesystem;

TEST(Release, FoundInTheFolderOrItsComputeEvalSubfolder) {
  testing::TempDir dir;
  testing::write_text(dir / "compute-eval/2026-1-problems.tar.gz", "x");
  testing::write_text(dir / "2025-1-problems.tar.gz", "x");
  EXPECT_EQ(resolve_release("2026-1", dir.path().string()),
            dir / "compute-eval/2026-1-problems.tar.gz");
  EXPECT_EQ(resolve_release("2025-1", dir.path().string()), dir / "2025-1-problems.tar.gz");
}

TEST(Release, AMissingOneNamesWhereItLookedAndWhatIsThere) {
  testing::TempDir dir;
  testing::write_text(dir / "compute-eval/2025-3-problems.tar.gz", "x");
  try {
    resolve_release("2024-9", dir.path().string());
    FAIL() << "no error";
  } catch (const InputError& e) {
    const std::string what = e.what();
    EXPECT_NE(what.find("--release"), std::string::npos) << what;
    EXPECT_NE(what.find("2024-9-problems.tar.gz"), std::string::npos) << what;
    EXPECT_NE(what.find((dir / "compute-eval").string()), std::string::npos) << what;
    EXPECT_NE(what.find("releases there: 2025-3"), std::string::npos) << what;
  }
}

TEST(Release, ANameIsNeverAPath) {
  testing::TempDir dir;
  testing::write_text(dir / "x-problems.tar.gz", "x");
  for (const char* bad : {"../2026-1", "2026-1/../../etc", "/abs", "", "x"})
    EXPECT_THROW(resolve_release(bad, dir.path().string()), InputError) << bad;
}

}  // namespace
}  // namespace kjudge
