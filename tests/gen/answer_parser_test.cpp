#include "gen/answer_parser.h"

#include <gtest/gtest.h>

#include <string>

namespace kjudge {
namespace {

// True if some warning contains `part`.
bool warned(const ParsedAnswer& a, const std::string& part) {
  for (const std::string& w : a.warnings)
    if (w.find(part) != std::string::npos) return true;
  return false;
}

std::string paths(const ParsedAnswer& a) {
  std::string out;
  for (const SourceFile& f : a.files) out += (out.empty() ? "" : ",") + f.path;
  return out;
}

TEST(ParseAnswer, ProseAndTwoFiles) {
  const std::string answer =
      "Here is the solution. First the header:\n\n"
      "```cpp\n"
      "// file: include/kernel.h\n"
      "#pragma once\n"
      "void launch(float* x, int n);\n"
      "```\n\n"
      "And the kernel:\n"
      "```cuda\n"
      "// file: solution.cu\n"
      "#include \"kernel.h\"\n"
      "__global__ void k(float* x, int n) {}\n"
      "```\n"
      "This uses a grid-stride loop.\n";
  const ParsedAnswer a = parse_answer(answer, "solution.cu");
  EXPECT_EQ(a.error, "");
  EXPECT_TRUE(a.warnings.empty()) << a.warnings[0];
  ASSERT_EQ(a.files.size(), 2u);
  EXPECT_EQ(a.files[0].path, "include/kernel.h");
  EXPECT_EQ(a.files[0].content, "#pragma once\nvoid launch(float* x, int n);\n");
  EXPECT_EQ(a.files[1].path, "solution.cu");
  EXPECT_EQ(a.files[1].content, "#include \"kernel.h\"\n__global__ void k(float* x, int n) {}\n");
}

TEST(ParseAnswer, PathCommentForms) {
  const std::pair<std::string, std::string> cases[] = {
      {"// file: a/b.cu", "a/b.cu"},       {"// a/b.cu", "a/b.cu"},
      {"/* file: a/b.cu */", "a/b.cu"},    {"/* a/b.cu */", "a/b.cu"},
      {"# file: a/b.py", "a/b.py"},        {"# a/b.py", "a/b.py"},
      {"; file: a/b.s", "a/b.s"},          {"// File: a/b.cu", "a/b.cu"},
      {"// filename: a/b.cu", "a/b.cu"},   {"// FILE: `a/b.cu`", "a/b.cu"},
      {"  //file:a/b.cu  ", "a/b.cu"},     {"// file: ./a/b.cu", "a/b.cu"},
      {"// file: a/b.cu (new)", "a/b.cu"}, {"// file: \"my dir/b.cu\"", "my dir/b.cu"},
  };
  for (const auto& [line, path] : cases) {
    const ParsedAnswer a = parse_answer("```\n" + line + "\nint x;\n```\n", "solution.cu");
    ASSERT_EQ(a.files.size(), 1u) << line;
    EXPECT_EQ(a.files[0].path, path) << line;
    EXPECT_EQ(a.files[0].content, "int x;\n") << line;
    EXPECT_TRUE(a.warnings.empty()) << line << ": " << a.warnings[0];
  }
}

TEST(ParseAnswer, CommentsThatAreNotPaths) {
  // Ordinary first lines stay code; the single block becomes the expected file.
  for (const std::string line : {"#include <cuda_runtime.h>", "#pragma once", "// Sum kernel",
                                 "// v1.2", "#!/usr/bin/env python3", "# -*- coding: utf-8 -*-",
                                 "// see https://x.org/a.cu", "// thrust::sort"}) {
    const ParsedAnswer a = parse_answer("```cuda\n" + line + "\nint x;\n```", "solution.cu");
    ASSERT_EQ(a.files.size(), 1u) << line;
    EXPECT_EQ(a.files[0].path, "solution.cu") << line;
    EXPECT_EQ(a.files[0].content, line + "\nint x;\n");
    EXPECT_TRUE(warned(a, "names no file")) << line;
  }
}

TEST(ParseAnswer, InfoStringForms) {
  const std::pair<std::string, std::string> cases[] = {
      {"```cuda file=k.cu", "k.cu"},    {"```cpp title=\"src/k.cpp\"", "src/k.cpp"},
      {"```cuda src/k.cu", "src/k.cu"}, {"```k.cu", "k.cu"},
      {"```cuda:src/k.cu", "src/k.cu"}, {"```{.cpp file=\"k.cpp\"}", "k.cpp"},
  };
  for (const auto& [fence, path] : cases) {
    const ParsedAnswer a = parse_answer(fence + "\n// first line\nint x;\n```\n", "solution.cu");
    ASSERT_EQ(a.files.size(), 1u) << fence;
    EXPECT_EQ(a.files[0].path, path) << fence;
    EXPECT_EQ(a.files[0].content, "// first line\nint x;\n") << fence;
  }
  // A path comment wins over the info string, and its line is removed.
  const ParsedAnswer a = parse_answer("```cuda other.cu\n// file: k.cu\nint x;\n```", "s.cu");
  EXPECT_EQ(paths(a), "k.cu");
  EXPECT_EQ(a.files[0].content, "int x;\n");
}

TEST(ParseAnswer, LanguageTagsAndTildeFences) {
  const std::string answer =
      "```c++\n// file: a.cpp\nint a;\n```\n"
      "~~~cuda\n// file: b.cu\nint b;\n~~~\n"
      "````cpp title=\"c.cpp\"\n// file: c.cpp\nint c;\n````\n";
  const ParsedAnswer a = parse_answer(answer, "solution.cu");
  EXPECT_EQ(paths(a), "a.cpp,b.cu,c.cpp");
  EXPECT_EQ(a.files[1].content, "int b;\n");
}

TEST(ParseAnswer, NestedBackticksInsideTildeBlock) {
  const std::string answer =
      "~~~cuda\n"
      "// file: doc.h\n"
      "// Usage:\n"
      "// ```\n"
      "```cpp\n"
      "int inner;\n"
      "```\n"
      "~~~\n";
  const ParsedAnswer a = parse_answer(answer, "solution.cu");
  ASSERT_EQ(a.files.size(), 1u);
  EXPECT_EQ(a.files[0].content, "// Usage:\n// ```\n```cpp\nint inner;\n```\n");
  // A closing fence needs at least the opening's length.
  const ParsedAnswer b = parse_answer("````\n// file: x.cu\n```\nint y;\n````\n", "s.cu");
  EXPECT_EQ(b.files.at(0).content, "```\nint y;\n");
}

TEST(ParseAnswer, IndentedBlockInAListItem) {
  const ParsedAnswer a = parse_answer(
      "1. The kernel:\n   ```cuda\n   // file: k.cu\n   int x;\n     int y;\n   ```\n", "s.cu");
  EXPECT_EQ(paths(a), "k.cu");
  EXPECT_EQ(a.files[0].content, "int x;\n  int y;\n");
}

TEST(ParseAnswer, CrlfLineEnds) {
  const ParsedAnswer a = parse_answer("```cuda\r\n// file: k.cu\r\nint x;\r\n```\r\n", "s.cu");
  EXPECT_EQ(paths(a), "k.cu");
  EXPECT_EQ(a.files[0].content, "int x;\n");
}

TEST(ParseAnswer, TruncatedAnswer) {
  const ParsedAnswer a = parse_answer(
      "```cuda\n// file: a.cu\nint a;\n```\n```cuda\n// file: b.cu\n__global__ void k() {\n  int",
      "a.cu");
  EXPECT_EQ(a.error, "");
  EXPECT_EQ(paths(a), "a.cu,b.cu");
  EXPECT_EQ(a.files[1].content, "__global__ void k() {\n  int\n");
  EXPECT_TRUE(warned(a, "the last code block is not closed (the answer may be truncated)"));
}

TEST(ParseAnswer, UnsafePathsAreDropped) {
  const std::string answer =
      "```cuda\n// file: ../../etc/passwd\nroot::0:0\n```\n"
      "```cuda\n// file: /abs/path.cu\nint a;\n```\n"
      "```cuda\n// file: ok.cu\nint ok;\n```\n";
  const ParsedAnswer a = parse_answer(answer, "solution.cu");
  EXPECT_EQ(a.error, "");
  EXPECT_EQ(paths(a), "ok.cu");
  EXPECT_TRUE(warned(a, "'../../etc/passwd'"));
  EXPECT_TRUE(warned(a, "leaves the workspace"));
  EXPECT_TRUE(warned(a, "'/abs/path.cu'"));
  EXPECT_TRUE(warned(a, "absolute"));
}

TEST(ParseAnswer, OnlyUnsafePathsIsAnError) {
  const std::string too_long(300, 'a');
  const std::pair<std::string, std::string> cases[] = {
      {"../../etc/passwd", "leaves the workspace"},
      {"a/../../x.cu", "leaves the workspace"},
      {"/abs/path", "absolute"},
      {"C:\\x\\k.cu", "backslash"},
      {"a\x01"
       "b.cu",
       "control character"},
      {too_long + ".cu", "longer than 255"},
      {"dir/", "directory"},
      {".", "names no file"},
  };
  for (const auto& [path, why] : cases) {
    const ParsedAnswer a = parse_answer("```\n// file: " + path + "\nint x;\n```\n", "s.cu");
    EXPECT_TRUE(a.files.empty()) << path;
    EXPECT_NE(a.error.find(why), std::string::npos) << path << ": " << a.error;
  }
  // The control character is shown escaped, so the warning stays one printable line.
  EXPECT_NE(parse_answer("```\n// file: a\x01"
                         "b.cu\nx\n```",
                         "s.cu")
                .warnings.at(0)
                .find("\\x01"),
            std::string::npos);
  // An empty label names nothing usable either.
  EXPECT_NE(parse_answer("```\n// file:\nint x;\n```", "s.cu").error.find("empty"),
            std::string::npos);
}

TEST(ParseAnswer, NulInPathIsDropped) {
  std::string answer = "```\n// file: a.cu";
  answer += '\0';
  answer += "x\nint x;\n```\n";
  const ParsedAnswer a = parse_answer(answer, "s.cu");
  EXPECT_TRUE(a.files.empty());
  EXPECT_NE(a.error.find("NUL"), std::string::npos) << a.error;
}

TEST(ParseAnswer, DuplicatePathsKeepTheLast) {
  const ParsedAnswer a = parse_answer(
      "```cuda\n// file: k.cu\nint v1;\n```\n```cuda\n// file: h.h\nint h;\n```\n"
      "Fixed version:\n```cuda\n// file: ./k.cu\nint v2;\n```\n",
      "k.cu");
  EXPECT_EQ(paths(a), "k.cu,h.h");
  EXPECT_EQ(a.files[0].content, "int v2;\n");
  EXPECT_TRUE(warned(a, "replaces an earlier one"));
}

TEST(ParseAnswer, SingleUnnamedBlockIsTheExpectedFile) {
  const ParsedAnswer a = parse_answer("Sure!\n```cuda\n__global__ void k() {}\n```\nDone.", "s.cu");
  EXPECT_EQ(paths(a), "s.cu");
  EXPECT_EQ(a.files[0].content, "__global__ void k() {}\n");
  EXPECT_TRUE(warned(a, "names no file; it was taken as 's.cu'"));
}

TEST(ParseAnswer, SeveralBlocksOneUnnamed) {
  // The unnamed one fills the missing expected file.
  const ParsedAnswer a = parse_answer(
      "```cpp\n// file: include/k.h\nvoid f();\n```\n```cuda\nvoid f() {}\n```\n", "solution.cu");
  EXPECT_EQ(paths(a), "include/k.h,solution.cu");
  EXPECT_TRUE(warned(a, "taken as 'solution.cu'"));
  // The expected file is already there: the unnamed block is dropped.
  const ParsedAnswer b = parse_answer(
      "```cuda\n// file: solution.cu\nint s;\n```\n```cuda\nint stray;\n```\n", "solution.cu");
  EXPECT_EQ(paths(b), "solution.cu");
  EXPECT_TRUE(warned(b, "dropped a code block that names no file (cuda)"));
  // Two unnamed blocks: which one is meant is unknowable, so both are dropped.
  const ParsedAnswer c = parse_answer(
      "```cuda\n// file: k.h\nint h;\n```\n```cuda\nint a;\n```\n```cuda\nint b;\n```\n", "s.cu");
  EXPECT_EQ(paths(c), "k.h");
  EXPECT_EQ(c.warnings.size(), 2u);
  // A shell command beside the code is never taken for the solution.
  const ParsedAnswer d = parse_answer(
      "```cuda\n// file: k.cu\nint k;\n```\nBuild with:\n```bash\nnvcc -o t k.cu\n```\n", "s.cu");
  EXPECT_EQ(paths(d), "k.cu");
  EXPECT_TRUE(warned(d, "(bash)"));
}

TEST(ParseAnswer, UnnamedBlocksOnlyIsAnError) {
  const ParsedAnswer a = parse_answer("```bash\nnvcc -o t k.cu\n```\n", "s.cu");
  EXPECT_TRUE(a.files.empty());
  EXPECT_NE(a.error.find("names no file"), std::string::npos) << a.error;
}

TEST(ParseAnswer, BareCodeWithoutFences) {
  const ParsedAnswer a = parse_answer("#include <cstdio>\n__global__ void k() {}\n", "s.cu");
  EXPECT_EQ(paths(a), "s.cu");
  EXPECT_EQ(a.files[0].content, "#include <cstdio>\n__global__ void k() {}\n");
  EXPECT_TRUE(warned(a, "no code fences"));
  // A path comment on its first line is still honoured.
  const ParsedAnswer b = parse_answer("# file: pkg/k.py\ndef k():\n    pass", "s.py");
  EXPECT_EQ(paths(b), "pkg/k.py");
  EXPECT_EQ(b.files[0].content, "def k():\n    pass\n");
}

TEST(ParseAnswer, ProseOnlyAndEmptyAnswers) {
  EXPECT_EQ(parse_answer("I cannot help with that.", "s.cu").error,
            "the answer holds no code block");
  EXPECT_EQ(parse_answer("", "s.cu").error, "the answer is empty");
  EXPECT_EQ(parse_answer(" \n\n", "s.cu").error, "the answer is empty");
  EXPECT_TRUE(parse_answer("", "s.cu").files.empty());
}

TEST(ParseAnswer, ThinkingIsStripped) {
  const std::string answer =
      "<think>\nMaybe:\n```cuda\n// file: draft.cu\nint draft;\n```\nNo, better:\n</think>\n\n"
      "```cuda\n// file: k.cu\nint k;\n```\n";
  const ParsedAnswer a = parse_answer(answer, "s.cu");
  EXPECT_EQ(paths(a), "k.cu");
  EXPECT_TRUE(a.warnings.empty());
  // Only the closing tag (the opening one was part of the chat template).
  const ParsedAnswer b =
      parse_answer("Let me think.\n</think>\n```cuda\n// file: k.cu\nint k;\n```", "s.cu");
  EXPECT_EQ(paths(b), "k.cu");
  EXPECT_TRUE(warned(b, "</think> without <think>"));
  // Truncated inside the reasoning, or nothing after it.
  EXPECT_NE(parse_answer("<think>\nhmm ```cuda\n", "s.cu").error.find("inside its <think>"),
            std::string::npos);
  EXPECT_EQ(parse_answer("<think>x</think>\n", "s.cu").error,
            "the answer holds nothing after its reasoning");
}

}  // namespace
}  // namespace kjudge
