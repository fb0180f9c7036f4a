// A pack board's timed run: the timing's run-time flags (perf.jsonl's cheat_flags) join the
// result's static ones, where the board's review hold and the run's page read them.
#include "board/pack_timing.h"

#include <gtest/gtest.h>

namespace kjudge::board {
namespace {

using nlohmann::json;

TEST(PackTiming, TimingFlagsJoinTheResultsOwn) {
  json result = {{"verdict", "pass"},
                 {"cheat_flags", json::array({{{"check", "proc_read"}, {"source", "static"}}})}};
  const json perf = {
      {"timed", true},
      {"cheat_flags",
       json::array({{{"check", "region_host_time"}, {"detail", "d"}, {"source", "timing"}}})}};
  add_timing_flags(result, perf);
  ASSERT_EQ(result["cheat_flags"].size(), 2u);
  EXPECT_EQ(result["cheat_flags"][1]["check"], "region_host_time");

  json clean = {{"verdict", "pass"}};
  add_timing_flags(clean, perf);
  ASSERT_EQ(clean["cheat_flags"].size(), 1u);
  json untouched = {{"verdict", "pass"}};
  add_timing_flags(untouched, {{"timed", true}});
  add_timing_flags(untouched, nullptr);
  EXPECT_FALSE(untouched.contains("cheat_flags"));
}

}  // namespace
}  // namespace kjudge::board
