#include "core/time_stamp.h"

#include <cstdio>

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

std::optional<std::time_t> parse_iso8601_utc(const std::string& text) {
  int y = 0, mo = 0, d = 0, h = 0, mi = 0, sec = 0, used = 0;
  const char* c = text.c_str();
  if (std::sscanf(c, "%4d-%2d-%2d%n", &y, &mo, &d, &used) != 3 || used != 10) return std::nullopt;
  if (text.size() > 10) {
    int more = 0;
    const char sep = text[10];
    if ((sep != 'T' && sep != ' ') ||
        std::sscanf(c + 11, "%2d:%2d:%2d%n", &h, &mi, &sec, &more) != 3 || more != 8)
      return std::nullopt;
    const std::string rest = text.substr(19);
    if (!rest.empty() && rest != "Z") return std::nullopt;
  }
  if (mo < 1 || mo > 12 || d < 1 || d > 31 || h > 23 || mi > 59 || sec > 60) return std::nullopt;
  std::tm tm{};
  tm.tm_year = y - 1900;
  tm.tm_mon = mo - 1;
  tm.tm_mday = d;
  tm.tm_hour = h;
  tm.tm_min = mi;
  tm.tm_sec = sec;
  const std::time_t t = timegm(&tm);
  // timegm normalises Feb 30 to Mar 2: a date that moved did not exist.
  std::tm back{};
  if (t == static_cast<std::time_t>(-1) || !gmtime_r(&t, &back) || back.tm_mday != d ||
      back.tm_mon != mo - 1)
    return std::nullopt;
  return t;
}

std::string run_stamp(std::time_t t, bool utc) { return format_time(t, "%Y%m%d-%H%M%S", utc); }

}  // namespace kjudge
