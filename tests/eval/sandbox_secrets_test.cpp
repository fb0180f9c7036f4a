// No secret of the judge's reaches anything a sandboxed process can read (issue 31). Measured
// before: the main guard's nonce, passed with `bwrap --setenv`, sat in bubblewrap's command line,
// readable at /proc/1/cmdline inside the sandbox (bwrap's init), and so did the profiler's.
//
// A program run as the judge runs a timed test step (real bubblewrap, the main guard and the
// CUPTI profiler preloaded, the profiler writing its start line at once as on the task and
// Triton paths) reads everything it can reach: its environment, every process's command line,
// environment, descriptors and memory (its own memory excepted: the guard and the profiler hold
// their nonces there, in the same process, a documented limit), and every file under / within
// a size and time budget (tests/fixtures/sandbox_snoop.c). Neither nonce is anywhere in it, and
// both channels still worked: the guard's line and the profiler's record carry them.
#include <gtest/gtest.h>

#include <string>

#include "eval/step_runner.h"
#include "perf/benchmarker.h"
#include "perf/profile_record.h"
#include "perf/profiler_channel.h"
#include "run/main_return.h"
#include "run/sandbox.h"
#include "test_util.h"

namespace kjudge {
namespace {

namespace fs = std::filesystem;

TEST(SandboxSecrets, NoNonceIsAnywhereTheStepCanRead) {
  testing::TempDir dir;
  const fs::path ws = dir / "ws";
  fs::create_directories(ws);
  SandboxPolicy probe;
  probe.workspace = ws;
  std::string why;
  if (!sandbox_available(probe, &why)) GTEST_SKIP() << "bubblewrap unusable here: " << why;
  const fs::path guard_lib = locate_main_guard();
  ASSERT_FALSE(guard_lib.empty()) << "libkjudge_main_guard.so is built beside the test binary";
  const fs::path profiler = fs::path(KJUDGE_BINARY).parent_path() / "libkjudge_profiler.so";
  const bool profiled = fs::exists(profiler);

  auto cc = testing::run_capture("cc -O1 -o " + (ws / "snoop").string() + " " + KJUDGE_SOURCE_DIR +
                                 "/tests/fixtures/sandbox_snoop.c");
  ASSERT_EQ(cc.rc, 0) << cc.out;

  StepSettings settings;
  settings.sandbox = true;
  MachineInfo machine;
  machine.cpu_count = 2;
  StepExtras extras;
  std::optional<MainGuard> guard =
      attach_main_guard(guard_lib, ws, simple_command("./snoop 20"), extras);
  ASSERT_TRUE(guard) << "the snoop is the workspace's own dynamic program";
  std::optional<ResultChannel> channel;
  if (profiled) {
    channel.emplace(open_profiler_channel("kjudge-profile"));
    extras.env.push_back("NVTX_INJECTION64_PATH=" + preload_path(settings, profiler).string());
    for (std::string& e : profiler_channel_env(*channel, true)) extras.env.push_back(e);
    extras.preload.push_back(profiler);
    extras.inherit_fds.push_back(channel->fd());
  }
  ProcessResult r = run_step(settings, machine, "./snoop 20", ws, 120, extras);
  ASSERT_TRUE(r.started) << r.error;
  std::printf("[ snoop    ] %s", r.output.c_str());
  ASSERT_EQ(r.exit_code, 0) << r.output;

  // Both channels worked: what the judge reads carries each nonce.
  EXPECT_EQ(guard->problem(r.exit_code), std::nullopt);
  std::vector<std::pair<std::string, std::string>> nonces = {{"main guard", guard->nonce()}};
  if (profiled) {
    EXPECT_NO_THROW(parse_profile_record(profile_channel_text(*channel), channel->nonce()));
    nonces.push_back({"profiler", channel->nonce()});
  }

  const std::string seen = testing::read_text(ws / "seen.bin");
  const std::string tokens = testing::read_text(ws / "tokens.txt");
  const std::string cmdline = testing::read_text(ws / "cmdline-1.bin");
  // The snoop did reach what it claims: its own environment, bwrap's command line, files.
  EXPECT_NE(seen.find("KJUDGE_MAIN_FD"), std::string::npos) << "the snoop's own environment";
  EXPECT_NE(cmdline.find("bwrap"), std::string::npos) << cmdline;
  EXPECT_NE(r.output.find("covered:"), std::string::npos);
  for (const auto& [who, nonce] : nonces) {
    ASSERT_EQ(nonce.size(), 32u) << who;
    EXPECT_EQ(seen.find(nonce), std::string::npos) << who << "'s nonce was readable";
    EXPECT_EQ(tokens.find(nonce), std::string::npos) << who << "'s nonce was in a file";
    EXPECT_EQ(r.output.find(nonce), std::string::npos) << who;
  }
  // bwrap's options went through a descriptor: its command line names no path, variable or
  // value of the judge's, only `--args N -- ./snoop 20`.
  for (const std::string& word : {std::string("--setenv"), std::string("KJUDGE_"),
                                  std::string("--ro-bind"), ws.string(), guard_lib.string()})
    EXPECT_EQ(cmdline.find(word), std::string::npos) << word << " in /proc/1/cmdline";
  EXPECT_NE(cmdline.find(std::string("--args\0", 7)), std::string::npos) << cmdline;
}

}  // namespace
}  // namespace kjudge
