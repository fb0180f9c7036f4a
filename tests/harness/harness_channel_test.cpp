// The harness's result channel (harness/kjudge/channel.h), in a real process: a program with the
// header and a constructor of the highest priority a program may ask for (100, ahead of the
// harness's old 101) is started with KJUDGE_RESULT_FD naming a file that holds a nonce. The
// harness's .preinit_array entry must have taken the channel first: the constructor finds no
// variable, no trace in /proc/self/environ, and an empty file; main sees the nonce.
#include <gtest/gtest.h>

#include <fstream>

#include "test_util.h"

namespace kjudge {
namespace {

using testing::run_capture;
using testing::TempDir;

TEST(HarnessChannel, TakenBeforeAnyConstructorOfTheSubmission) {
  TempDir dir;
  std::ofstream(dir / "prog.cpp") << R"(#include <fcntl.h>
#include <unistd.h>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include "kjudge/channel.h"
static char seen[512] = "nothing";
__attribute__((constructor(100))) static void attacker() {
  if (const char* v = std::getenv("KJUDGE_RESULT_FD")) {
    std::snprintf(seen, sizeof seen, "env:%s", v);
    return;
  }
  char b[16384];
  int f = open("/proc/self/environ", O_RDONLY);
  ssize_t n = f < 0 ? 0 : read(f, b, sizeof b);
  if (f >= 0) close(f);
  for (ssize_t i = 0; i + 16 <= n; ++i)
    if (!std::memcmp(b + i, "KJUDGE_RESULT_FD", 16)) { std::snprintf(seen, sizeof seen, "environ"); return; }
  char c[64] = {};
  if (pread(7, c, sizeof c - 1, 0) > 0) std::snprintf(seen, sizeof seen, "file:%s", c);
}
int main() { std::printf("fd=%d nonce=%s attacker=%s\n", kj::channel::fd, kj::channel::nonce, seen); }
)";
  auto r = run_capture("c++ -std=c++20 -O2 -Wno-prio-ctor-dtor -I" +
                       std::string(KJUDGE_SOURCE_DIR) + "/harness " + (dir / "prog.cpp").string() +
                       " -o " + (dir / "prog").string() + " 2>&1");
  ASSERT_EQ(r.rc, 0) << r.out;
  std::ofstream(dir / "channel") << "n0nce-4f2a\n";
  r = run_capture("exec 7<>" + (dir / "channel").string() + "; KJUDGE_RESULT_FD=7 " +
                  (dir / "prog").string());
  ASSERT_EQ(r.rc, 0) << r.out;
  EXPECT_NE(r.out.find("fd=7 nonce=n0nce-4f2a attacker=nothing"), std::string::npos) << r.out;
  std::ifstream in(dir / "channel");
  std::string left((std::istreambuf_iterator<char>(in)), {});
  EXPECT_EQ(left, "") << "the harness empties the file";
  // Run by hand (no channel): nothing taken, records go to stdout.
  r = run_capture((dir / "prog").string());
  EXPECT_NE(r.out.find("fd=-1 nonce=- attacker=nothing"), std::string::npos) << r.out;
}

}  // namespace
}  // namespace kjudge
