#pragma once
// Chat completions from language-model APIs over HTTP: OpenAI's Chat Completions (and every
// server that copies it: vLLM, llama.cpp, NIM) and Anthropic's Messages API. One blocking call
// per request, with retries and backoff on the failures that pass (rate limits, 5xx, timeouts,
// dropped connections, garbled 200s), so a long generation run survives a flaky endpoint.
#include <filesystem>
#include <functional>
#include <memory>
#include <optional>
#include <stdexcept>
#include <string>
#include <vector>

namespace kjudge {

struct ChatMessage {
  std::string role;  // "system" | "user" | "assistant"
  std::string content;
};

struct ChatRequest {
  std::string model;
  std::vector<ChatMessage> messages;
  std::optional<double> temperature, top_p;
  std::optional<int> max_tokens;
  // OpenAI: sent as "reasoning_effort". Anthropic: ignored, because extended thinking needs a
  // token budget below max_tokens and forbids temperature/top_p, which no effort word maps onto.
  std::optional<std::string> reasoning_effort;
  std::optional<long> seed;  // OpenAI only (Anthropic has none: ignored)
};

struct ChatUsage {
  long input_tokens = 0, output_tokens = 0;
};

struct ChatResponse {
  std::string text;           // the assistant's answer (all text content joined)
  std::string finish_reason;  // normalised: "stop", "length" (truncated), or the API's own word
  ChatUsage usage;
  std::string model;  // as the API reports it
  int attempts = 1;   // HTTP attempts it took (retries included)
};

// What went wrong, after retries. `kind`: "auth" (401/403), "bad_request" (other 4xx),
// "rate_limited" (429 after all retries), "server" (5xx after retries), "timeout"
// (connect/total/stall), "network", "malformed" (a 2xx whose body is not the API's JSON).
// `http_status` is 0 where no response came. The message never holds the API key.
class ChatError : public std::runtime_error {
 public:
  ChatError(std::string kind, int http_status, const std::string& message);
  const std::string& kind() const { return kind_; }
  int http_status() const { return http_status_; }

 private:
  std::string kind_;
  int http_status_;
};

struct ClientOptions {
  // "openai" (Chat Completions, any compatible base_url) | "anthropic" (Messages API)
  std::string provider = "openai";
  std::string base_url;  // default: https://api.openai.com/v1 or https://api.anthropic.com/v1
  // Sent as Authorization: Bearer (openai) / x-api-key + anthropic-version: 2023-06-01
  // (anthropic); an empty key sends no key header (local servers).
  std::string api_key;
  double timeout_s = 600;  // whole request
  double stall_s = 120;    // no bytes for this long = timeout
  int max_retries = 6;     // on 429, 5xx, timeouts, network errors, malformed 200s
  // Exponential: base * 2^retry, full jitter, capped at backoff_max_s. A Retry-After (or
  // retry-after-ms) on a retried response is waited instead, capped at backoff_max_s * 5.
  double backoff_base_s = 1.0;
  double backoff_max_s = 60;
  // Called before each retry sleep (for logs/progress): the attempt that failed (1-based), the
  // error, the delay in seconds.
  std::function<void(int, const std::string&, double)> on_retry;
};

class ChatClient {
 public:
  virtual ~ChatClient() = default;
  // Thread-safe; throws ChatError.
  virtual ChatResponse complete(const ChatRequest& request) = 0;
};

// Throws std::invalid_argument on an unknown provider.
std::unique_ptr<ChatClient> make_chat_client(const ClientOptions& options);

// The key for a provider: the environment first (openai: OPENAI_API_KEY, then NEMO_API_KEY for
// NVIDIA endpoints; anthropic: ANTHROPIC_API_KEY), else a KEY=VALUE line of `dotenv` (if it
// exists; comments, `export `, quotes; the last line for a name wins). Empty values count as
// none. nullopt when none.
std::optional<std::string> find_api_key(const std::string& provider,
                                        const std::filesystem::path& dotenv = ".env");

// "sk-proj-abcdef…wxyz" → "sk-…wxyz": enough to tell keys apart in messages. Keys shorter than
// 16 characters show nothing but "…". Never put a key itself in an exception message or log.
std::string redact_key(const std::string& key);

}  // namespace kjudge
