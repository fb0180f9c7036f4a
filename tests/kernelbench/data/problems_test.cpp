// The KernelBench data folder: the real one (../shared/datasets/kernelbench, read in place:
// levels 1-4, 100 + 100 + 50 + 20 problems) and broken copies of it, each refused naming what is
// wrong.
#include "kernelbench/data/problems.h"

#include <gtest/gtest.h>

#include <set>

#include "core/input_error.h"
#include "test_util.h"

namespace kjudge::kernelbench {
namespace {

namespace fs = std::filesystem;
using kjudge::testing::TempDir;
using kjudge::testing::write_text;

const fs::path kData = fs::path(KJUDGE_SOURCE_DIR "/../shared/datasets/kernelbench");

#define SKIP_WITHOUT_DATA()                                                            \
  do {                                                                                 \
    if (!fs::is_directory(kData)) GTEST_SKIP() << "shared dataset missing: " << kData; \
  } while (0)

const char* kProblem =
    "import torch\nclass Model(torch.nn.Module):\n    def forward(self, x):\n        return x\n"
    "def get_inputs():\n    return [torch.rand(4)]\ndef get_init_inputs():\n    return []\n";

std::string message_of(const std::function<void()>& f) {
  try {
    f();
  } catch (const InputError& e) {
    return e.what();
  }
  return "";
}

TEST(KernelBenchData, TheRealFolderHasItsTwoHundredSeventyProblems) {
  SKIP_WITHOUT_DATA();
  const Dataset d = load_kernelbench(kData);
  EXPECT_EQ(d.levels, (std::vector<int>{1, 2, 3, 4}));
  std::map<int, int> per;
  std::set<std::string> keys;
  for (const Problem& p : d.problems) {
    ++per[p.level];
    EXPECT_TRUE(keys.insert(p.key()).second) << p.key();
    EXPECT_NE(p.code.find("get_init_inputs"), std::string::npos) << p.file;
    EXPECT_EQ(p.file, std::to_string(p.id) + "_" + p.name + ".py");
  }
  EXPECT_EQ(per, (std::map<int, int>{{1, 100}, {2, 100}, {3, 50}, {4, 20}}));
  // Ids in order within a level, as KernelBench numbers them (1..N, no gap).
  for (int level : d.levels) {
    int expect = 1;
    for (const Problem& p : d.problems) {
      if (p.level == level) {
        EXPECT_EQ(p.id, expect++) << p.file;
      }
    }
  }
  const Problem* relu = d.find(1, 19);
  ASSERT_NE(relu, nullptr);
  EXPECT_EQ(relu->file, "19_ReLU.py");
  EXPECT_EQ(relu->name, "ReLU");
  EXPECT_EQ(relu->key(), "L1/19");
  EXPECT_FALSE(relu->needs_hf());
  EXPECT_EQ(d.find_file(1, "19_ReLU"), relu);
  EXPECT_EQ(d.find_file(1, "19_ReLU.py"), relu);
  EXPECT_EQ(d.find(1, 101), nullptr);
  EXPECT_TRUE(d.find(4, 16)->needs_hf());
}

TEST(KernelBenchData, OneLevelAloneIsReadWhenAsked) {
  SKIP_WITHOUT_DATA();
  const Dataset d = load_kernelbench(kData, 3);
  EXPECT_EQ(d.levels, std::vector<int>{3});
  EXPECT_EQ(d.problems.size(), 50u);
  EXPECT_NE(message_of([] { load_kernelbench(kData, 7); }).find("no level7/ folder"),
            std::string::npos);
}

TEST(KernelBenchData, TheRepositoryRootIsFoundThroughItsKernelBenchFolder) {
  TempDir dir;
  write_text(dir / "KernelBench/level1/1_Identity.py", kProblem);
  write_text(dir / "KernelBench/level1/README.txt", "not a problem");
  const Dataset d = load_kernelbench(dir.path());
  ASSERT_EQ(d.problems.size(), 1u);
  EXPECT_EQ(d.problems[0].name, "Identity");
}

TEST(KernelBenchData, ABadFolderOrFileIsRefusedNamingIt) {
  TempDir dir;
  EXPECT_NE(message_of([&] { load_kernelbench(dir / "nope"); }).find("not a folder"),
            std::string::npos);
  EXPECT_NE(message_of([&] { load_kernelbench(dir.path()); }).find("holds no level1/"),
            std::string::npos);
  write_text(dir / "level1/1_A.py", kProblem);
  write_text(dir / "level1/extra.py", kProblem);
  std::string m = message_of([&] { load_kernelbench(dir.path()); });
  EXPECT_NE(m.find("extra.py"), std::string::npos) << m;
  EXPECT_NE(m.find("<number>_<name>.py"), std::string::npos) << m;
  fs::remove(dir / "level1/extra.py");
  write_text(dir / "level1/01_B.py", kProblem);
  m = message_of([&] { load_kernelbench(dir.path()); });
  EXPECT_NE(m.find("problem 1 of level 1 is also"), std::string::npos) << m;
  fs::remove(dir / "level1/01_B.py");
  // What a problem must define, read in its code: a comment or a string does not count.
  write_text(dir / "level1/2_C.py",
             "# class Model\ns = 'def get_inputs():'\ndef get_init_inputs():\n    return []\n");
  m = message_of([&] { load_kernelbench(dir.path()); });
  EXPECT_NE(m.find("2_C.py"), std::string::npos) << m;
  EXPECT_NE(m.find("class Model"), std::string::npos) << m;
  fs::remove(dir / "level1/2_C.py");
  fs::create_directories(dir / "level2");
  m = message_of([&] { load_kernelbench(dir.path()); });
  EXPECT_NE(m.find("holds no problem"), std::string::npos) << m;
  fs::remove(dir / "level2");
  // A link found by walking the folder is not followed (it could point anywhere).
  write_text(dir / "elsewhere.py", kProblem);
  fs::create_symlink(dir / "elsewhere.py", dir / "level1/3_Link.py");
  m = message_of([&] { load_kernelbench(dir.path()); });
  EXPECT_NE(m.find("3_Link.py"), std::string::npos) << m;
}

TEST(KernelBenchData, ProblemReferencesAreReadInEveryWayKernelBenchWritesThem) {
  auto id = [](const std::string& t) {
    auto r = parse_problem_ref(t);
    return r ? std::to_string(r->level) + "/" + std::to_string(r->id) + "/" + r->file : "-";
  };
  EXPECT_EQ(id("L1/19"), "1/19/");
  EXPECT_EQ(id("level2/7"), "2/7/");
  EXPECT_EQ(id("3/1"), "3/1/");
  EXPECT_EQ(id("level1/19_ReLU.py"), "1/0/19_ReLU.py");
  EXPECT_EQ(id("L1/19_ReLU"), "1/0/19_ReLU");
  EXPECT_EQ(id("19"), "-");
  EXPECT_EQ(id("L0/1"), "-");
  EXPECT_EQ(id("L1/0"), "-");
  EXPECT_EQ(id("L1/x"), "-");
}

}  // namespace
}  // namespace kjudge::kernelbench
