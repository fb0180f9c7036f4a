// Names a built program or object defines that the judge's in-process code relies on: small
// programs compiled here with the host compiler, as a solution's would be linked.
#include "eval/symbol_scan.h"

#include <gtest/gtest.h>

#include <fstream>

#include "test_util.h"

namespace kjudge {
namespace {

namespace fs = std::filesystem;
using testing::run_capture;
using testing::TempDir;

// Compiles `source` into dir/name with `flags` ("-c" for an object).
fs::path build(const TempDir& dir, const std::string& name, const std::string& source,
               const std::string& flags = "") {
  const fs::path src = dir / (name + ".cpp"), out = dir / name;
  std::ofstream(src) << source;
  const auto r = run_capture("c++ -std=c++20 -O1 " + flags + " " + src.string() + " -o " +
                             out.string() + " 2>&1");
  EXPECT_EQ(r.rc, 0) << r.out;
  return out;
}

std::string joined(const std::vector<std::string>& v) {
  std::string s;
  for (const auto& x : v) s += x + "\n";
  return s;
}

const std::set<std::string>& relied() {
  static const std::set<std::string> names = judge_relied_names({});
  return names;
}

TEST(SymbolScan, TheCRuntimesNamesAreRelied) {
  for (const char* name : {"getenv", "write", "snprintf", "fcntl", "close", "getpid", "strtol",
                           "malloc", "dlsym", "clock_gettime", "__libc_start_main", "sin"})
    EXPECT_TRUE(relied().count(name)) << name;
  EXPECT_FALSE(relied().count("fill"));
  EXPECT_FALSE(relied().count("main"));
}

TEST(SymbolScan, AProgramThatDefinesGetenvOrWriteIsFound) {
  TempDir dir;
  const auto p = build(dir, "forge",
                       "#include <unistd.h>\n#include <cstdio>\n"
                       "extern \"C\" char* getenv(const char*) { return nullptr; }\n"
                       "extern \"C\" ssize_t write(int, const void*, size_t n) { return n; }\n"
                       "int main() { std::puts(\"x\"); }\n");
  const auto r = interposed_names(p, relied(), false);
  EXPECT_EQ(joined(r), "defines 'getenv'\ndefines 'write'\n");
}

TEST(SymbolScan, AnHonestProgramDefinesNoneAndCopiedVariablesAreTheLibrarys) {
  TempDir dir;
  // stdout, stderr and environ are libc's variables copied into the program (R_X86_64_COPY):
  // what the loader fills in, not a definition of the program's.
  const auto p = build(dir, "honest",
                       "#include <cstdio>\n#include <iostream>\n#include <string>\n"
                       "#include <thread>\n#include <vector>\n#include <cmath>\n"
                       "extern char** environ;\n"
                       "int main(int argc, char**) {\n"
                       "  std::string s(\"abc\"); std::vector<double> v(argc, 2.0);\n"
                       "  std::thread t([&] { v[0] = std::sin(v[0]); }); t.join();\n"
                       "  std::fprintf(stderr, \"%s %p\\n\", s.c_str(), (void*)environ);\n"
                       "  std::cout << v[0] << std::endl; fflush(stdout);\n}\n",
                       "-pthread");
  EXPECT_TRUE(interposed_names(p, relied(), false).empty())
      << joined(interposed_names(p, relied(), false));
}

TEST(SymbolScan, AHiddenDefinitionCountsWhereTheJudgesCodeIsLinkedIn) {
  TempDir dir;
  const std::string src =
      "#include <unistd.h>\n"
      "extern \"C\" __attribute__((visibility(\"hidden\"))) char* getenv(const char*) "
      "{ return nullptr; }\n"
      "int main() { return getenv(\"X\") != nullptr; }\n";
  // The loader cannot bind a preloaded library's getenv to a hidden definition…
  const auto p = build(dir, "hidden", src);
  EXPECT_TRUE(interposed_names(p, relied(), false).empty());
  // …but the static linker binds a harness's calls in the same program to it.
  const auto o = build(dir, "hidden.o", src, "-c");
  EXPECT_EQ(joined(interposed_names(o, relied(), true)), "defines 'getenv'\n");
}

TEST(SymbolScan, WhatTheJudgesObjectsImportIsRelied) {
  TempDir dir;
  // A "harness" that reads the host clock through libstdc++, and a "submission" that defines it.
  const auto harness = build(dir, "harness.o",
                             "#include <chrono>\n"
                             "long long stamp() { return std::chrono::steady_clock::now()"
                             ".time_since_epoch().count(); }\n",
                             "-c");
  const auto names = judge_relied_names({harness});
  EXPECT_TRUE(names.count("_ZNSt6chrono3_V212steady_clock3nowEv"));
  // What the judge's code calls and no library defines is what a solution is there to provide.
  const auto api = build(dir, "api.o",
                         "int custom_kernel(int);\nint run() { return custom_kernel(1); }\n", "-c");
  EXPECT_FALSE(judge_relied_names({api}).count("_Z13custom_kerneli"));
  const auto cheat = build(dir, "cheat.o",
                           "#include <chrono>\n"
                           "namespace std::chrono { inline namespace _V2 {\n"
                           "steady_clock::time_point steady_clock::now() noexcept "
                           "{ return time_point(duration(1)); } } }\n",
                           "-c");
  EXPECT_EQ(joined(interposed_names(cheat, names, true)),
            "defines '_ZNSt6chrono3_V212steady_clock3nowEv'\n");
  const auto honest = build(dir, "honest.o",
                            "#include <chrono>\n#include <string>\n"
                            "std::string f() { return std::to_string("
                            "std::chrono::steady_clock::now().time_since_epoch().count()); }\n",
                            "-c");
  EXPECT_TRUE(interposed_names(honest, names, true).empty())
      << joined(interposed_names(honest, names, true));
}

TEST(SymbolScan, AFileThatIsNoElfIsAnErrorNamingIt) {
  TempDir dir;
  std::ofstream(dir / "text") << "#!/bin/sh\nexit 0\n";
  try {
    interposed_names(dir / "text", relied(), false);
    FAIL() << "no error";
  } catch (const std::runtime_error& e) {
    EXPECT_NE(std::string(e.what()).find((dir / "text").string()), std::string::npos) << e.what();
  }
  // A judge library that cannot be read adds nothing; the C runtime's names are still there.
  EXPECT_TRUE(judge_relied_names({dir / "text", dir / "missing.so"}).count("write"));
}

}  // namespace
}  // namespace kjudge
