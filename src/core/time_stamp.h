#pragma once
// Calendar times as text: run folder names, JSON records' times, dates on pages.
#include <ctime>
#include <optional>
#include <string>

namespace kjudge {

// `t` through std::strftime's `format`, in UTC or in the local time zone (TZ as it is now).
// Safe to call from several threads: no std::tm is shared. A result over 255 characters, or a
// time the calendar cannot hold, comes back empty.
std::string format_time(std::time_t t, const char* format, bool utc);

// "2024-03-05T14:07:09Z": ISO 8601 in UTC.
std::string iso8601_utc(std::time_t t);

// The inverse of iso8601_utc for a user's input: "2024-03-05T14:07:09Z", "2024-03-05 14:07:09"
// (UTC) or "2024-03-05" (its midnight, UTC); nullopt for anything else or a date that does not
// exist (Feb 30).
std::optional<std::time_t> parse_iso8601_utc(const std::string& text);

// "20240305-140709": names that sort by time in a folder listing.
std::string run_stamp(std::time_t t, bool utc);

}  // namespace kjudge
