// One-shot retrieval: BM25 over an SQLite FTS5 index of a user's corpus, the target operator
// never shown to itself, FTS5 query syntax in instructions never read as syntax; corpora from
// JSON lines, a JSON array (the Alpaca files) and a TritonBench folder; the real dataset when
// present.
#include "triton/candidates/oneshot_retrieval.h"

#include <gtest/gtest.h>
#include <sqlite3.h>

#include "core/input_error.h"
#include "test_util.h"
#include "triton/candidates/llm_generated.h"
#include "triton/data/tritonbench.h"
#include "triton_mini_bench.h"

namespace kjudge::triton {
namespace {

namespace fs = std::filesystem;
using nlohmann::json;
using testing::TempDir;

const fs::path kData = fs::path(KJUDGE_SOURCE_DIR "/../shared/datasets/tritonbench");

TEST(OneShot, DebiansSqliteHasFts5) {
  EXPECT_EQ(sqlite3_compileoption_used("ENABLE_FTS5"), 1) << sqlite3_libversion();
  OneShotIndex index({{"vector add", "code", "", "x"}});
  EXPECT_EQ(index.size(), 1u);
}

TEST(OneShot, QueryQuotesEveryWordOnce) {
  EXPECT_EQ(fts5_any_word_query("Add two vectors, add them!"),
            "\"add\" OR \"two\" OR \"vectors\" OR \"them\"");
  EXPECT_EQ(fts5_any_word_query("  ,;: "), "");
  // Operators and special characters become quoted words or vanish: nothing is syntax.
  EXPECT_EQ(fts5_any_word_query("NOT x AND (y) OR z* col:w ^v NEAR(a b) \"q"),
            "\"not\" OR \"x\" OR \"and\" OR \"y\" OR \"or\" OR \"z\" OR \"col\" OR \"w\" OR \"v\" "
            "OR \"near\" OR \"a\" OR \"b\" OR \"q\"");
  // Non-ASCII words stay whole.
  EXPECT_EQ(fts5_any_word_query("größe"), "\"größe\"");
}

TEST(OneShot, InstructionsFullOfQuerySyntaxDoNotBreakTheQuery) {
  OneShotIndex index(
      {{"sum of a column: NOT the row", "def f(): pass", "", "a"},
       {"product \"quoted\" AND (grouped) * star ^caret", "def g(): pass", "", "b"}});
  for (const std::string q : {"\"unbalanced quote AND OR NOT NEAR( col:x ^start *",
                              "-- ; DROP TABLE oneshot; --", "(((", "\"\"\"\"", "*:^"}) {
    EXPECT_NO_THROW(index.best(q)) << q;
  }
  std::optional<OneShotExample> ex = index.best("column NOT row");
  ASSERT_TRUE(ex);
  EXPECT_EQ(ex->source, "a");
  ex = index.best("the (grouped) product ^");
  ASSERT_TRUE(ex);
  EXPECT_EQ(ex->source, "b");
  EXPECT_FALSE(index.best("zebra")) << "no shared word, no example";
  EXPECT_FALSE(index.best(""));
}

TEST(OneShot, Bm25PicksTheMostSimilarAndNeverTheTargetItself) {
  TempDir dir;
  testing::write_mini_tritonbench(dir / "tb");
  const TritonBench bench = load_tritonbench(dir / "tb");
  OneShotIndex index(load_oneshot_corpus(dir / "tb"));
  EXPECT_EQ(index.size(), 6u) << "each G operator twice (simple, complex); T has no Triton code";

  // A new task about a row softmax: the softmax example.
  std::optional<OneShotExample> ex = index.best(
      "Write a Triton kernel for the softmax of each row of a matrix, subtracting "
      "the row maximum.");
  ASSERT_TRUE(ex);
  EXPECT_EQ(ex->key, "G/softmax_rows.py");

  // The softmax operator asks: its own entries (both kinds) are excluded.
  const TritonOperator* softmax = bench.find("softmax_rows");
  ASSERT_NE(softmax, nullptr);
  for (InstructionKind k : {InstructionKind::simple, InstructionKind::complex}) {
    ex = index.best_for(*softmax, instruction_of(*softmax, k));
    ASSERT_TRUE(ex);
    EXPECT_NE(ex->key, "G/softmax_rows.py");
    EXPECT_FALSE(is_same_operator(*ex, *softmax));
  }
  // A T operator gets a G example (the only Triton code there is).
  const TritonOperator* ln = bench.find("layer_norm.py");
  ASSERT_NE(ln, nullptr);
  ex = index.best_for(*ln, ln->complex_instruction);
  ASSERT_TRUE(ex);
  EXPECT_EQ(ex->key.substr(0, 2), "G/");
}

TEST(OneShot, SameOperatorIsRecognisedWithoutAKey) {
  TempDir dir;
  testing::write_mini_tritonbench(dir / "tb");
  const TritonBench bench = load_tritonbench(dir / "tb");
  const TritonOperator& add = *bench.find("vector_add");
  const auto& mini = testing::kMiniG[0];
  // The other kind's instruction (contains comp_instru), as the Alpaca files hold it.
  EXPECT_TRUE(is_same_operator({testing::mini_g_complex(mini), "x", "", ""}, add));
  EXPECT_TRUE(is_same_operator({"Preamble: " + mini.simp + " More.", "x", "", ""}, add));
  // The reference code, trailing spaces and blank lines aside.
  std::string code = mini.code;
  code.insert(code.find('\n'), "   ");
  EXPECT_TRUE(is_same_operator({"other words", code + "\n\n", "", ""}, add));
  EXPECT_TRUE(is_same_operator({"other words", "x", "G/vector_add.py", ""}, add));
  EXPECT_FALSE(is_same_operator({"other words", "x", "T/vector_add.py", ""}, add));
  EXPECT_FALSE(is_same_operator({"other words", "x", "", ""}, add));
}

TEST(OneShot, CorpusFromJsonLinesAndArrays) {
  TempDir dir;
  testing::write_text(dir / "c.jsonl",
                      json{{"instruction", "add vectors"}, {"output", "def add(): pass"}}.dump() +
                          "\n\n" +
                          json{{"instruction", "scale"}, {"code", "def s(): pass"}}.dump() + "\n" +
                          json{{"instruction", "empty"}, {"output", ""}}.dump() + "\n" +
                          json{{"instruction", "keyed"},
                               {"code", "def k(): pass"},
                               {"channel", "G"},
                               {"file", "k.py"}}
                              .dump() +
                          "\n");
  std::vector<OneShotExample> c = load_oneshot_corpus(dir / "c.jsonl");
  ASSERT_EQ(c.size(), 3u) << "the entry without code shows nothing and is skipped";
  EXPECT_EQ(c[0].code, "def add(): pass");
  EXPECT_EQ(c[0].source, "c.jsonl:1");
  EXPECT_EQ(c[1].code, "def s(): pass");
  EXPECT_EQ(c[1].source, "c.jsonl:3");
  EXPECT_EQ(c[2].key, "G/k.py");

  testing::write_text(dir / "alpaca.json",
                      json::array({{{"instruction", "a"}, {"input", ""}, {"output", "code a"}},
                                   {{"instruction", "b"}, {"input", ""}, {"output", "code b"}}})
                          .dump(2));
  c = load_oneshot_corpus(dir / "alpaca.json");
  ASSERT_EQ(c.size(), 2u);
  EXPECT_EQ(c[1].source, "alpaca.json [1]");
}

TEST(OneShot, BadCorpusNamesFileLineAndField) {
  TempDir dir;
  auto error_of = [&](const std::string& name, const std::string& text) {
    testing::write_text(dir / name, text);
    try {
      load_oneshot_corpus(dir / name);
    } catch (const InputError& e) {
      return e;
    }
    ADD_FAILURE() << "expected an InputError for " << name;
    return InputError("", 0, "", "");
  };
  InputError e = error_of("a.jsonl", "{\"instruction\": \"x\", \"output\": \"y\"}\n{oops\n");
  EXPECT_EQ(e.file(), "a.jsonl");
  EXPECT_EQ(e.line(), 2);
  e = error_of("b.jsonl", "{\"output\": \"y\"}\n");
  EXPECT_EQ(e.line(), 1);
  EXPECT_EQ(e.field(), "instruction");
  e = error_of("c.jsonl", "{\"instruction\": \"x\"}\n");
  EXPECT_EQ(e.field(), "output");
  e = error_of("d.json", "[{\"instruction\": \"x\", \"output\": 5}]");
  EXPECT_EQ(e.field(), "[0].output");
  e = error_of("e.json", "[{\"instruction\": \"x\"");
  EXPECT_NE(std::string(e.what()).find("not valid JSON"), std::string::npos);
  EXPECT_THROW(load_oneshot_corpus(dir / "absent.jsonl"), InputError);
}

TEST(OneShot, IndexInAFileIsRebuiltEachTime) {
  TempDir dir;
  const std::string db = (dir / "index.sqlite").string();
  {
    OneShotIndex index({{"alpha beta", "a", "", "first"}}, db);
    EXPECT_EQ(index.best("alpha")->source, "first");
  }
  EXPECT_TRUE(fs::exists(db));
  OneShotIndex again({{"gamma", "g", "", "second"}}, db);
  EXPECT_FALSE(again.best("alpha")) << "the old rows are gone";
  EXPECT_EQ(again.best("gamma")->source, "second");
  EXPECT_THROW(OneShotIndex({}, (dir / "no/such/dir/x.sqlite").string()), std::runtime_error);
}

// The real data: with TritonBench itself as the corpus (both the folder and the Alpaca file of
// the other kind), no operator is ever shown its own code.
TEST(OneShotReal, NoOperatorRetrievesItself) {
  if (!fs::is_directory(kData)) GTEST_SKIP() << "shared dataset missing: " << kData;
  const TritonBench bench = load_tritonbench(kData);
  OneShotIndex folder(load_oneshot_corpus(kData));
  EXPECT_EQ(folder.size(), 2u * 184u);
  OneShotIndex alpaca(load_oneshot_corpus(kData / "TritonBench_G_comp_alpac_v1.json"));
  EXPECT_EQ(alpaca.size(), 184u);
  int found = 0;
  for (const TritonOperator& op : bench.operators) {
    const std::string& instruction = op.simple_instruction;
    for (const OneShotIndex* index : {&folder, &alpaca}) {
      std::optional<OneShotExample> ex = index->best_for(op, instruction);
      ASSERT_TRUE(ex) << op.file;
      ++found;
      EXPECT_FALSE(is_same_operator(*ex, op)) << op.file << " got " << ex->source;
      EXPECT_NE(ex->key, "G/" + op.file) << op.file;
      if (op.channel == TritonChannel::G) {
        EXPECT_EQ(ex->instruction.find(op.statistics.at("simp_instru").get<std::string>()),
                  std::string::npos)
            << op.file << " got " << ex->source;
      }
    }
  }
  EXPECT_EQ(found, 700);
}

}  // namespace
}  // namespace kjudge::triton
