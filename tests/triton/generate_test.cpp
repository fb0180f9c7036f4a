// `kjudge generate --tritonbench` end to end through the real binary, against the fake API
// server (tests/fake_llm_server.py): the prompts that go over the wire (the shipped instruction,
// our system message, a one-shot example that is never the operator itself, never test or
// reference code), the Triton solutions JSONL that comes back, and the options that must be
// refused before any request.
#include <gtest/gtest.h>

#include <fstream>
#include <nlohmann/json.hpp>
#include <set>

#include "fake_llm_server.h"
#include "test_util.h"
#include "triton/candidates/llm_generated.h"
#include "triton/candidates/prompt.h"
#include "triton/candidates/solutions.h"
#include "triton/data/tritonbench.h"
#include "triton_mini_bench.h"

namespace kjudge::triton {
namespace {

namespace fs = std::filesystem;
using nlohmann::json;

const fs::path kSource = KJUDGE_SOURCE_DIR;
const std::string kBin = KJUDGE_BINARY;
const fs::path kData = kSource / "../shared/datasets/tritonbench";
const char* kKey = "sk-test-0123456789abcdefWXYZ";

testing::CmdResult sh(const std::string& command) {
  return testing::run_capture("cd '" + kSource.string() + "' && " + command);
}

class TritonGenerate : public ::testing::Test {
 protected:
  void SetUp() override {
    testing::write_mini_tritonbench(dir_ / "tb");
    // vector_add answers with its code in a fenced block, softmax with prose only, relu with
    // two unnamed blocks (upstream's rule takes the last), the rest get the canned answer.
    json answers = json::array();
    // relu first: the fake server answers by the first substring found in the user message,
    // and a one-shot prompt also holds the example's instruction.
    answers.push_back({"rectified linear unit",
                       "Draft:\n```python\ndef relu(x): pass\n```\nFinal:\n```python\n"
                       "def relu(x):\n    return x.clamp(min=0)\n```\n"});
    answers.push_back({"adds two vectors elementwise",
                       "Here you go.\n```python\ndef add(x, y):\n    return x + y\n```\n"});
    answers.push_back({"adds them elementwise and stores the sum",
                       "```python\ndef add(x, y):\n    return x + y\n```<|im_end|>"});
    answers.push_back({"row-wise softmax", "I would rather not."});
    testing::write_text(dir_ / "answers.json", answers.dump());
  }
  void start_server() {
    server_.start("--answers " + (dir_ / "answers.json").string() + " --log " +
                  (dir_ / "log.jsonl").string() + " --expect-key " + kKey);
  }
  std::string generate(const std::string& out, const std::string& extra,
                       const std::string& bench = "") const {
    return "env OPENAI_API_KEY=" + std::string(kKey) + " " + kBin + " generate --tritonbench " +
           (bench.empty() ? (dir_ / "tb").string() : bench) + " --model fake-coder --base-url " +
           server_.base_url() + " --out " + out + " --env-file /nonexistent -q " + extra;
  }
  // The user and system messages of each logged request.
  std::vector<std::pair<std::string, std::string>> prompts() const {
    std::vector<std::pair<std::string, std::string>> out;
    for (const json& req : testing::read_jsonl(dir_ / "log.jsonl")) {
      std::string system, user;
      for (const json& m : req["body"]["messages"]) {
        if (m["role"] == "system") system = m["content"];
        if (m["role"] == "user") user = m["content"];
      }
      out.push_back({system, user});
    }
    return out;
  }

  testing::TempDir dir_;
  testing::FakeLlmServer server_;
};

TEST_F(TritonGenerate, ZeroShotAsksWithTheShippedInstructionAndWritesSolutions) {
  start_server();
  const fs::path out = dir_ / "gen";
  testing::CmdResult g = sh(generate(out.string(), "--channel G --samples 2 --workers 3"));
  ASSERT_EQ(g.rc, 0) << g.out;

  // Over the wire: our system message, the instruction exactly as shipped, nothing else.
  std::set<std::string> expected_users;
  for (const auto& op : testing::kMiniG) expected_users.insert(testing::mini_g_simple(op));
  auto sent = prompts();
  ASSERT_EQ(sent.size(), 6u);
  for (const auto& [system, user] : sent) {
    EXPECT_EQ(system, triton_default_templates().system);
    EXPECT_TRUE(expected_users.count(user)) << user;
    EXPECT_EQ(user.find("def test_x"), std::string::npos) << "test code reached the model";
    for (const auto& op : testing::kMiniG)
      EXPECT_EQ(user.find(op.code.substr(0, 80)), std::string::npos) << "reference code sent";
  }

  std::vector<json> lines = testing::read_jsonl(out / "triton-solutions.jsonl");
  ASSERT_EQ(lines.size(), 6u);
  std::map<std::pair<std::string, int>, json> by;
  for (const json& l : lines) {
    std::set<std::string> keys;
    for (const auto& [k, v] : l.items()) keys.insert(k);
    EXPECT_EQ(keys, (std::set<std::string>{"channel", "file", "operator", "code", "sample",
                                           "instruction"}));
    EXPECT_EQ(l["channel"], "G");
    EXPECT_EQ(l["instruction"], "simple");
    by[{l["file"], l["sample"]}] = l;
  }
  auto at = [&](const std::string& file, int sample) { return by[std::make_pair(file, sample)]; };
  EXPECT_EQ(at("vector_add.py", 0)["code"], "def add(x, y):\n    return x + y\n");
  EXPECT_EQ(at("vector_add.py", 1)["operator"], "vector_add");
  EXPECT_EQ(at("softmax_rows.py", 1)["code"], "") << "prose only: a failed candidate, kept";
  EXPECT_EQ(at("matmul_tiles.py", 0)["code"], "// fake-llm model=fake-coder messages=2\n")
      << "the canned answer's only block";

  // What `kjudge triton eval --solutions` reads: every line, to the right operator.
  const TritonBench bench = load_tritonbench(dir_ / "tb");
  std::vector<TritonSolution> read = read_triton_solutions(out / "triton-solutions.jsonl", bench);
  ASSERT_EQ(read.size(), 6u);
  for (const TritonSolution& r : read) EXPECT_EQ(r.op->channel, TritonChannel::G);
  EXPECT_EQ(read[0].op->file, "matmul_tiles.py");

  std::ifstream sin(out / "summary.json");
  json s = json::parse(sin);
  EXPECT_EQ(s["kind"], "kjudge-triton-generation-summary");
  EXPECT_EQ(s["operators"], 3);
  EXPECT_EQ(s["answers"], 6);
  EXPECT_EQ(s["missing"], 0);
  EXPECT_EQ(s["unusable_answers"], 2);
  EXPECT_TRUE(s["estimated_cost_usd"].is_null());
  EXPECT_EQ(testing::read_jsonl(out / "generation.jsonl").size(), 6u);
  EXPECT_TRUE(fs::exists(out / "answers/G_vector_add_py-s1.md"));
  for (const auto& f : fs::recursive_directory_iterator(out)) {
    if (f.is_regular_file()) {
      EXPECT_EQ(testing::read_text(f.path()).find(kKey), std::string::npos) << f.path();
    }
  }
}

TEST_F(TritonGenerate, OneShotShowsASimilarExampleNeverTheOperatorItself) {
  start_server();
  const fs::path out = dir_ / "gen";
  testing::CmdResult g =
      sh(generate(out.string(), "--instruction complex --one-shot " + (dir_ / "tb").string() +
                                    " --one-shot-db " + (dir_ / "index.sqlite").string()));
  ASSERT_EQ(g.rc, 0) << g.out;
  auto sent = prompts();
  ASSERT_EQ(sent.size(), 5u) << "3 G + 2 T operators";
  const TritonBench bench = load_tritonbench(dir_ / "tb");
  int with_example = 0;
  for (const auto& [system, user] : sent) {
    const size_t task = user.find("Now the task to solve:\n\n");
    ASSERT_NE(task, std::string::npos) << user;
    const std::string instruction = user.substr(task + 24);
    const TritonOperator* target = nullptr;
    for (const TritonOperator& op : bench.operators)
      if (op.complex_instruction == instruction) target = &op;
    ASSERT_NE(target, nullptr) << "the task part is the complex instruction as shipped";
    const std::string example = user.substr(0, task);
    EXPECT_NE(example.find("Example solution:\n```python\n"), std::string::npos);
    if (target->channel == TritonChannel::G) {
      EXPECT_EQ(example.find(target->reference_code.substr(0, 120)), std::string::npos)
          << target->file << " was shown its own code";
    }
    EXPECT_EQ(example.find(target->complex_instruction), std::string::npos);
    ++with_example;
  }
  EXPECT_EQ(with_example, 5);
  std::ifstream oin(out / "one-shot.json");
  json chosen = json::parse(oin);
  EXPECT_EQ(chosen.size(), 5u);
  EXPECT_NE(chosen["G/softmax_rows.py"].get<std::string>().find("TritonBench G/"),
            std::string::npos);
  EXPECT_EQ(chosen["G/softmax_rows.py"].get<std::string>().find("softmax_rows"), std::string::npos);
  EXPECT_TRUE(fs::exists(dir_ / "index.sqlite"));

  std::vector<json> lines = testing::read_jsonl(out / "triton-solutions.jsonl");
  ASSERT_EQ(lines.size(), 5u);
  EXPECT_EQ(read_triton_solutions(out / "triton-solutions.jsonl", bench).size(), 5u)
      << "T operators named by their torch path are found too";
  for (const json& l : lines) {
    EXPECT_EQ(l["instruction"], "complex");
    if (l["file"] == "relu.py") {
      EXPECT_EQ(l["channel"], "T");
      EXPECT_EQ(l["code"], "def relu(x):\n    return x.clamp(min=0)\n") << "the last block";
    }
    if (l["file"] == "vector_add.py") {
      EXPECT_EQ(l["code"], "def add(x, y):\n    return x + y\n");
    }
  }
}

TEST_F(TritonGenerate, FiltersAndResumeSettings) {
  start_server();
  const fs::path out = dir_ / "gen";
  testing::CmdResult g = sh(generate(out.string(), "--task softmax_rows --task T/relu.py --json"));
  ASSERT_EQ(g.rc, 0) << g.out;
  std::vector<json> lines = testing::read_jsonl(out / "triton-solutions.jsonl");
  ASSERT_EQ(lines.size(), 2u);
  std::set<std::string> files;
  for (const json& l : lines) files.insert(l["file"]);
  EXPECT_EQ(files, (std::set<std::string>{"softmax_rows.py", "relu.py"}));

  // The same run again: refused without --resume; with it, nothing new is asked.
  testing::CmdResult again = sh(generate(out.string(), "--task softmax_rows --task T/relu.py"));
  EXPECT_NE(again.rc, 0);
  EXPECT_NE(again.out.find("--resume"), std::string::npos) << again.out;
  testing::CmdResult resumed =
      sh(generate(out.string(), "--task softmax_rows --task T/relu.py --resume"));
  EXPECT_EQ(resumed.rc, 0) << resumed.out;
  EXPECT_EQ(prompts().size(), 2u);
  // Resuming with another instruction kind would mix prompts: refused.
  testing::CmdResult mixed = sh(generate(
      out.string(), "--task softmax_rows --task T/relu.py --resume --instruction complex"));
  EXPECT_EQ(mixed.rc, 2) << mixed.out;
  EXPECT_NE(mixed.out.find("triton-run.json"), std::string::npos) << mixed.out;
  // The one --resume check (core/run_identity.h) names the option and both values.
  EXPECT_NE(mixed.out.find("--instruction (was \"simple\", now \"complex\")"), std::string::npos)
      << mixed.out;
  EXPECT_EQ(prompts().size(), 2u);
}

TEST_F(TritonGenerate, BadOptionsFailBeforeAnyRequest) {
  start_server();
  const std::string out = (dir_ / "gen").string();
  struct Case {
    std::string extra, says;
  };
  for (const Case& c : std::vector<Case>{
           {"--task no_such_op", "no TritonBench operator named 'no_such_op'"},
           {"--turns 2", "--turns"},
           {"--problems examples/pack", "either --problems or --tritonbench"},
           {"--channel X", "--channel"},
           {"--instruction medium", "--instruction"},
           {"--one-shot " + (dir_ / "absent.jsonl").string(), "absent.jsonl"},
       }) {
    testing::CmdResult r = sh(generate(out, c.extra));
    EXPECT_EQ(r.rc, 2) << c.extra << "\n" << r.out;
    EXPECT_NE(r.out.find(c.says), std::string::npos) << c.extra << "\n" << r.out;
  }
  testing::CmdResult r = sh(generate(out, "", (dir_ / "nothing-here").string()));
  EXPECT_EQ(r.rc, 2) << r.out;
  EXPECT_NE(r.out.find("nothing-here"), std::string::npos) << r.out;
  testing::CmdResult neither =
      sh("env OPENAI_API_KEY=x " + kBin + " generate --model m --out " + out + " -q");
  EXPECT_EQ(neither.rc, 2) << neither.out;
  EXPECT_NE(neither.out.find("--tritonbench"), std::string::npos) << neither.out;
  EXPECT_TRUE(prompts().empty()) << "no request was made";
}

TEST_F(TritonGenerate, RealDatasetPromptIsTheShippedInstruction) {
  if (!fs::is_directory(kData)) GTEST_SKIP() << "shared dataset missing: " << kData;
  start_server();
  const fs::path out = dir_ / "gen";
  testing::CmdResult g = sh(generate(
      out.string(), "--task add_example --task torch.div --instruction complex", kData.string()));
  ASSERT_EQ(g.rc, 0) << g.out;
  const TritonBench bench = load_tritonbench(kData);
  std::set<std::string> expected = {bench.find("add_example")->complex_instruction,
                                    bench.find("torch.div")->complex_instruction};
  auto sent = prompts();
  ASSERT_EQ(sent.size(), 2u);
  for (const auto& [system, user] : sent) EXPECT_TRUE(expected.count(user)) << user;
  std::vector<json> lines = testing::read_jsonl(out / "triton-solutions.jsonl");
  ASSERT_EQ(lines.size(), 2u);
  EXPECT_EQ(lines[0]["file"], "add_example.py");
  EXPECT_EQ(lines[1]["file"], "div.py");
  EXPECT_EQ(lines[1]["operator"], "torch.div");
}

}  // namespace
}  // namespace kjudge::triton
