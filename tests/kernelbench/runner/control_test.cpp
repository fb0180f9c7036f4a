// The GPU's phases among runner processes (shared among others, exclusive alone, timing never
// starved) and the judge's end of a runner's control channel, driven from a socket as the runner
// drives it: in order it is answered and timed; out of turn it is refused.
#include "kernelbench/runner/control.h"

#include <gtest/gtest.h>
#include <sys/socket.h>
#include <unistd.h>

#include <chrono>
#include <future>
#include <thread>

namespace kjudge::kernelbench {
namespace {

using namespace std::chrono_literals;

TEST(KernelBenchGpuGate, SharedPhasesOverlapAndAnExclusiveOneWaitsForThem) {
  GpuGate gate;
  const auto a = gate.acquire_shared();
  const auto b = gate.acquire_shared();
  EXPECT_EQ(gate.shared_holders(), 2);
  auto ex = std::async(std::launch::async, [&] { return gate.acquire_exclusive(); });
  EXPECT_EQ(ex.wait_for(300ms), std::future_status::timeout);
  // No new shared phase while the exclusive one waits (timing is never starved).
  auto late = std::async(std::launch::async, [&] { return gate.acquire_shared(); });
  EXPECT_EQ(late.wait_for(300ms), std::future_status::timeout);
  gate.release(a);
  gate.release(b);
  const auto e = ex.get();
  EXPECT_TRUE(gate.exclusive_held());
  EXPECT_EQ(late.wait_for(300ms), std::future_status::timeout);
  gate.release(e);
  gate.release(late.get());
  EXPECT_EQ(gate.shared_holders(), 0);
}

TEST(KernelBenchGpuGate, AWaiterThatGivesUpLeavesTheQueue) {
  GpuGate gate;
  const auto s = gate.acquire_shared();
  std::atomic<bool> gave_up{false};
  auto ex = std::async(std::launch::async, [&] { return gate.acquire_exclusive(&gave_up); });
  std::this_thread::sleep_for(100ms);
  gave_up = true;
  gate.poke();
  EXPECT_EQ(ex.get(), 0u);
  gate.release(s);
  const auto again = gate.acquire_shared();  // nobody waits any more
  EXPECT_NE(again, 0u);
  gate.release(again);
}

TEST(KernelBenchGpuGate, AnOverlongSharedPhaseIsRevokedForAWaiter) {
  GpuGate gate(-1, 0.2);
  const auto hog = gate.acquire_shared();
  const auto e = gate.acquire_exclusive();  // goes ahead after 0.2 s
  EXPECT_TRUE(gate.revoked(hog));
  gate.release(e);
  gate.release(hog);  // a revoked ticket is ignored
}

// The runner's side of the channel, by hand.
struct Client {
  int fd;
  std::string ask(const std::string& line) {
    const std::string out = line + "\n";
    EXPECT_EQ(write(fd, out.data(), out.size()), static_cast<ssize_t>(out.size()));
    std::string reply;
    char c;
    while (read(fd, &c, 1) == 1 && c != '\n') reply += c;
    return reply;
  }
};

TEST(KernelBenchControl, TheProtocolInOrderIsAnsweredAndLogged) {
  GpuGate gate;
  ControlServer server(gate, 77, true);
  server.start(0);
  Client c{server.child_fd()};
  EXPECT_EQ(c.ask("hello"), "ok");
  EXPECT_EQ(c.ask("gpu"), "go");
  EXPECT_EQ(gate.shared_holders(), 1);
  EXPECT_EQ(c.ask("idle"), "ok");
  EXPECT_EQ(c.ask("time"), "go");
  EXPECT_TRUE(gate.exclusive_held());
  EXPECT_EQ(c.ask("pair 0"), "k " + pair_key(77, 0));
  EXPECT_EQ(c.ask("done 0 1.5 2.5 - 1.6 2.6 - 1"), "a 0");
  EXPECT_EQ(c.ask("pair 1"), "k " + pair_key(77, 1));
  EXPECT_EQ(c.ask("done 1 1.5 2.5 2.0 1.6 2.6 2.1 0"), "a 1");
  EXPECT_EQ(c.ask("end"), "ok");
  EXPECT_FALSE(gate.exclusive_held());
  const ControlLog log = server.stop();
  EXPECT_TRUE(log.violation.empty()) << log.violation;
  EXPECT_TRUE(log.timed);
  ASSERT_EQ(log.events.size(), 9u);
  EXPECT_EQ(log.events[5].kind, ControlEvent::Kind::done);
  EXPECT_EQ(log.events[5].sol_ms, 1.5);
  EXPECT_TRUE(std::isnan(log.events[5].cmp_ms));
  EXPECT_TRUE(log.events[5].ok);
  EXPECT_EQ(log.events[7].cmp_dev_ms, 2.1);
  EXPECT_FALSE(log.events[7].ok);
  EXPECT_NE(pair_key(77, 0), pair_key(77, 1));
  EXPECT_NE(pair_key(77, 0), pair_key(78, 0));
  EXPECT_EQ(pair_key(77, 0).size(), 32u);
}

TEST(KernelBenchControl, WhatIsOutOfTurnIsRefused) {
  auto refused = [](const std::vector<std::string>& lines, bool allow_time = true) {
    GpuGate gate;
    ControlServer server(gate, 1, allow_time);
    server.start(0);
    Client c{server.child_fd()};
    std::string last;
    for (const std::string& l : lines) last = c.ask(l);
    const ControlLog log = server.stop();
    EXPECT_EQ(last, "refused");
    EXPECT_EQ(gate.shared_holders(), 0);
    EXPECT_FALSE(gate.exclusive_held());
    return log.violation;
  };
  EXPECT_NE(refused({"gpu"}).find("did not say hello"), std::string::npos);
  EXPECT_NE(refused({"hello", "hello"}).find("twice"), std::string::npos);
  EXPECT_NE(refused({"hello", "gpu", "gpu"}).find("while holding"), std::string::npos);
  EXPECT_NE(refused({"hello", "idle"}).find("did not hold"), std::string::npos);
  EXPECT_NE(refused({"hello", "pair 0"}).find("outside the timed phase"), std::string::npos);
  EXPECT_NE(refused({"hello", "time", "pair 1"}).find("out of turn"), std::string::npos);
  EXPECT_NE(refused({"hello", "time", "done 0 1 1 - 1 1 - 1"}).find("out of turn"),
            std::string::npos);
  EXPECT_NE(refused({"hello", "time", "pair 0", "done 0 0 1 - 1 1 - 1"}).find("malformed"),
            std::string::npos);
  EXPECT_NE(refused({"hello", "time", "pair 0", "end"}).find("inside a pair"), std::string::npos);
  EXPECT_NE(refused({"hello", "time", "end", "time"}).find("twice"), std::string::npos);
  EXPECT_NE(refused({"hello", "verdict correct"}).find("no use for"), std::string::npos);
  EXPECT_NE(refused({"hello", std::string(300, 'x')}).find("longer than 256"), std::string::npos);
}

TEST(KernelBenchControl, TheJudgeMayDeclineToTime) {
  GpuGate gate;
  ControlServer server(gate, 1, false);
  server.start(0);
  Client c{server.child_fd()};
  EXPECT_EQ(c.ask("hello"), "ok");
  EXPECT_EQ(c.ask("time"), "skip");
  EXPECT_FALSE(server.stop().timed);
}

TEST(KernelBenchControl, AProcessThatDiesHoldingTheGpuReleasesIt) {
  GpuGate gate;
  {
    ControlServer server(gate, 1, true);
    server.start(0);
    Client c{server.child_fd()};
    EXPECT_EQ(c.ask("hello"), "ok");
    EXPECT_EQ(c.ask("time"), "go");
    EXPECT_TRUE(gate.exclusive_held());
    server.stop();
  }
  EXPECT_FALSE(gate.exclusive_held());
}

TEST(KernelBenchControl, WaitingForTheGateIsNotTheRunnersTime) {
  GpuGate gate;
  const auto hold = gate.acquire_shared();
  ControlServer server(gate, 1, true);
  server.start(0);
  Client c{server.child_fd()};
  EXPECT_EQ(c.ask("hello"), "ok");
  auto t = std::async(std::launch::async, [&] { return c.ask("time"); });
  std::this_thread::sleep_for(400ms);
  gate.release(hold);
  EXPECT_EQ(t.get(), "go");
  EXPECT_EQ(c.ask("end"), "ok");
  const ControlLog log = server.stop();
  EXPECT_GT(log.waited_s, 0.3);
  EXPECT_LT(log.waited_s, 5.0);
}

}  // namespace
}  // namespace kjudge::kernelbench
