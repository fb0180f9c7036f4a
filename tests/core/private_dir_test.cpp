// A folder of the judge's own under a shared parent: a fresh name each time, closed to other
// users, removed with its contents, and a clear error where none can be made. Two `kjudge serve`
// instances each built their submission 1 in /tmp/kjudge-serve-1 at once before (a compile
// error charged to one of them).
#include "core/private_dir.h"

#include <gtest/gtest.h>
#include <sys/stat.h>

#include "core/error.h"
#include "test_util.h"

namespace kjudge {
namespace {

namespace fs = std::filesystem;

TEST(PrivateDir, EachFolderIsNewAndClosedToOthers) {
  testing::TempDir parent;
  const fs::path a = make_private_dir(parent.path(), "kjudge-serve-task-");
  const fs::path b = make_private_dir(parent.path(), "kjudge-serve-task-");
  EXPECT_NE(a, b);
  EXPECT_EQ(a.parent_path(), parent.path());
  EXPECT_EQ(a.filename().string().rfind("kjudge-serve-task-", 0), 0u) << a;
  struct stat st {};
  ASSERT_EQ(::lstat(a.c_str(), &st), 0);
  EXPECT_TRUE(S_ISDIR(st.st_mode));
  EXPECT_EQ(st.st_mode & 0777, 0700u);
}

TEST(PrivateDir, GoesWithItsContents) {
  testing::TempDir parent;
  fs::path kept;
  {
    PrivateDir d = PrivateDir::make(parent.path(), "bench-");
    kept = d.path();
    fs::create_directories(kept / "task" / "deep");
    testing::write_text(kept / "task" / "deep" / "f", "x");
    PrivateDir moved = std::move(d);
    EXPECT_TRUE(d.path().empty());
    EXPECT_TRUE(fs::exists(kept)) << "a moved-from folder is not removed";
  }
  EXPECT_FALSE(fs::exists(kept));
}

TEST(PrivateDir, AnUnusableParentIsNamed) {
  testing::TempDir parent;
  const fs::path missing = parent / "no" / "such";
  try {
    make_private_dir(missing, "p-");
    FAIL() << "made a folder under a missing parent";
  } catch (const Error& e) {
    EXPECT_EQ(e.code(), exit_code::environment);
    EXPECT_NE(std::string(e.what()).find(missing.string()), std::string::npos) << e.what();
  }
  EXPECT_TRUE(PrivateDir::try_make(missing, "p-").path().empty());
}

}  // namespace
}  // namespace kjudge
