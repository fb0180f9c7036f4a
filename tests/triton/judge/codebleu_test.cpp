// CodeBLEU through python/codebleu_score.py: every way it can be unavailable is reported as
// such with a reason (never a number), and the real score where the `codebleu` package imports
// (KJUDGE_CODEBLEU_PYTHON names such an interpreter; else python3, skipped without the package).
#include "triton/judge/codebleu.h"

#include <gtest/gtest.h>
#include <sys/stat.h>

#include <cstdlib>

#include "test_util.h"
#include "triton_mini_bench.h"

namespace kjudge::triton {
namespace {

namespace fs = std::filesystem;
using testing::TempDir;

const fs::path kScript = fs::path(KJUDGE_SOURCE_DIR) / "python/codebleu_score.py";

const std::vector<CodeBleuPair> kPair = {
    {"def add(a, b):\n    return a + b\n", "def add(a, b):\n    return a + b\n"}};

void write_executable(const fs::path& p, const std::string& text) {
  testing::write_text(p, text);
  chmod(p.c_str(), 0755);
}

TEST(CodeBleu, NoPairsIsUnavailable) {
  CodeBleuResult r = codebleu_score({}, {.script = kScript});
  EXPECT_FALSE(r.available);
  EXPECT_NE(r.reason.find("no candidate"), std::string::npos) << r.reason;
}

TEST(CodeBleu, MissingScriptOrPythonIsUnavailable) {
  CodeBleuResult r = codebleu_score(kPair, {.script = "/nonexistent/codebleu_score.py"});
  EXPECT_FALSE(r.available);
  EXPECT_NE(r.reason.find("does not exist"), std::string::npos) << r.reason;

  r = codebleu_score(kPair, {.python = "/nonexistent/python3", .script = kScript});
  EXPECT_FALSE(r.available);
  EXPECT_FALSE(r.reason.empty());
  EXPECT_EQ(r.codebleu, 0.0);
}

// python3 -S leaves site-packages off sys.path: the package cannot import whether or not it is
// installed, so this path is tested everywhere.
TEST(CodeBleu, PackageThatDoesNotImportIsUnavailable) {
  TempDir dir;
  write_executable(dir / "py", "#!/bin/sh\nexec python3 -S \"$@\"\n");
  CodeBleuResult r = codebleu_score(kPair, {.python = (dir / "py").string(), .script = kScript});
  EXPECT_FALSE(r.available);
  EXPECT_NE(r.reason.find("does not import"), std::string::npos) << r.reason;
  EXPECT_EQ(r.pairs, 1u);
}

TEST(CodeBleu, BrokenHelperIsUnavailableNotAScore) {
  TempDir dir;
  struct Case {
    std::string script, says;
  };
  for (const Case& c : std::vector<Case>{
           {"import sys\nsys.exit(3)\n", "exited with 3"},
           {"import sys\nopen(sys.argv[2], 'w').write('not json')\n", "no readable result"},
           {"import sys, json\njson.dump({'available': True, 'codebleu': 0.9}, "
            "open(sys.argv[2], 'w'))\n",
            "incomplete"},
           {"import sys, json\njson.dump({'available': False, 'reason': 'grammar missing'}, "
            "open(sys.argv[2], 'w'))\n",
            "grammar missing"},
           {"import time\ntime.sleep(30)\n", "ran past"},
       }) {
    testing::write_text(dir / "helper.py", c.script);
    CodeBleuResult r = codebleu_score(kPair, {.script = dir / "helper.py", .timeout_s = 2});
    EXPECT_FALSE(r.available) << c.script;
    EXPECT_NE(r.reason.find(c.says), std::string::npos) << c.script << "\n" << r.reason;
  }
}

TEST(CodeBleu, PairsAreTheGCandidatesWithTheirReference) {
  TempDir dir;
  testing::write_mini_tritonbench(dir / "tb");
  const TritonBench bench = load_tritonbench(dir / "tb");
  TritonCandidate g;
  g.channel = TritonChannel::G;
  g.file = "softmax_rows.py";
  g.code = "def softmax(x): pass\n";
  TritonCandidate t = g;
  t.channel = TritonChannel::T;
  t.file = "relu.py";
  TritonCandidate unknown = g;
  unknown.file = "nope.py";
  std::vector<CodeBleuPair> pairs = codebleu_pairs({g, t, unknown}, bench);
  ASSERT_EQ(pairs.size(), 1u);
  EXPECT_EQ(pairs[0].reference, testing::kMiniG[1].code);
  EXPECT_EQ(pairs[0].hypothesis, g.code);
}

TEST(CodeBleu, RealScoreWhereThePackageImports) {
  const char* env = std::getenv("KJUDGE_CODEBLEU_PYTHON");
  const std::string python = env && *env ? env : "python3";
  CodeBleuResult same = codebleu_score(kPair, {.python = python, .script = kScript});
  if (!same.available)
    GTEST_SKIP() << "codebleu unavailable with " << python << ": " << same.reason;
  EXPECT_DOUBLE_EQ(same.codebleu, 1.0);
  EXPECT_DOUBLE_EQ(same.syntax_match, 1.0);
  EXPECT_FALSE(same.package_version.empty());

  std::vector<CodeBleuPair> pairs = {
      kPair[0], {"def add(a, b):\n    return a + b\n", "def mul(x, y):\n    return x * y\n"}};
  CodeBleuResult two =
      codebleu_score(pairs, {.python = python, .script = kScript, .per_pair = true});
  ASSERT_TRUE(two.available) << two.reason;
  ASSERT_EQ(two.per_pair.size(), 2u);
  EXPECT_DOUBLE_EQ(two.per_pair[0], 1.0);
  EXPECT_LT(two.per_pair[1], 1.0);
  EXPECT_GT(two.per_pair[1], 0.0);
  EXPECT_LT(two.codebleu, 1.0);
  EXPECT_GT(two.codebleu, two.per_pair[1]);
}

}  // namespace
}  // namespace kjudge::triton
