// Reading solutions: the JSON-lines format in KernelBench's field names and kjudge's, and
// KernelBench's own run folder (runs/NAME/level_L_problem_P_sample_S_kernel.py); every error
// names the file, the line and the field.
#include "kernelbench/solutions/solutions.h"

#include <gtest/gtest.h>

#include "core/input_error.h"
#include "test_util.h"

namespace kjudge::kernelbench {
namespace {

namespace fs = std::filesystem;
using kjudge::testing::TempDir;
using kjudge::testing::write_text;

const char* kProblem =
    "import torch\nclass Model(torch.nn.Module):\n    def __init__(self):\n"
    "        super(Model, self).__init__()\n    def forward(self, x):\n        return x\n"
    "def get_inputs():\n    return [torch.rand(4)]\ndef get_init_inputs():\n    return []\n";

struct Fixture {
  TempDir dir;
  Dataset d;
  Fixture() {
    write_text(dir / "data/level1/19_ReLU.py", kProblem);
    write_text(dir / "data/level1/20_LeakyReLU.py", kProblem);
    write_text(dir / "data/level2/1_Conv.py", kProblem);
    d = load_kernelbench(dir / "data");
  }
};

std::string message_of(const std::function<void()>& f) {
  try {
    f();
  } catch (const InputError& e) {
    return e.what();
  }
  return "";
}

TEST(KernelBenchSolutions, JsonLinesTakeKernelBenchsNamesAndKjudgesProblemKeys) {
  Fixture f;
  write_text(f.dir / "s.jsonl",
             "{\"level\": 1, \"problem_id\": 19, \"sample\": 0, \"code\": \"A\"}\n"
             "\n"
             "{\"problem\": \"L1/19\", \"code\": \"B\"}\n"
             "{\"problem\": \"level1/20_LeakyReLU.py\", \"sample_id\": 4, \"code\": \"\"}\n"
             "{\"level\": 2, \"problem\": \"1_Conv.py\", \"code\": \"D\", \"extra\": 1}\n"
             "{\"level\": 2, \"problem\": 1, \"code\": \"E\"}\n");
  const std::vector<Solution> s = read_solutions(f.dir / "s.jsonl", f.d);
  ASSERT_EQ(s.size(), 5u);
  EXPECT_EQ(s[0].key(), "L1/19#0");
  EXPECT_EQ(s[1].key(), "L1/19#1");  // the next free sample
  EXPECT_EQ(s[1].code, "B");
  EXPECT_EQ(s[2].key(), "L1/20#4");
  EXPECT_EQ(s[2].code, "");  // judged, and fails
  EXPECT_EQ(s[3].key(), "L2/1#0");
  EXPECT_EQ(s[4].key(), "L2/1#1");
  EXPECT_EQ(s[0].origin, (f.dir / "s.jsonl").string() + ":1");
  // --level 2: the level-1 lines are skipped unread.
  EXPECT_EQ(read_solutions(f.dir / "s.jsonl", f.d, 2).size(), 2u);
}

TEST(KernelBenchSolutions, EveryBadLineIsRefusedNamingItsLineAndField) {
  Fixture f;
  auto bad = [&](const std::string& line) {
    write_text(f.dir / "b.jsonl", "{\"problem\": \"L1/19\", \"code\": \"ok\"}\n" + line + "\n");
    return message_of([&] { read_solutions(f.dir / "b.jsonl", f.d); });
  };
  EXPECT_NE(bad("not json").find(":2: not JSON"), std::string::npos) << bad("not json");
  EXPECT_NE(bad("[1]").find("expected a JSON object"), std::string::npos);
  EXPECT_NE(bad("{\"code\": \"x\"}").find("field 'problem': missing"), std::string::npos)
      << bad("{\"code\": \"x\"}");
  EXPECT_NE(bad("{\"problem\": \"L1/99\", \"code\": \"x\"}").find("no problem 'L1/99'"),
            std::string::npos);
  EXPECT_NE(bad("{\"problem_id\": 19, \"code\": \"x\"}").find("field 'level': missing"),
            std::string::npos);
  EXPECT_NE(bad("{\"level\": 1, \"problem_id\": 77, \"code\": \"x\"}").find("no problem 77"),
            std::string::npos);
  EXPECT_NE(bad("{\"problem\": \"19_ReLU.py\", \"code\": \"x\"}").find("names no level"),
            std::string::npos);
  EXPECT_NE(bad("{\"level\": 2, \"problem\": \"L1/19\", \"code\": \"x\"}").find("says level 1"),
            std::string::npos);
  EXPECT_NE(bad("{\"problem\": \"L1/19\"}").find("field 'code': missing"), std::string::npos);
  EXPECT_NE(bad("{\"problem\": \"L1/19\", \"code\": 3}").find("field 'code': not a string"),
            std::string::npos);
  EXPECT_NE(bad("{\"problem\": \"L1/19\", \"sample\": -1, \"code\": \"x\"}").find("sample"),
            std::string::npos);
  EXPECT_NE(bad("{\"problem\": \"L1/19\", \"sample\": 0, \"code\": \"x\"}").find("given twice"),
            std::string::npos);
  EXPECT_NE(bad("{\"level\": \"1\", \"problem_id\": 19, \"code\": \"x\"}").find("level"),
            std::string::npos);
}

TEST(KernelBenchSolutions, KernelBenchsRunFolderIsReadAsItsScriptsWriteIt) {
  Fixture f;
  const fs::path run = f.dir / "runs/test_run";
  write_text(run / kernel_file_name(1, 19, 0), "K0");
  write_text(run / kernel_file_name(1, 19, 1), "K1");
  write_text(run / kernel_file_name(2, 1, 0), "K2");
  write_text(run / "level_1_problem_19_sample_0_prompt.txt", "a prompt");
  write_text(run / "eval_results.json", "{}");
  write_text(run / "generation_config.yaml", "x: 1");
  std::vector<Solution> s = read_solutions(run, f.d);
  ASSERT_EQ(s.size(), 3u);
  EXPECT_EQ(kernel_file_name(1, 19, 0), "level_1_problem_19_sample_0_kernel.py");
  EXPECT_EQ(s[0].key(), "L1/19#0");
  EXPECT_EQ(s[0].code, "K0");
  EXPECT_EQ(s[1].key(), "L1/19#1");
  EXPECT_EQ(s[2].key(), "L2/1#0");
  EXPECT_EQ(read_solutions(run, f.d, 2).size(), 1u);
  write_text(run / kernel_file_name(1, 5, 0), "no such problem");
  EXPECT_NE(message_of([&] { read_solutions(run, f.d); }).find("no problem 5 in level 1"),
            std::string::npos);
  fs::remove(run / kernel_file_name(1, 5, 0));
  write_text(run / "level_1_problem_19_sample_00_kernel.py", "the same sample again");
  EXPECT_NE(message_of([&] { read_solutions(run, f.d); }).find("another file too"),
            std::string::npos);
  TempDir empty;
  EXPECT_NE(message_of([&] { read_solutions(empty.path(), f.d); }).find("holds no level_"),
            std::string::npos);
}

TEST(KernelBenchSolutions, SelfRenamesTheReferenceModelToModelNew) {
  Fixture f;
  const std::vector<Solution> s = self_solutions(f.d);
  ASSERT_EQ(s.size(), 3u);
  EXPECT_NE(s[0].code.find("class ModelNew(torch.nn.Module)"), std::string::npos);
  EXPECT_NE(s[0].code.find("super(ModelNew, self)"), std::string::npos);
  EXPECT_EQ(s[0].code.find("class Model("), std::string::npos);
  EXPECT_NE(s[0].code.find("get_inputs"), std::string::npos);
}

}  // namespace
}  // namespace kjudge::kernelbench
