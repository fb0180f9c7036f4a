#include <nlohmann/json.hpp>
#include <random>
#include <stdexcept>
#include <thread>

#include "gen/chat.h"
#include "gen/chat_wire.h"
#include "gen/http.h"
#include "gen/retry_policy.h"

namespace kjudge {

ChatError::ChatError(std::string kind, int http_status, const std::string& message)
    : std::runtime_error(message), kind_(std::move(kind)), http_status_(http_status) {}

namespace {

using nlohmann::json;

// Enough of an error body to say what the API objected to, short enough for a log line.
constexpr size_t kMaxQuotedChars = 300;

std::string shorten(std::string text) {
  if (text.size() > kMaxQuotedChars) text = text.substr(0, kMaxQuotedChars) + "…";
  return text;
}

// What an error body says: both APIs put it at error.message; others send a bare string.
std::string api_message(const std::string& body) {
  json parsed = json::parse(body, nullptr, false);
  if (!parsed.is_discarded() && parsed.is_object()) {
    auto error = parsed.find("error");
    if (error != parsed.end()) {
      if (error->is_string()) return error->get<std::string>();
      if (error->is_object() && error->contains("message") && (*error)["message"].is_string())
        return (*error)["message"].get<std::string>();
    }
    if (parsed.contains("message") && parsed["message"].is_string())
      return parsed["message"].get<std::string>();
  }
  return body;
}

// One failed attempt, before deciding whether to try again.
struct Failure {
  std::string kind;
  int status = 0;
  std::string message;
  bool retryable = true;
  std::optional<double> requested_delay;  // from Retry-After
};

class HttpChatClient : public ChatClient {
 public:
  HttpChatClient(const ClientOptions& options, const WireFormat& wire)
      : options_(options), wire_(wire) {
    std::string base = options.base_url.empty() ? wire.default_base_url : options.base_url;
    while (!base.empty() && base.back() == '/') base.pop_back();
    url_ = base + wire.path;
  }

  ChatResponse complete(const ChatRequest& request) override {
    HttpRequest http;
    http.url = url_;
    http.headers = wire_.headers(options_.api_key);
    http.headers.push_back("Content-Type: application/json");
    http.headers.push_back("Accept: application/json");
    http.body = wire_.body(request).dump();
    http.timeout_s = options_.timeout_s;
    http.stall_s = options_.stall_s;

    for (int attempt = 1;; ++attempt) {
      Failure failure;
      try {
        HttpResponse response = http_post(http);
        if (response.status >= 200 && response.status < 300) {
          std::optional<ChatResponse> answer = parse(response, failure);
          if (answer) {
            answer->attempts = attempt;
            return std::move(*answer);
          }
        } else {
          StatusClass sc = classify_status(response.status);
          failure = {
              sc.kind, static_cast<int>(response.status),
              "HTTP " + std::to_string(response.status) + ": " + quote(api_message(response.body)),
              sc.retryable, requested_delay(response.headers, std::chrono::system_clock::now())};
        }
      } catch (const HttpTransportError& e) {
        failure = {e.timed_out() ? "timeout" : "network", 0, e.what(), true, std::nullopt};
      }
      failure.message = scrub(failure.message);

      if (!failure.retryable || attempt > options_.max_retries) {
        std::string tries = attempt == 1 ? "" : " (after " + std::to_string(attempt) + " attempts)";
        throw ChatError(failure.kind, failure.status,
                        "POST " + url_ + ": " + failure.message + tries);
      }
      double delay = failure.requested_delay
                         ? std::min(*failure.requested_delay, options_.backoff_max_s * 5)
                         : backoff(attempt - 1);
      if (options_.on_retry) options_.on_retry(attempt, failure.message, delay);
      std::this_thread::sleep_for(std::chrono::duration<double>(delay));
    }
  }

 private:
  // The answer in a 2xx body, or nullopt with `failure` saying why it is not one.
  std::optional<ChatResponse> parse(const HttpResponse& response, Failure& failure) const {
    std::string why;
    try {
      return wire_.parse(json::parse(response.body));
    } catch (const std::exception& e) {
      why = e.what();
      // nlohmann's "[json.exception.parse_error.101] " says nothing a reader needs.
      if (why.rfind("[json.exception.", 0) == 0 && why.find("] ") != std::string::npos)
        why = why.substr(why.find("] ") + 2);
    }
    failure = {"malformed", static_cast<int>(response.status),
               "HTTP " + std::to_string(response.status) + " body is not the API's answer (" + why +
                   "): " + quote(response.body),
               true, std::nullopt};
    return std::nullopt;
  }

  // Scrubbed before it is shortened, or a key cut in half would pass the scrubbing.
  std::string quote(const std::string& body) const { return shorten(scrub(body)); }

  // Servers quote a rejected key back in their error bodies.
  std::string scrub(std::string text) const {
    const std::string& key = options_.api_key;
    if (key.empty()) return text;
    std::string redacted = redact_key(key);
    for (size_t at = text.find(key); at != std::string::npos; at = text.find(key, at)) {
      text.replace(at, key.size(), redacted);
      at += redacted.size();
    }
    return text;
  }

  double backoff(int retry) const {
    thread_local std::mt19937_64 rng{std::random_device{}()};
    return backoff_delay(retry, options_.backoff_base_s, options_.backoff_max_s, rng);
  }

  const ClientOptions options_;
  const WireFormat& wire_;
  std::string url_;
};

}  // namespace

std::unique_ptr<ChatClient> make_chat_client(const ClientOptions& options) {
  if (options.provider == "openai") return std::make_unique<HttpChatClient>(options, openai_wire());
  if (options.provider == "anthropic")
    return std::make_unique<HttpChatClient>(options, anthropic_wire());
  throw std::invalid_argument("unknown chat provider '" + options.provider +
                              "' (expected openai or anthropic)");
}

}  // namespace kjudge
