#include "core/time_stamp.h"

namespace kjudge {

std::string format_time(std::time_t t, const char* format, bool utc) {
  std::tm tm{};
  if (utc) {
    if (!gmtime_r(&t, &tm)) return "";
  } else {
    // localtime_r, unlike std::localtime, need not look at TZ again; a changed TZ must count.
    tzset();
    if (!localtime_r(&t, &tm)) return "";
  }
  char buf[256];
  const std::size_t n = std::strftime(buf, sizeof buf, format, &tm);
  return std::string(buf, n);
}

std::string iso8601_utc(std::time_t t) { return format_time(t, "%Y-%m-%dT%H:%M:%SZ", true); }

std::string run_stamp(std::time_t t, bool utc) { return format_time(t, "%Y%m%d-%H%M%S", utc); }

}  // namespace kjudge
