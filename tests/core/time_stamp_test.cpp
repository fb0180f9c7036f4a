#include "core/time_stamp.h"

#include <gtest/gtest.h>

#include <cstdlib>
#include <optional>
#include <string>

namespace kjudge {
namespace {

constexpr std::time_t kTuesday = 1709647629;  // 2024-03-05 14:07:09 UTC

// Sets TZ for one test and puts back what was there, so other tests see the machine's zone.
class ScopedTz {
 public:
  explicit ScopedTz(const char* tz) {
    if (const char* old = std::getenv("TZ")) old_ = old;
    setenv("TZ", tz, 1);
    tzset();
  }
  ~ScopedTz() {
    if (old_)
      setenv("TZ", old_->c_str(), 1);
    else
      unsetenv("TZ");
    tzset();
  }

 private:
  std::optional<std::string> old_;
};

TEST(TimeStamp, FormatsUtcExactly) {
  EXPECT_EQ(format_time(kTuesday, "%Y-%m-%d %H:%M", true), "2024-03-05 14:07");
  EXPECT_EQ(format_time(0, "%Y-%m-%dT%H:%M:%S", true), "1970-01-01T00:00:00");
  EXPECT_EQ(iso8601_utc(kTuesday), "2024-03-05T14:07:09Z");
  EXPECT_EQ(run_stamp(kTuesday, true), "20240305-140709");
}

TEST(TimeStamp, LocalTimeFollowsTz) {
  // A POSIX TZ string needs no time zone database: five and a half hours east of UTC.
  ScopedTz tz("KJT-5:30");
  EXPECT_EQ(run_stamp(kTuesday, false), "20240305-193709");
  EXPECT_EQ(format_time(kTuesday, "%Y-%m-%dT%H:%M:%S", false), "2024-03-05T19:37:09");
  EXPECT_EQ(run_stamp(kTuesday, true), "20240305-140709");
}

TEST(TimeStamp, SeesTzChangedAfterFirstUse) {
  ScopedTz east("KJT-5:30");
  EXPECT_EQ(run_stamp(kTuesday, false), "20240305-193709");
  setenv("TZ", "UTC0", 1);  // without tzset(): std::localtime would see it, so must we
  EXPECT_EQ(run_stamp(kTuesday, false), "20240305-140709");
}

TEST(TimeStamp, EmptyWhenTheResultDoesNotFit) {
  EXPECT_EQ(format_time(kTuesday, "", true), "");
  EXPECT_EQ(format_time(kTuesday, std::string(300, 'x').c_str(), true), "");
}

}  // namespace
TEST(TimeStamp, ParsesWhatItWritesAndRefusesWhatIsNoDate) {
  EXPECT_EQ(parse_iso8601_utc("2024-03-05T14:07:09Z"), std::time_t{1709647629});
  EXPECT_EQ(parse_iso8601_utc(iso8601_utc(1709647629)), std::time_t{1709647629});
  EXPECT_EQ(parse_iso8601_utc("2024-03-05 14:07:09"), std::time_t{1709647629});
  EXPECT_EQ(parse_iso8601_utc("2024-03-05"), std::time_t{1709596800});
  for (const char* bad :
       {"", "2024-3-5", "2024-02-30", "2024-13-01", "2024-03-05T25:00:00Z",
        "2024-03-05T14:07:09+02:00", "2024-03-05T14:07", "tomorrow", "2024-03-05x"})
    EXPECT_FALSE(parse_iso8601_utc(bad)) << bad;
}

}  // namespace kjudge
