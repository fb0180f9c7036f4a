// TritonBench loading: the real data folder (../shared/datasets/tritonbench, read in place) and
// crafted folders that break one rule each.
#include "triton/data/tritonbench.h"

#include <gtest/gtest.h>
#include <sys/stat.h>

#include <filesystem>
#include <fstream>
#include <map>
#include <set>

#include "bounded_child.h"
#include "core/input_error.h"
#include "schema_validator.h"
#include "test_util.h"
#include "triton/data/split.h"

namespace kjudge::triton {
namespace {

namespace fs = std::filesystem;
using kjudge::testing::TempDir;
using nlohmann::ordered_json;

const fs::path kData = fs::path(KJUDGE_SOURCE_DIR "/../shared/datasets/tritonbench");
const std::string kSep(kTritonSeparatorWidth, '#');

#define SKIP_WITHOUT_DATA()                                                            \
  do {                                                                                 \
    if (!fs::is_directory(kData)) GTEST_SKIP() << "shared dataset missing: " << kData; \
  } while (0)

// ---- the real data ----

class RealTritonBench : public ::testing::Test {
 protected:
  static void SetUpTestSuite() {
    if (fs::is_directory(kData)) bench_ = new TritonBench(load_tritonbench(kData));
  }
  static void TearDownTestSuite() {
    delete bench_;
    bench_ = nullptr;
  }
  void SetUp() override { SKIP_WITHOUT_DATA(); }
  static TritonBench* bench_;
};
TritonBench* RealTritonBench::bench_ = nullptr;

TEST_F(RealTritonBench, AllThreeHundredFiftyOperatorsLoad) {
  std::map<TritonChannel, std::map<int, int>> by_level;
  std::map<TritonChannel, std::set<std::string>> files;
  for (const TritonOperator& op : bench_->operators) {
    ++by_level[op.channel][op.difficulty];
    EXPECT_TRUE(files[op.channel].insert(op.file).second) << op.file;
    EXPECT_FALSE(op.simple_instruction.empty()) << op.file;
    EXPECT_FALSE(op.complex_instruction.empty()) << op.file;
    EXPECT_FALSE(op.reference_code.empty()) << op.file;
    EXPECT_NE(op.test_code.find("def test_"), std::string::npos) << op.file;
    EXPECT_EQ(op.reference_code.find(kSep), std::string::npos) << op.file;
    EXPECT_EQ(op.test_code.find(kSep), std::string::npos) << op.file;
  }
  EXPECT_EQ(bench_->operators.size(), 350u);
  EXPECT_EQ(files[TritonChannel::G].size(), 184u);
  EXPECT_EQ(files[TritonChannel::T].size(), 166u);
  // The level counts the research note read from upstream: a loader that misreads G's string
  // difficulties or T's integer ones changes them.
  EXPECT_EQ(by_level[TritonChannel::G],
            (std::map<int, int>{{1, 3}, {2, 27}, {3, 65}, {4, 84}, {5, 5}}));
  EXPECT_EQ(by_level[TritonChannel::T],
            (std::map<int, int>{{1, 22}, {2, 37}, {3, 54}, {4, 49}, {5, 4}}));
}

std::string trim_end(std::string s) {
  while (!s.empty() && std::isspace(static_cast<unsigned char>(s.back()))) s.pop_back();
  return s;
}

TEST_F(RealTritonBench, GReferenceIsTheStatisticsOutput) {
  // Two sources hold G's reference code; the split of the operator file must agree with the
  // statistics' "output" for every operator, which proves the cut is in the right place.
  for (const TritonOperator& op : bench_->operators) {
    if (op.channel != TritonChannel::G) continue;
    EXPECT_EQ(trim_end(op.reference_code), trim_end(op.statistics.at("output").get<std::string>()))
        << op.file;
  }
}

TEST_F(RealTritonBench, InstructionsBelongToTheirOperator) {
  const TritonOperator* g = bench_->find("add_example", TritonChannel::G);
  ASSERT_NE(g, nullptr);
  EXPECT_NE(g->simple_instruction.find(g->statistics.at("simp_instru").get<std::string>()),
            std::string::npos);
  EXPECT_NE(g->complex_instruction.find(g->statistics.at("comp_instru").get<std::string>()),
            std::string::npos);
  // T names some operators by their torch path; both the name and the file find them.
  const TritonOperator* t = bench_->find("torch.div");
  ASSERT_NE(t, nullptr);
  EXPECT_EQ(t->file, "div.py");
  EXPECT_EQ(bench_->find("div.py", TritonChannel::T), t);
  EXPECT_EQ(bench_->find("div", TritonChannel::G), nullptr);
  EXPECT_NE(t->simple_instruction.find(t->statistics.at("func_inputs").get<std::string>()),
            std::string::npos);
  EXPECT_EQ(t->statistics.at("difficulty").get<int>(), t->difficulty);
}

TEST_F(RealTritonBench, ShorterHashLinesAreNotSeparators) {
  // quantize_kv_copy.py has a 103-'#' banner of its own: it stays inside the code.
  const TritonOperator* op = bench_->find("quantize_kv_copy", TritonChannel::G);
  ASSERT_NE(op, nullptr);
  const std::string banner = "\n" + std::string(103, '#') + "\n";
  EXPECT_NE((op->reference_code + op->test_code).find(banner), std::string::npos);
}

// ---- the split rule on crafted text ----

SplitSource where() { return {"ops.jsonl", 7, "content", "G/x.py"}; }

TEST(TritonSplit, CutsAtTheSeparatorLine) {
  SplitOperatorFile s = split_operator_file("ref\n\n" + kSep + "\n\ntest\n", where());
  EXPECT_EQ(s.reference_code, "ref\n\n");
  EXPECT_EQ(s.test_code, "\ntest\n");
  // A CRLF copy of the dataset still splits.
  s = split_operator_file("ref\r\n" + kSep + "\r\ntest\r\n", where());
  EXPECT_EQ(s.reference_code, "ref\r\n");
  EXPECT_EQ(s.test_code, "test\r\n");
}

void expect_split_error(const std::string& content, const std::string& reason_part) {
  try {
    split_operator_file(content, where());
    ADD_FAILURE() << "no error for: " << content.substr(0, 40);
  } catch (const InputError& e) {
    EXPECT_EQ(e.file(), "ops.jsonl");
    EXPECT_EQ(e.line(), 7);
    EXPECT_EQ(e.field(), "content");
    EXPECT_NE(e.reason().find("G/x.py"), std::string::npos) << e.what();
    EXPECT_NE(e.reason().find(reason_part), std::string::npos) << e.what();
  }
}

TEST(TritonSplit, RefusesZeroOrSeveralSeparators) {
  expect_split_error("ref\ntest\n", "no separator");
  expect_split_error("ref\n" + kSep + "\nmid\n" + kSep + "\ntest\n", "2 separator lines");
  expect_split_error("ref\n" + kSep + "#\ntest\n", "no separator");           // 147 '#'
  expect_split_error("ref\n" + kSep.substr(1) + "\ntest\n", "no separator");  // 145 '#'
  expect_split_error("ref\n# " + kSep + "\ntest\n", "no separator");          // not alone
  expect_split_error("ref " + kSep + "\ntest\n", "no separator");             // mid-line
}

// ---- crafted folders: a minimal valid one, then one broken rule at a time ----

struct MiniBench {
  ordered_json g_stats = ordered_json::array({{{"file", "a.py"},
                                               {"repo", "r/a"},
                                               {"simp_instru", "Adds."},
                                               {"comp_instru", "Adds two tensors."},
                                               {"output", "def a(): pass\n"},
                                               {"star", 1},
                                               {"difficulty", "2"}}});
  ordered_json g_simp = ordered_json::array({{{"instruction", "Preamble. Adds."}, {"input", ""}}});
  ordered_json g_comp =
      ordered_json::array({{{"instruction", "Preamble. Adds two tensors."}, {"input", ""}}});
  ordered_json t_stats = ordered_json::array({{{"name", "torch.b"},
                                               {"file", "b.py"},
                                               {"func_inputs", "b(x) -> Tensor"},
                                               {"difficulty", 4}}});
  ordered_json t_simp = ordered_json::array({{{"instruction", "P. b(x) -> Tensor"}}});
  ordered_json t_comp = ordered_json::array({{{"instruction", "P. b(x) -> Tensor. Math."}}});
  std::vector<std::string> op_lines = {
      ordered_json{{"channel", "G"},
                   {"file", "a.py"},
                   {"content", "def a(): pass\n" + kSep + "\ndef test_a(): pass\n"}}
          .dump(),
      ordered_json{{"channel", "T"},
                   {"file", "b.py"},
                   {"content", "def b(x): return x\n" + kSep + "\ndef test_b(): pass\n"}}
          .dump()};

  void write(const fs::path& dir) const {
    namespace f = tritonbench_files;
    auto put = [&](const char* name, const std::string& text) {
      std::ofstream(dir / name) << text;
    };
    put(f::kGStatistics, g_stats.dump());
    put(f::kGSimple, g_simp.dump());
    put(f::kGComplex, g_comp.dump());
    put(f::kTStatistics, t_stats.dump(1));
    put(f::kTSimple, t_simp.dump());
    put(f::kTComplex, t_comp.dump());
    std::string ops;
    for (const std::string& l : op_lines) ops += l + "\n";
    put(f::kOperatorFiles, ops);
  }
};

TEST(TritonBenchLoad, MinimalFolderLoads) {
  TempDir dir;
  MiniBench().write(dir.path());
  TritonBench b = load_tritonbench(dir.path());
  ASSERT_EQ(b.operators.size(), 2u);
  const TritonOperator& a = b.operators[0];
  EXPECT_EQ(a.channel, TritonChannel::G);
  EXPECT_EQ(a.name, "a");
  EXPECT_EQ(a.difficulty, 2);
  EXPECT_EQ(a.simple_instruction, "Preamble. Adds.");
  EXPECT_EQ(a.reference_code, "def a(): pass\n");
  EXPECT_EQ(a.test_code, "def test_a(): pass\n");
  EXPECT_EQ(a.statistics.at("repo"), "r/a");
  const TritonOperator& t = b.operators[1];
  EXPECT_EQ(t.channel, TritonChannel::T);
  EXPECT_EQ(t.name, "torch.b");
  EXPECT_EQ(t.difficulty, 4);
  EXPECT_EQ(t.complex_instruction, "P. b(x) -> Tensor. Math.");
}

// Loads `m` and returns the error; fails the test if there is none.
InputError load_error(const MiniBench& m) {
  TempDir dir;
  m.write(dir.path());
  try {
    load_tritonbench(dir.path());
  } catch (const InputError& e) {
    return e;
  }
  ADD_FAILURE() << "loaded without error";
  return InputError("", 0, "", "");
}

TEST(TritonBenchLoad, OperatorFileWithoutSeparatorNamesTheEntry) {
  MiniBench m;
  m.op_lines[1] = ordered_json{{"channel", "T"}, {"file", "b.py"}, {"content", "no split"}}.dump();
  InputError e = load_error(m);
  EXPECT_EQ(e.file(), "TritonBench_operator_files.jsonl");
  EXPECT_EQ(e.line(), 2);
  EXPECT_EQ(e.field(), "content");
  EXPECT_NE(e.reason().find("T/b.py"), std::string::npos) << e.what();
}

TEST(TritonBenchLoad, OperatorFileWithTwoSeparatorsNamesTheEntry) {
  MiniBench m;
  m.op_lines[0] =
      ordered_json{
          {"channel", "G"}, {"file", "a.py"}, {"content", "x\n" + kSep + "\ny\n" + kSep + "\nz\n"}}
          .dump();
  InputError e = load_error(m);
  EXPECT_EQ(e.line(), 1);
  EXPECT_NE(e.reason().find("G/a.py: 2 separator lines"), std::string::npos) << e.what();
}

TEST(TritonBenchLoad, MissingExtraAndDuplicateOperatorFiles) {
  MiniBench missing;
  missing.op_lines.pop_back();
  EXPECT_NE(std::string(load_error(missing).what()).find("no operator file for T/b.py"),
            std::string::npos);

  MiniBench extra;
  extra.op_lines.push_back(
      ordered_json{{"channel", "T"}, {"file", "c.py"}, {"content", kSep}}.dump());
  EXPECT_NE(std::string(load_error(extra).what()).find("T/c.py has no entry"), std::string::npos);

  MiniBench dup;
  dup.op_lines.push_back(dup.op_lines[0]);
  InputError e = load_error(dup);
  EXPECT_EQ(e.line(), 3);
  EXPECT_EQ(e.field(), "file");
  EXPECT_NE(e.reason().find("G/a.py appears twice"), std::string::npos) << e.what();

  MiniBench bad_channel;
  bad_channel.op_lines[0] =
      ordered_json{{"channel", "X"}, {"file", "a.py"}, {"content", kSep}}.dump();
  EXPECT_EQ(load_error(bad_channel).field(), "channel");
}

TEST(TritonBenchLoad, BadJsonLineNamesTheLine) {
  MiniBench m;
  m.op_lines.insert(m.op_lines.begin() + 1, "{not json");
  InputError e = load_error(m);
  EXPECT_EQ(e.file(), "TritonBench_operator_files.jsonl");
  EXPECT_EQ(e.line(), 2);
}

TEST(TritonBenchLoad, StatisticsFieldsAreChecked) {
  MiniBench level;
  level.g_stats[0]["difficulty"] = "7";
  InputError e = load_error(level);
  EXPECT_EQ(e.file(), "TritonBench_G_v1.json");
  EXPECT_EQ(e.field(), "[0].difficulty");

  MiniBench no_name;
  no_name.t_stats[0].erase("name");
  e = load_error(no_name);
  EXPECT_EQ(e.file(), "TritonBench_T_v1.jsonl");
  EXPECT_EQ(e.field(), "[0].name");
  EXPECT_EQ(e.reason(), "missing");

  MiniBench wrong_type;
  wrong_type.g_stats[0]["file"] = 3;
  EXPECT_EQ(load_error(wrong_type).field(), "[0].file");
}

TEST(TritonBenchLoad, InstructionFilesMustAlignWithStatistics) {
  MiniBench shifted;
  shifted.g_comp[0]["instruction"] = "Preamble. Something else.";
  InputError e = load_error(shifted);
  EXPECT_EQ(e.file(), "TritonBench_G_comp_alpac_v1.json");
  EXPECT_EQ(e.field(), "[0].instruction");
  EXPECT_NE(e.reason().find("a.py"), std::string::npos) << e.what();

  MiniBench short_file;
  short_file.t_simp = ordered_json::array();
  EXPECT_EQ(load_error(short_file).file(), "TritonBench_T_simp_alpac_v1.json");
}

TEST(TritonBenchLoad, MissingFolderOrFile) {
  EXPECT_THROW(load_tritonbench("/nonexistent/tritonbench"), InputError);
  TempDir dir;
  MiniBench().write(dir.path());
  fs::remove(dir / tritonbench_files::kTComplex);
  EXPECT_THROW(load_tritonbench(dir.path()), InputError);
}

// A data folder is read file by file: a FIFO or a link to a device in it is refused by name in
// a bounded child (it used to block forever, or read /dev/zero until memory ran out).
TEST(TritonBenchLoad, AFifoOrADeviceLinkIsRefusedNotRead) {
  for (const bool fifo : {true, false}) {
    TempDir dir;
    MiniBench().write(dir.path());
    const fs::path victim = dir / tritonbench_files::kOperatorFiles;
    fs::remove(victim);
    if (fifo)
      ASSERT_EQ(mkfifo(victim.c_str(), 0600), 0);
    else
      fs::create_symlink("/dev/zero", victim);
    const auto r =
        testing::run_bounded([&] { load_tritonbench(dir.path()); }, std::size_t{1} << 30, 10);
    ASSERT_EQ(r.outcome, testing::BoundedResult::Outcome::input_error) << fifo << r.message;
    EXPECT_NE(r.message.find(tritonbench_files::kOperatorFiles), std::string::npos) << r.message;
    EXPECT_NE(r.message.find("not a regular file"), std::string::npos) << r.message;
  }
}

TEST(TritonBenchLoad, AnEmptyFolderOrFileIsAnError) {
  TempDir empty;
  InputError e = testing::expect_input_error([&] { load_tritonbench(empty.path()); });
  EXPECT_NE(std::string(e.what()).find(tritonbench_files::kGStatistics), std::string::npos)
      << e.what();
  TempDir dir;
  MiniBench().write(dir.path());
  std::ofstream(dir / tritonbench_files::kTStatistics, std::ios::trunc).close();
  e = testing::expect_input_error([&] { load_tritonbench(dir.path()); });
  EXPECT_EQ(e.file(), tritonbench_files::kTStatistics);
  EXPECT_NE(e.reason().find("empty"), std::string::npos) << e.reason();
}

// ---- the command line ----

TEST_F(RealTritonBench, CliListsAndShowsOperators) {
  using kjudge::testing::run_capture;
  const std::string bin = KJUDGE_BINARY, dir = kData.string();
  auto list = run_capture(bin + " triton list " + dir + " --channel T --json");
  ASSERT_EQ(list.rc, 0) << list.out;
  ordered_json arr = ordered_json::parse(list.out);
  EXPECT_EQ(arr.size(), 166u);
  EXPECT_EQ(arr[0].at("channel"), "T");

  auto show = run_capture(bin + " triton show " + dir + " torch.div --json");
  ASSERT_EQ(show.rc, 0) << show.out;
  ordered_json op = ordered_json::parse(show.out);
  EXPECT_EQ(op.at("file"), "div.py");
  EXPECT_EQ(op.at("test_code").get<std::string>(), bench_->find("torch.div")->test_code);

  // Both outputs as docs/schemas/triton-operator.schema.json says (docs/json-schemas.md).
  std::ifstream schema_file(std::string(KJUDGE_SOURCE_DIR) +
                            "/docs/schemas/triton-operator.schema.json");
  kjudge::testing::SchemaValidator schema(nlohmann::json::parse(schema_file));
  for (const auto& doc : nlohmann::json::parse(list.out))
    for (const auto& e : schema.errors(doc)) ADD_FAILURE() << doc.dump() << ": " << e;
  for (const auto& e : schema.errors(nlohmann::json::parse(show.out))) ADD_FAILURE() << e;

  auto missing = run_capture(bin + " triton show " + dir + " no_such_op");
  EXPECT_EQ(missing.rc, 2);
  EXPECT_NE(missing.out.find("no operator 'no_such_op'"), std::string::npos) << missing.out;
}

}  // namespace
}  // namespace kjudge::triton
