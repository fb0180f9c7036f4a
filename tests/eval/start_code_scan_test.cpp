// What a built program runs before the harness takes its channel: small programs compiled here
// with the host compiler, with the harness's channel header (its one .preinit_array entry) and
// what a submission could add: a second entry, an IFUNC (symbol kept, or stripped down to its
// IRELATIVE relocation). And files that are not programs: an error naming the file.
#include "eval/start_code_scan.h"

#include <gtest/gtest.h>

#include <fstream>

#include "test_util.h"

namespace kjudge {
namespace {

namespace fs = std::filesystem;
using testing::run_capture;
using testing::TempDir;

const std::string kHarness = std::string(KJUDGE_SOURCE_DIR) + "/harness";

// Compiles `source` (with the channel header on the include path) into dir/name.
fs::path build(const TempDir& dir, const std::string& name, const std::string& source) {
  const fs::path src = dir / (name + ".cpp"), out = dir / name;
  std::ofstream(src) << source;
  const auto r = run_capture("c++ -std=c++20 -O2 -I" + kHarness + " " + src.string() + " -o " +
                             out.string() + " 2>&1");
  EXPECT_EQ(r.rc, 0) << r.out;
  return out;
}

std::string joined(const std::vector<std::string>& v) {
  std::string s;
  for (const auto& x : v) s += x + "\n";
  return s;
}

TEST(StartCodeScan, TheHarnessEntryAloneIsClean) {
  TempDir dir;
  const auto p = build(dir, "clean", "#include \"kjudge/channel.h\"\nint main() {}\n");
  EXPECT_TRUE(code_before_harness(p).empty()) << joined(code_before_harness(p));
}

TEST(StartCodeScan, ASecondPreinitEntryIsRefused) {
  TempDir dir;
  const auto p = build(dir, "two", R"(#include "kjudge/channel.h"
static void early(int, char**, char**) {}
[[gnu::section(".preinit_array"), gnu::used]] static void (*e2)(int, char**, char**) = early;
int main() {}
)");
  const auto r = code_before_harness(p);
  ASSERT_EQ(r.size(), 1u) << joined(r);
  EXPECT_NE(r[0].find(".preinit_array holds 2 entries"), std::string::npos) << r[0];
}

TEST(StartCodeScan, AMissingHarnessEntryIsNamed) {
  TempDir dir;
  const auto p = build(dir, "none", "int main() {}\n");
  const auto r = code_before_harness(p);
  ASSERT_EQ(r.size(), 1u) << joined(r);
  EXPECT_NE(r[0].find("entry is missing"), std::string::npos) << r[0];
}

TEST(StartCodeScan, AnIfuncIsRefusedEvenStripped) {
  TempDir dir;
  const auto p = build(dir, "ifunc", R"(#include "kjudge/channel.h"
extern "C" int impl() { return 0; }
extern "C" void* resolve_it() { return reinterpret_cast<void*>(impl); }
extern "C" int sneaky() __attribute__((ifunc("resolve_it")));
int main() { return sneaky(); }
)");
  auto r = code_before_harness(p);
  ASSERT_EQ(r.size(), 1u) << joined(r);
  EXPECT_NE(r[0].find("IFUNC symbols (sneaky)"), std::string::npos) << r[0];
  const auto s = run_capture("strip -o " + (dir / "stripped").string() + " " + p.string());
  ASSERT_EQ(s.rc, 0) << s.out;
  r = code_before_harness(dir / "stripped");
  ASSERT_EQ(r.size(), 1u) << joined(r);
  EXPECT_NE(r[0].find("IRELATIVE"), std::string::npos) << r[0];
}

TEST(StartCodeScan, ACallIntoLibcIfuncsIsNotTheProgramsOwn) {
  // memcpy and strlen are IFUNCs of libc: a program calling them defines none.
  TempDir dir;
  const auto p = build(dir, "libc", R"(#include "kjudge/channel.h"
#include <cstring>
int main(int argc, char** argv) { char b[64]; std::memcpy(b, argv[0], 8); return std::strlen(b) + argc; }
)");
  EXPECT_TRUE(code_before_harness(p).empty()) << joined(code_before_harness(p));
}

TEST(StartCodeScan, WhatIsNotAProgramGivesAnErrorNamingIt) {
  TempDir dir;
  std::ofstream(dir / "text") << "not an ELF file at all\n";
  try {
    code_before_harness(dir / "text");
    FAIL() << "no error";
  } catch (const std::runtime_error& e) {
    EXPECT_NE(std::string(e.what()).find((dir / "text").string()), std::string::npos) << e.what();
  }
  // A real program cut short: its section headers lie past the end.
  const auto p = build(dir, "whole", "#include \"kjudge/channel.h\"\nint main() {}\n");
  std::ifstream in(p, std::ios::binary);
  std::string head(200, '\0');
  in.read(head.data(), 200);
  std::ofstream(dir / "cut", std::ios::binary) << head;
  EXPECT_THROW(code_before_harness(dir / "cut"), std::runtime_error);
  EXPECT_THROW(code_before_harness(dir / "absent"), std::runtime_error);
}

}  // namespace
}  // namespace kjudge
