// The folder of scripts/install-libs: where kjudge finds it and what a step gets from it.
#include "run/extra_libs.h"

#include <gtest/gtest.h>
#include <stdlib.h>

#include <optional>
#include <string>

#include "test_util.h"

namespace kjudge {
namespace {

namespace fs = std::filesystem;

// Sets a variable for one test and puts back what was there.
class ScopedEnv {
 public:
  ScopedEnv(const char* name, const std::string& value) : name_(name) {
    if (const char* v = std::getenv(name)) was_ = v;
    setenv(name, value.c_str(), 1);
  }
  ~ScopedEnv() {
    if (was_)
      setenv(name_, was_->c_str(), 1);
    else
      unsetenv(name_);
  }

 private:
  const char* name_;
  std::optional<std::string> was_;
};

TEST(ExtraLibs, KjudgeLibsNamesTheFolderWithItsIncludeLibAndStamp) {
  testing::TempDir dir;
  testing::write_text(dir / "include/cudnn_frontend.h", "// header\n");
  fs::create_directories(dir / "lib");
  testing::write_text(dir / "kjudge-libs.txt", "nvidia-cudnn-frontend 1.32.0\n");
  ScopedEnv env("KJUDGE_LIBS", dir.path().string());
  const std::optional<ExtraLibs> libs = find_extra_libs();
  ASSERT_TRUE(libs);
  EXPECT_EQ(libs->root, fs::canonical(dir.path()));
  EXPECT_EQ(libs->include_dir, libs->root / "include");
  EXPECT_EQ(libs->lib_dir, libs->root / "lib");
  EXPECT_EQ(libs->stamp, "nvidia-cudnn-frontend 1.32.0\n");
  const std::string inc = (libs->root / "include").string(), lib = (libs->root / "lib").string();
  EXPECT_EQ(extra_libs_env(*libs), (std::vector<std::string>{"CPATH=" + inc, "LIBRARY_PATH=" + lib,
                                                             "LD_LIBRARY_PATH=" + lib}));
}

TEST(ExtraLibs, WithoutTheSandboxTheJudgesOwnPathsFollowTheFolders) {
  testing::TempDir dir;
  fs::create_directories(dir / "include");
  ScopedEnv env("KJUDGE_LIBS", dir.path().string());
  ScopedEnv cpath("CPATH", "/mine/include");
  const std::optional<ExtraLibs> libs = find_extra_libs();
  ASSERT_TRUE(libs);
  // No lib/ here: only CPATH, and the judge's own value kept after the folder's.
  EXPECT_EQ(
      extra_libs_env(*libs, true),
      std::vector<std::string>{"CPATH=" + (libs->root / "include").string() + ":/mine/include"});
  EXPECT_EQ(extra_libs_env(*libs, false),
            std::vector<std::string>{"CPATH=" + (libs->root / "include").string()});
}

TEST(ExtraLibs, NoneOrAMissingFolderMeansNoFolder) {
  {
    ScopedEnv env("KJUDGE_LIBS", "none");
    EXPECT_FALSE(find_extra_libs());
  }
  ScopedEnv env("KJUDGE_LIBS", "/nonexistent/kjudge-libs");
  EXPECT_FALSE(find_extra_libs());
}

}  // namespace
}  // namespace kjudge
