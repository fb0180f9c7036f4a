// The solo gate: a solo run waits for the runs in flight, none starts beside it, and ordinary
// runs that keep coming cannot keep it waiting.
#include "kernelbench/judge/solo_gate.h"

#include <gtest/gtest.h>

#include <atomic>
#include <chrono>
#include <thread>
#include <vector>

namespace kjudge::kernelbench {
namespace {

using namespace std::chrono_literals;

TEST(KernelBenchSoloGate, ASoloRunWaitsForTheRunsInFlightAndNoneStartsBesideIt) {
  SoloGate gate;
  std::atomic<int> in_flight{0}, most_beside_solo{0};
  std::atomic<bool> solo_running{false}, solo_done{false};
  auto ordinary = std::make_unique<SoloGate::Hold>(gate, false);
  ++in_flight;
  std::thread solo([&] {
    SoloGate::Hold h(gate, true);
    solo_running = true;
    most_beside_solo = in_flight.load();
    std::this_thread::sleep_for(50ms);
    solo_running = false;
    solo_done = true;
  });
  std::this_thread::sleep_for(50ms);
  EXPECT_FALSE(solo_running) << "the solo run started beside a run in flight";
  // A run that comes while the solo one waits goes after it.
  std::atomic<bool> late_saw_solo_done{false};
  std::thread late([&] {
    SoloGate::Hold h(gate, false);
    late_saw_solo_done = solo_done.load();
  });
  std::this_thread::sleep_for(20ms);
  --in_flight;
  ordinary.reset();
  solo.join();
  late.join();
  EXPECT_EQ(most_beside_solo, 0);
  EXPECT_TRUE(late_saw_solo_done);
  EXPECT_EQ(gate.running(), 0);
}

TEST(KernelBenchSoloGate, OrdinaryRunsThatKeepComingCannotStarveASoloOne) {
  SoloGate gate;
  std::atomic<bool> stop{false}, solo_ran{false};
  std::vector<std::thread> workers;
  for (int i = 0; i < 4; ++i)
    workers.emplace_back([&] {
      while (!stop) {
        SoloGate::Hold h(gate, false);
        std::this_thread::sleep_for(5ms);
      }
    });
  std::this_thread::sleep_for(20ms);
  std::thread solo([&] {
    SoloGate::Hold h(gate, true);
    solo_ran = true;
  });
  const auto deadline = std::chrono::steady_clock::now() + 5s;
  while (!solo_ran && std::chrono::steady_clock::now() < deadline) std::this_thread::sleep_for(5ms);
  EXPECT_TRUE(solo_ran);
  stop = true;
  solo.join();
  for (std::thread& t : workers) t.join();
}

TEST(KernelBenchSoloGate, OrdinaryRunsShareIt) {
  SoloGate gate;
  SoloGate::Hold a(gate, false), b(gate, false);
  EXPECT_EQ(gate.running(), 2);
}

}  // namespace
}  // namespace kjudge::kernelbench
