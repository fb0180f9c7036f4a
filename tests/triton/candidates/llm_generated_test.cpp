// Reading the paper's published outputs (LLM_generated/*.jsonl: {instruction, predict, label}):
// each line matched to its operator and instruction kind by the instruction text, the code
// taken out of the answer, unmatched lines listed, malformed ones refused with file and line.
// Crafted files on a crafted folder, then on the real dataset (the shared datasets hold no
// LLM_generated file, so the lines are built from its real instructions).
#include "triton/candidates/llm_generated.h"

#include <gtest/gtest.h>

#include "core/input_error.h"
#include "test_util.h"
#include "triton/candidates/prompt.h"
#include "triton/candidates/solutions.h"
#include "triton_mini_bench.h"

namespace kjudge::triton {
namespace {

namespace fs = std::filesystem;
using nlohmann::json;
using testing::TempDir;

const fs::path kData = fs::path(KJUDGE_SOURCE_DIR "/../shared/datasets/tritonbench");

std::string line(const std::string& instruction, const std::string& predict,
                 const json& label = "") {
  return json{{"instruction", instruction}, {"predict", predict}, {"label", label}}.dump() + "\n";
}

std::string fenced(const std::string& code) { return "```python\n" + code + "```\n"; }

class LlmGenerated : public ::testing::Test {
 protected:
  void SetUp() override {
    testing::write_mini_tritonbench(dir_ / "tb");
    bench_ = load_tritonbench(dir_ / "tb");
  }
  LlmGeneratedFile read(const std::string& text) {
    testing::write_text(dir_ / "model.jsonl", text);
    return read_llm_generated(dir_ / "model.jsonl", bench_);
  }
  InputError read_error(const std::string& text) {
    try {
      read(text);
    } catch (const InputError& e) {
      return e;
    }
    ADD_FAILURE() << "expected an InputError";
    return InputError("", 0, "", "");
  }
  TempDir dir_;
  TritonBench bench_;
};

TEST_F(LlmGenerated, LinesMatchTheirOperatorAndInstructionKind) {
  const auto& add = testing::kMiniG[0];
  const auto& softmax = testing::kMiniG[1];
  const auto& relu = testing::kMiniT[0];
  std::string text;
  text += line(testing::mini_g_simple(add), "Here it is:\n" + fenced(add.code), add.code);
  text += "\n";  // blank lines are skipped but still counted
  text += line(testing::mini_g_complex(softmax), fenced(softmax.code) + "<|im_end|>", softmax.code);
  text += line(testing::mini_t_simple(relu), fenced("def relu(x):\n    return x\n"));
  text += line(testing::mini_g_simple(add), fenced("def add(x, y):\n    return x + y\n"), add.code);
  text += line("Write me a kernel that sorts.", fenced("def sort(x): pass\n"));
  LlmGeneratedFile f = read(text);

  ASSERT_EQ(f.candidates.size(), 4u);
  const TritonCandidate& a0 = f.candidates[0];
  EXPECT_EQ(a0.channel, TritonChannel::G);
  EXPECT_EQ(a0.file, "vector_add.py");
  EXPECT_EQ(a0.operator_name, "vector_add");
  EXPECT_EQ(a0.instruction, InstructionKind::simple);
  EXPECT_EQ(a0.sample, 0);
  EXPECT_EQ(a0.code, add.code);
  EXPECT_TRUE(a0.code_error.empty());
  EXPECT_EQ(a0.source, "model.jsonl:1");

  const TritonCandidate& s = f.candidates[1];
  EXPECT_EQ(s.file, "softmax_rows.py");
  EXPECT_EQ(s.instruction, InstructionKind::complex);
  EXPECT_EQ(s.code, softmax.code) << "the chat template's end token is not code";
  EXPECT_EQ(s.source, "model.jsonl:3");

  const TritonCandidate& r = f.candidates[2];
  EXPECT_EQ(r.channel, TritonChannel::T);
  EXPECT_EQ(r.file, "relu.py");
  EXPECT_EQ(r.operator_name, "relu");

  const TritonCandidate& a1 = f.candidates[3];
  EXPECT_EQ(a1.file, "vector_add.py");
  EXPECT_EQ(a1.sample, 1) << "a second answer for the same operator is its next sample";

  ASSERT_EQ(f.unmatched.size(), 1u);
  EXPECT_EQ(f.unmatched[0].line, 6);
  EXPECT_EQ(f.unmatched[0].instruction_start, "Write me a kernel that sorts.");
}

TEST_F(LlmGenerated, WhitespaceAndLineEndsAroundTheInstructionDoNotMatter) {
  std::string instr = testing::mini_t_complex(testing::kMiniT[1]);
  std::string crlf;
  for (char c : instr) crlf += c == '\n' ? std::string("\r\n") : std::string(1, c);
  LlmGeneratedFile f = read(line("  " + crlf + "\n", fenced("def layer_norm(x): pass\n")));
  ASSERT_EQ(f.candidates.size(), 1u);
  EXPECT_EQ(f.candidates[0].file, "layer_norm.py");
  EXPECT_EQ(f.candidates[0].operator_name, "torch.nn.functional.layer_norm");
  EXPECT_EQ(f.candidates[0].instruction, InstructionKind::complex);
  // But a different word is a different prompt.
  EXPECT_EQ(read(line(instr + " please", "x")).unmatched.size(), 1u);
}

TEST_F(LlmGenerated, CodeIsTakenAsUpstreamWouldWhereTheAnswerIsAmbiguous) {
  const std::string instr = testing::mini_g_simple(testing::kMiniG[0]);
  std::string text;
  // Two unnamed blocks: upstream's rule, the last ```python block.
  text += line(instr,
               "First a draft:\n```python\ndef draft(): pass\n```\nFinal:\n```python\n"
               "def final(): pass\n```\n");
  // A block naming the operator's file.
  text += line(instr, "```python\n# file: vector_add.py\ndef named(): pass\n```\n");
  // Bare code without fences.
  text += line(instr, "import triton\n\ndef bare(): pass\n");
  // Prose only.
  text += line(instr, "I cannot write this kernel.");
  // Reasoning, then the answer.
  text += line(instr, "<think>maybe ```python\ndef wrong(): pass\n```</think>\n" +
                          fenced("def after_thinking(): pass\n"));
  LlmGeneratedFile f = read(text);
  ASSERT_EQ(f.candidates.size(), 5u);
  EXPECT_EQ(f.candidates[0].code, "def final(): pass\n");
  EXPECT_FALSE(f.candidates[0].warnings.empty());
  EXPECT_EQ(f.candidates[1].code, "def named(): pass\n");
  EXPECT_EQ(f.candidates[2].code, "import triton\n\ndef bare(): pass\n");
  EXPECT_TRUE(f.candidates[3].code.empty());
  EXPECT_FALSE(f.candidates[3].code_error.empty()) << "no code is a failed candidate, kept";
  EXPECT_EQ(f.candidates[4].code, "def after_thinking(): pass\n");
}

TEST_F(LlmGenerated, ALabelThatIsNotTheReferenceIsWorthAWarning) {
  const auto& add = testing::kMiniG[0];
  LlmGeneratedFile f = read(line(testing::mini_g_simple(add), fenced(add.code),
                                 "def other(): "
                                 "pass\n") +
                            line(testing::mini_g_simple(add), fenced(add.code), add.code) +
                            line(testing::mini_g_simple(add), fenced(add.code), nullptr));
  ASSERT_EQ(f.candidates.size(), 3u);
  bool warned = false;
  for (const auto& w : f.candidates[0].warnings)
    warned |= w.find("label differs") != std::string::npos;
  EXPECT_TRUE(warned);
  for (const auto& w : f.candidates[1].warnings)
    EXPECT_EQ(w.find("label differs"), std::string::npos) << w;
  EXPECT_EQ(f.candidates[1].label, add.code);
  EXPECT_TRUE(f.candidates[2].label.empty()) << "a null label is no label";
}

TEST_F(LlmGenerated, MalformedLinesNameFileLineAndField) {
  const std::string ok = line(testing::mini_g_simple(testing::kMiniG[0]), "x");
  InputError e = read_error(ok + "{\"instruction\": \"x\", \"predict\": \n");
  EXPECT_EQ(e.file(), "model.jsonl");
  EXPECT_EQ(e.line(), 2);
  EXPECT_NE(std::string(e.what()).find("not valid JSON"), std::string::npos) << e.what();

  e = read_error(ok + ok + json{{"instruction", "x"}, {"label", ""}}.dump() + "\n");
  EXPECT_EQ(e.line(), 3);
  EXPECT_EQ(e.field(), "predict");
  EXPECT_NE(std::string(e.what()).find("missing"), std::string::npos);

  e = read_error(json{{"instruction", 7}, {"predict", "x"}}.dump() + "\n");
  EXPECT_EQ(e.line(), 1);
  EXPECT_EQ(e.field(), "instruction");
  EXPECT_NE(std::string(e.what()).find("expected a string"), std::string::npos);

  e = read_error(json{{"instruction", "x"}, {"predict", "x"}, {"label", 3}}.dump() + "\n");
  EXPECT_EQ(e.field(), "label");

  e = read_error("[1, 2]\n");
  EXPECT_NE(std::string(e.what()).find("expected a JSON object"), std::string::npos);

  EXPECT_THROW(read_llm_generated(dir_ / "absent.jsonl", bench_), InputError);
}

TEST_F(LlmGenerated, SolutionLinesHaveExactlyTheAgreedFields) {
  TritonCandidate c;
  c.channel = TritonChannel::T;
  c.file = "layer_norm.py";
  c.operator_name = "torch.nn.functional.layer_norm";
  c.instruction = InstructionKind::complex;
  c.sample = 2;
  c.code = "def f(): pass\n";
  c.code_error = "ignored";
  c.source = "ignored";
  json j = triton_solution_json(c);
  EXPECT_EQ(j, (json{{"channel", "T"},
                     {"file", "layer_norm.py"},
                     {"operator", "torch.nn.functional.layer_norm"},
                     {"code", "def f(): pass\n"},
                     {"sample", 2},
                     {"instruction", "complex"}}));
  EXPECT_EQ(parse_instruction_kind("comp"), InstructionKind::complex);
  EXPECT_EQ(parse_instruction_kind("simple"), InstructionKind::simple);
  EXPECT_FALSE(parse_instruction_kind("medium"));
}

// The real dataset: instructions as shipped, answers built from the reference code.
TEST(LlmGeneratedReal, RealInstructionsMatchTheirOperators) {
  if (!fs::is_directory(kData)) GTEST_SKIP() << "shared dataset missing: " << kData;
  const TritonBench bench = load_tritonbench(kData);
  TempDir dir;
  std::string text;
  std::vector<std::pair<const TritonOperator*, InstructionKind>> expected;
  for (const TritonOperator& op : bench.operators) {
    const InstructionKind k =
        expected.size() % 2 ? InstructionKind::complex : InstructionKind::simple;
    const std::string label = op.channel == TritonChannel::G
                                  ? op.statistics.at("output").get<std::string>()
                                  : std::string();
    text += line(instruction_of(op, k), "```python\n" + op.reference_code + "\n```", label);
    expected.push_back({&op, k});
  }
  testing::write_text(dir / "Bench_all.jsonl", text);
  LlmGeneratedFile f = read_llm_generated(dir / "Bench_all.jsonl", bench);
  EXPECT_TRUE(f.unmatched.empty());
  ASSERT_EQ(f.candidates.size(), 350u);
  int label_warnings = 0;
  for (size_t i = 0; i < f.candidates.size(); ++i) {
    const TritonCandidate& c = f.candidates[i];
    EXPECT_EQ(c.channel, expected[i].first->channel);
    EXPECT_EQ(c.file, expected[i].first->file);
    EXPECT_EQ(c.instruction, expected[i].second) << c.file;
    EXPECT_TRUE(c.code_error.empty()) << c.file << ": " << c.code_error;
    // The reference, whole: fifth_order_sph_harmonics.py holds a fenced example in a docstring,
    // which must not cut it.
    auto trim_end = [](std::string s) {
      while (!s.empty() && std::isspace(static_cast<unsigned char>(s.back()))) s.pop_back();
      return s;
    };
    EXPECT_EQ(trim_end(c.code), trim_end(expected[i].first->reference_code)) << c.file;
    for (const auto& w : c.warnings) label_warnings += w.find("label differs") != std::string::npos;
  }
  EXPECT_EQ(label_warnings, 0) << "the statistics' output is the reference, trailing space aside";

  // Rescoring: the candidates as a solutions file that `kjudge triton eval --solutions` reads,
  // each line back to its own operator (T's torch-path names included).
  std::string solutions;
  for (const TritonCandidate& c : f.candidates) solutions += triton_solution_json(c).dump() + "\n";
  testing::write_text(dir / "solutions.jsonl", solutions);
  std::vector<TritonSolution> read = read_triton_solutions(dir / "solutions.jsonl", bench);
  ASSERT_EQ(read.size(), 350u);
  for (size_t i = 0; i < read.size(); ++i) EXPECT_EQ(read[i].op, expected[i].first) << i;
}

}  // namespace
}  // namespace kjudge::triton
