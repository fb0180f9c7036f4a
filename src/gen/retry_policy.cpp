#include "gen/retry_policy.h"

#include <curl/curl.h>

#include <algorithm>
#include <cmath>
#include <cstdlib>

namespace kjudge {

StatusClass classify_status(long status) {
  if (status == 401 || status == 403) return {"auth", false};
  if (status == 408) return {"timeout", true};  // the server gave up waiting on us
  if (status == 429) return {"rate_limited", true};
  if (status >= 500) return {"server", true};
  return {"bad_request", false};
}

namespace {

std::optional<double> parse_seconds(const std::string& value) {
  if (value.empty()) return std::nullopt;
  char* end = nullptr;
  double seconds = std::strtod(value.c_str(), &end);
  if (end != value.c_str() + value.size() || !std::isfinite(seconds)) return std::nullopt;
  return std::max(0.0, seconds);
}

}  // namespace

std::optional<double> parse_retry_after(const std::string& value,
                                        std::chrono::system_clock::time_point now) {
  if (value.empty()) return std::nullopt;
  if (std::isdigit(static_cast<unsigned char>(value[0]))) return parse_seconds(value);
  // curl_getdate reads all three HTTP-date forms (RFC 1123, RFC 850, asctime).
  time_t when = curl_getdate(value.c_str(), nullptr);
  if (when == -1) return std::nullopt;
  double delta =
      std::chrono::duration<double>(std::chrono::system_clock::from_time_t(when) - now).count();
  return std::max(0.0, delta);
}

std::optional<double> requested_delay(const std::map<std::string, std::string>& headers,
                                      std::chrono::system_clock::time_point now) {
  if (auto it = headers.find("retry-after-ms"); it != headers.end())
    if (auto ms = parse_seconds(it->second)) return *ms / 1000;
  if (auto it = headers.find("retry-after"); it != headers.end())
    return parse_retry_after(it->second, now);
  return std::nullopt;
}

double backoff_delay(int retry, double base_s, double max_s, std::mt19937_64& rng) {
  double cap = std::min(max_s, base_s * std::pow(2.0, std::min(retry, 60)));
  if (cap <= 0) return 0;
  return std::uniform_real_distribution<double>(0, cap)(rng);
}

}  // namespace kjudge
