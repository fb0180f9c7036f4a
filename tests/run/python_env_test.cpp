// Where cuda_python problems run: the environment is found where scripts/install-python-env puts
// it (or where KJUDGE_PYTHON_ENV says), and everything its interpreter needs outside /usr is
// named, so the sandbox can bind it.
#include "run/python_env.h"

#include <gtest/gtest.h>
#include <stdlib.h>

#include "test_util.h"

namespace kjudge {
namespace {

namespace fs = std::filesystem;

struct EnvVar {
  EnvVar(const char* name, const std::string& value) : name_(name) {
    if (const char* v = std::getenv(name)) old_ = v;
    setenv(name, value.c_str(), 1);
  }
  ~EnvVar() { old_ ? setenv(name_, old_->c_str(), 1) : unsetenv(name_); }
  const char* name_;
  std::optional<std::string> old_;
};

TEST(PythonEnv, AVenvNamesTheInterpreterItWasMadeFrom) {
  testing::TempDir dir;
  const fs::path venv = dir / "env";
  ASSERT_EQ(std::system(("python3 -m venv --without-pip " + venv.string()).c_str()), 0);
  testing::write_text(venv / "kjudge-python.txt", "python 3.11.7\ncupy-cuda13x 14.2.0\n");
  const auto env = read_python_env(venv);
  ASSERT_TRUE(env);
  EXPECT_EQ(env->root, fs::canonical(venv));
  EXPECT_EQ(env->bin_dir, fs::canonical(venv) / "bin");
  EXPECT_NE(env->stamp.find("cupy-cuda13x 14.2.0"), std::string::npos);
  // The interpreter bin/python leads to: outside /usr it must be named; under /usr it is
  // always there.
  const fs::path real = fs::canonical(venv / "bin/python");
  const bool under_usr = real.string().rfind("/usr/", 0) == 0;
  if (under_usr) {
    EXPECT_TRUE(env->base_dirs.empty());
  } else {
    ASSERT_FALSE(env->base_dirs.empty());
    bool covered = false;
    for (const fs::path& b : env->base_dirs)
      covered |= real.string().rfind(b.string() + "/", 0) == 0;
    EXPECT_TRUE(covered) << real;
  }
  for (const fs::path& b : env->base_dirs) EXPECT_NE(b.string().rfind("/usr", 0), 0u) << b;
}

TEST(PythonEnv, TheVariableNamesItOrTurnsItOff) {
  testing::TempDir dir;
  const fs::path venv = dir / "env";
  ASSERT_EQ(std::system(("python3 -m venv --without-pip " + venv.string()).c_str()), 0);
  {
    EnvVar v("KJUDGE_PYTHON_ENV", venv.string());
    const auto env = find_python_env();
    ASSERT_TRUE(env);
    EXPECT_EQ(env->root, fs::canonical(venv));
  }
  {
    EnvVar v("KJUDGE_PYTHON_ENV", "none");
    EXPECT_FALSE(find_python_env());
  }
  {
    EnvVar v("KJUDGE_PYTHON_ENV", (dir / "absent").string());
    EXPECT_FALSE(find_python_env()) << "a named folder that is not an environment is none";
  }
}

TEST(PythonEnv, AFolderWithoutAnInterpreterIsNone) {
  testing::TempDir dir;
  fs::create_directories(dir / "env/bin");
  EXPECT_FALSE(read_python_env(dir / "env"));
  testing::write_text(dir / "env/bin/python", "#!/bin/sh\n");
  EXPECT_FALSE(read_python_env(dir / "env")) << "not executable";
  fs::permissions(dir / "env/bin/python", fs::perms::owner_exec, fs::perm_options::add);
  EXPECT_TRUE(read_python_env(dir / "env"));
}

}  // namespace
}  // namespace kjudge
