#pragma once
// When a failed chat request is worth another try, and how long to wait before it.
#include <chrono>
#include <map>
#include <optional>
#include <random>
#include <string>

namespace kjudge {

// ChatError's kind for an HTTP status that is not a success, and whether it may pass.
struct StatusClass {
  std::string kind;
  bool retryable;
};
StatusClass classify_status(long status);

// Seconds a Retry-After value asks for: delta-seconds (fractions allowed) or an HTTP-date,
// taken relative to `now` (never negative). nullopt when it is neither.
std::optional<double> parse_retry_after(const std::string& value,
                                        std::chrono::system_clock::time_point now);

// The wait a response's headers ask for (names lower-cased): OpenAI's retry-after-ms first,
// then Retry-After. nullopt when none.
std::optional<double> requested_delay(const std::map<std::string, std::string>& headers,
                                      std::chrono::system_clock::time_point now);

// Full jitter (uniform in [0, cap]) on base * 2^retry, capped at max_s; retry counts from 0.
double backoff_delay(int retry, double base_s, double max_s, std::mt19937_64& rng);

}  // namespace kjudge
