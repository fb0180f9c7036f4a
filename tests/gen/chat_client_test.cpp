// The chat clients against tests/fake_llm_server.py (both wire formats, retries, timeouts, key
// hygiene), the retry policy's arithmetic, and finding API keys.
#include <arpa/inet.h>
#include <netinet/in.h>
#include <sys/socket.h>
#include <unistd.h>

#include <chrono>
#include <cmath>
#include <cstdlib>
#include <fstream>
#include <nlohmann/json.hpp>
#include <thread>

#include "fake_llm_server.h"
#include "gen/chat.h"
#include "gen/retry_policy.h"
#include "test_util.h"

namespace kjudge {
namespace {

using nlohmann::json;
using testing::FakeLlmServer;
using testing::TempDir;
using testing::write_text;

constexpr const char* kKey = "sk-test-0123456789abcdefWXYZ";
constexpr const char* kModel = "test-model";

class ChatClientTest : public ::testing::Test {
 protected:
  static void SetUpTestSuite() {
    // A proxy from the environment must not swallow requests to the local server.
    setenv("no_proxy", "127.0.0.1,localhost", 1);
    dir_ = new TempDir();
    server_ = new FakeLlmServer();
    server_->start("--log " + log_path().string() + " --expect-key " + kKey);
  }
  static void TearDownTestSuite() {
    delete server_;
    delete dir_;
  }
  static std::filesystem::path log_path() { return *dir_ / "requests.jsonl"; }

  // Fast retries: the whole suite waits only where a test asks for a delay.
  ClientOptions options(const std::string& provider) const {
    ClientOptions o;
    o.provider = provider;
    o.base_url = server_->base_url();
    o.api_key = kKey;
    o.timeout_s = 20;
    o.stall_s = 10;
    o.max_retries = 3;
    o.backoff_base_s = 0.01;
    o.backoff_max_s = 0.05;
    return o;
  }

  // A request unique to this test (the fake counts attempts per conversation).
  ChatRequest request(const std::string& directive = "") {
    std::string marker = std::string("marker-") +
                         ::testing::UnitTest::GetInstance()->current_test_info()->name() + "-" +
                         std::to_string(++requests_);
    ChatRequest r;
    r.model = kModel;
    r.messages = {{"system", "You write CUDA kernels."},
                  {"user", "Write a kernel. " + marker + directive}};
    last_marker_ = marker;
    return r;
  }

  // What the fake logged for the last request() made.
  std::vector<json> logged() const {
    std::vector<json> out;
    std::ifstream in(log_path());
    std::string line;
    while (std::getline(in, line)) {
      json entry = json::parse(line);
      if (entry["body"].dump().find(last_marker_) != std::string::npos) out.push_back(entry);
    }
    return out;
  }

  static ChatError expect_error(ChatClient& client, const ChatRequest& r) {
    try {
      client.complete(r);
    } catch (const ChatError& e) {
      return e;
    }
    ADD_FAILURE() << "expected a ChatError";
    return ChatError("", 0, "");
  }

  static std::string canned(int messages) {
    return std::string("Fake answer from ") + kModel + ".\n\n```cuda\n// file: solution.cu\n" +
           "// fake-llm model=" + kModel + " messages=" + std::to_string(messages) + "\n```\n";
  }

  static TempDir* dir_;
  static FakeLlmServer* server_;
  int requests_ = 0;
  std::string last_marker_;
};

TempDir* ChatClientTest::dir_ = nullptr;
FakeLlmServer* ChatClientTest::server_ = nullptr;

double seconds_since(std::chrono::steady_clock::time_point start) {
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
}

TEST_F(ChatClientTest, OpenAiPlainAnswer) {
  auto client = make_chat_client(options("openai"));
  ChatResponse r = client->complete(request());
  EXPECT_EQ(r.text, canned(2));
  EXPECT_EQ(r.finish_reason, "stop");
  EXPECT_EQ(r.model, kModel);
  EXPECT_EQ(r.usage.input_tokens, 8);  // the fake counts words
  EXPECT_EQ(r.usage.output_tokens, 13);
  EXPECT_EQ(r.attempts, 1);
}

TEST_F(ChatClientTest, AnthropicPlainAnswerJoinsTextBlocksOnly) {
  auto client = make_chat_client(options("anthropic"));
  ChatResponse r = client->complete(request());
  EXPECT_EQ(r.text, canned(2));  // the fake splits it around a thinking block
  EXPECT_EQ(r.finish_reason, "stop");
  EXPECT_EQ(r.model, kModel);
  EXPECT_EQ(r.usage.input_tokens, 8);
  EXPECT_EQ(r.usage.output_tokens, 13);
  EXPECT_EQ(r.attempts, 1);
}

TEST_F(ChatClientTest, OpenAiRequestBodyAndHeaders) {
  auto client = make_chat_client(options("openai"));
  ChatRequest r = request();
  r.temperature = 0.5;
  r.top_p = 0.9;
  r.max_tokens = 123;
  r.seed = 42;
  r.reasoning_effort = "high";
  client->complete(r);
  std::vector<json> log = logged();
  ASSERT_EQ(log.size(), 1u);
  EXPECT_EQ(log[0]["path"], "/v1/chat/completions");
  EXPECT_EQ(log[0]["auth_ok"], true);
  EXPECT_EQ(log[0]["headers"]["Content-Type"], "application/json");
  const json& body = log[0]["body"];
  EXPECT_EQ(body["model"], kModel);
  EXPECT_EQ(body["messages"], json::parse(R"([{"role":"system","content":"You write CUDA kernels."},
                            {"role":"user","content":"Write a kernel. )" +
                                          last_marker_ + R"("}])"));
  EXPECT_EQ(body["temperature"], 0.5);
  EXPECT_EQ(body["top_p"], 0.9);
  EXPECT_EQ(body["max_tokens"], 123);
  EXPECT_FALSE(body.contains("max_completion_tokens"));
  EXPECT_EQ(body["seed"], 42);
  EXPECT_EQ(body["reasoning_effort"], "high");

  client->complete(request());
  // A copy: logged() returns its vector by value, and a reference into it would dangle.
  const json bare = logged().at(0)["body"];
  for (const char* unset : {"temperature", "top_p", "max_tokens", "seed", "reasoning_effort"})
    EXPECT_FALSE(bare.contains(unset)) << unset;
}

TEST_F(ChatClientTest, AnthropicRequestBodyAndHeaders) {
  auto client = make_chat_client(options("anthropic"));
  ChatRequest r = request();
  r.messages.insert(r.messages.begin() + 1, ChatMessage{"system", "Be brief."});
  r.temperature = 0.25;
  r.top_p = 0.75;
  r.seed = 7;
  r.reasoning_effort = "low";
  client->complete(r);
  std::vector<json> log = logged();
  ASSERT_EQ(log.size(), 1u);
  EXPECT_EQ(log[0]["path"], "/v1/messages");
  EXPECT_EQ(log[0]["auth_ok"], true);
  EXPECT_EQ(log[0]["headers"]["anthropic-version"], "2023-06-01");
  EXPECT_EQ(log[0]["headers"]["x-api-key"], "<redacted>");
  EXPECT_FALSE(log[0]["headers"].contains("Authorization"));
  const json& body = log[0]["body"];
  EXPECT_EQ(body["system"], "You write CUDA kernels.\n\nBe brief.");
  ASSERT_EQ(body["messages"].size(), 1u);
  EXPECT_EQ(body["messages"][0]["role"], "user");
  EXPECT_EQ(body["max_tokens"], 8192);
  EXPECT_EQ(body["temperature"], 0.25);
  EXPECT_EQ(body["top_p"], 0.75);
  EXPECT_FALSE(body.contains("seed"));
  EXPECT_FALSE(body.contains("reasoning_effort"));

  r = request();
  r.max_tokens = 99;
  client->complete(r);
  EXPECT_EQ(logged().at(0)["body"]["max_tokens"], 99);
}

TEST_F(ChatClientTest, WrongKeyIsAnAuthErrorThatNeverShowsTheKey) {
  const std::string wrong = "sk-wrong-secret-0123456789abcdef";
  for (const char* provider : {"openai", "anthropic"}) {
    ClientOptions o = options(provider);
    o.api_key = wrong;
    int retries = 0;
    o.on_retry = [&](int, const std::string&, double) { ++retries; };
    auto client = make_chat_client(o);
    ChatError e = expect_error(*client, request());
    EXPECT_EQ(e.kind(), "auth") << provider;
    EXPECT_EQ(e.http_status(), 401);
    std::string message = e.what();
    // The fake quotes the key it got, as real APIs do; the client must scrub it.
    EXPECT_EQ(message.find(wrong), std::string::npos) << message;
    EXPECT_EQ(message.find("0123456789"), std::string::npos) << message;
    EXPECT_NE(message.find(redact_key(wrong)), std::string::npos) << message;
    EXPECT_EQ(retries, 0);
    ASSERT_EQ(logged().size(), 1u);
    EXPECT_EQ(logged()[0]["auth_ok"], false);
  }
}

TEST_F(ChatClientTest, ScriptedAuthErrorNoRetry) {
  auto client = make_chat_client(options("openai"));
  ChatError e = expect_error(*client, request(" [[fake: 403]]"));
  EXPECT_EQ(e.kind(), "auth");
  EXPECT_EQ(e.http_status(), 403);
  EXPECT_EQ(logged().size(), 1u);
}

TEST_F(ChatClientTest, RateLimitWaitsRetryAfter) {
  ClientOptions o = options("openai");
  o.backoff_max_s = 0.5;  // caps Retry-After at 2.5 s
  std::vector<double> delays;
  o.on_retry = [&](int, const std::string&, double delay) { delays.push_back(delay); };
  auto client = make_chat_client(o);
  auto start = std::chrono::steady_clock::now();
  ChatResponse r = client->complete(request(" [[fake: 429 retry-after=1 then ok]]"));
  EXPECT_GE(seconds_since(start), 1.0);
  EXPECT_EQ(r.attempts, 2);
  EXPECT_EQ(delays, std::vector<double>{1.0});
  EXPECT_EQ(logged().size(), 2u);
}

TEST_F(ChatClientTest, RetryAfterIsCapped) {
  ClientOptions o = options("anthropic");
  std::vector<double> delays;
  o.on_retry = [&](int, const std::string&, double delay) { delays.push_back(delay); };
  auto client = make_chat_client(o);
  ChatResponse r = client->complete(request(" [[fake: 503 retry-after=30 then ok]]"));
  EXPECT_EQ(r.attempts, 2);
  EXPECT_EQ(delays, std::vector<double>{0.25});  // backoff_max_s * 5
}

TEST_F(ChatClientTest, RetryAfterMsIsHonoured) {
  ClientOptions o = options("openai");
  std::vector<double> delays;
  o.on_retry = [&](int, const std::string&, double delay) { delays.push_back(delay); };
  auto client = make_chat_client(o);
  client->complete(request(" [[fake: 429 retry-after-ms=120 retry-after=9 then ok]]"));
  EXPECT_EQ(delays, std::vector<double>{0.12});
}

TEST_F(ChatClientTest, ServerErrorsThenOk) {
  for (const char* provider : {"openai", "anthropic"}) {
    ClientOptions o = options(provider);
    std::vector<int> attempts;
    std::vector<double> delays;
    o.on_retry = [&](int attempt, const std::string& error, double delay) {
      attempts.push_back(attempt);
      delays.push_back(delay);
      EXPECT_NE(error.find("HTTP 500"), std::string::npos) << error;
    };
    auto client = make_chat_client(o);
    ChatResponse r = client->complete(request(" [[fake: 500 x2 then ok]]"));
    EXPECT_EQ(r.attempts, 3) << provider;
    EXPECT_EQ(r.text, canned(2));
    EXPECT_EQ(attempts, (std::vector<int>{1, 2}));
    EXPECT_LE(delays.at(0), 0.01);  // full jitter under base * 2^0, then base * 2^1
    EXPECT_LE(delays.at(1), 0.02);
    EXPECT_EQ(logged().size(), 3u);
  }
}

TEST_F(ChatClientTest, ServerErrorAfterRetries) {
  ClientOptions o = options("openai");
  o.max_retries = 2;
  auto client = make_chat_client(o);
  ChatError e = expect_error(*client, request(" [[fake: 503]]"));
  EXPECT_EQ(e.kind(), "server");
  EXPECT_EQ(e.http_status(), 503);
  EXPECT_NE(std::string(e.what()).find("fake error 503"), std::string::npos) << e.what();
  EXPECT_NE(std::string(e.what()).find("after 3 attempts"), std::string::npos) << e.what();
  EXPECT_EQ(logged().size(), 3u);
}

TEST_F(ChatClientTest, RateLimitedAfterRetries) {
  ClientOptions o = options("anthropic");
  o.max_retries = 1;
  auto client = make_chat_client(o);
  ChatError e = expect_error(*client, request(" [[fake: 429]]"));
  EXPECT_EQ(e.kind(), "rate_limited");
  EXPECT_EQ(e.http_status(), 429);
  EXPECT_EQ(logged().size(), 2u);
}

TEST_F(ChatClientTest, NoRetryOnClientErrors) {
  for (const char* status : {"400", "404", "422"}) {
    ClientOptions o = options("openai");
    int retries = 0;
    o.on_retry = [&](int, const std::string&, double) { ++retries; };
    auto client = make_chat_client(o);
    ChatError e = expect_error(*client, request(std::string(" [[fake: ") + status + "]]"));
    EXPECT_EQ(e.kind(), "bad_request") << status;
    EXPECT_EQ(e.http_status(), std::stoi(status));
    EXPECT_EQ(retries, 0);
    EXPECT_EQ(logged().size(), 1u);
  }
}

TEST_F(ChatClientTest, StallIsATimeout) {
  ClientOptions o = options("openai");
  o.stall_s = 1;
  o.max_retries = 0;
  auto client = make_chat_client(o);
  auto start = std::chrono::steady_clock::now();
  ChatError e = expect_error(*client, request(" [[fake: stall 6]]"));
  EXPECT_EQ(e.kind(), "timeout") << e.what();
  EXPECT_EQ(e.http_status(), 0);
  EXPECT_LT(seconds_since(start), 4.0);
}

TEST_F(ChatClientTest, WholeRequestTimeout) {
  ClientOptions o = options("anthropic");
  o.timeout_s = 0.5;
  o.max_retries = 1;
  int retries = 0;
  o.on_retry = [&](int, const std::string&, double) { ++retries; };
  auto client = make_chat_client(o);
  auto start = std::chrono::steady_clock::now();
  ChatError e = expect_error(*client, request(" [[fake: stall 6]]"));
  EXPECT_EQ(e.kind(), "timeout") << e.what();
  EXPECT_EQ(retries, 1);  // timeouts are retried
  EXPECT_LT(seconds_since(start), 3.0);
}

TEST_F(ChatClientTest, StallShorterThanTheLimitSucceeds) {
  auto client = make_chat_client(options("openai"));
  ChatResponse r = client->complete(request(" [[fake: stall 0.3]]"));
  EXPECT_EQ(r.text, canned(2));
}

TEST_F(ChatClientTest, MalformedAfterRetries) {
  for (const char* action : {"malformed", "wrongshape"}) {
    ClientOptions o = options("openai");
    o.max_retries = 2;
    auto client = make_chat_client(o);
    ChatError e = expect_error(*client, request(std::string(" [[fake: ") + action + "]]"));
    EXPECT_EQ(e.kind(), "malformed") << action;
    EXPECT_EQ(e.http_status(), 200);
    EXPECT_EQ(logged().size(), 3u);
  }
  auto client = make_chat_client(options("anthropic"));
  EXPECT_EQ(expect_error(*client, request(" [[fake: malformed]]")).kind(), "malformed");
}

TEST_F(ChatClientTest, MalformedThenOk) {
  auto client = make_chat_client(options("anthropic"));
  ChatResponse r = client->complete(request(" [[fake: malformed x1 then ok]]"));
  EXPECT_EQ(r.attempts, 2);
  EXPECT_EQ(r.text, canned(2));
}

TEST_F(ChatClientTest, TruncatedIsLength) {
  for (const char* provider : {"openai", "anthropic"}) {
    auto client = make_chat_client(options(provider));
    ChatResponse r = client->complete(request(" [[fake: truncated]]"));
    EXPECT_EQ(r.finish_reason, "length") << provider;
    EXPECT_EQ(r.text, canned(2).substr(0, canned(2).size() / 2));
  }
}

TEST_F(ChatClientTest, DroppedConnectionIsANetworkError) {
  ClientOptions o = options("openai");
  o.max_retries = 1;
  int retries = 0;
  o.on_retry = [&](int, const std::string&, double) { ++retries; };
  auto client = make_chat_client(o);
  ChatError e = expect_error(*client, request(" [[fake: drop]]"));
  EXPECT_EQ(e.kind(), "network") << e.what();
  EXPECT_EQ(e.http_status(), 0);
  EXPECT_EQ(retries, 1);
  EXPECT_EQ(make_chat_client(o)->complete(request(" [[fake: drop then ok]]")).attempts, 2);
}

TEST_F(ChatClientTest, RefusedConnectionIsANetworkError) {
  // A port that was free a moment ago: nothing listens there.
  int fd = socket(AF_INET, SOCK_STREAM, 0);
  sockaddr_in addr{};
  addr.sin_family = AF_INET;
  addr.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  ASSERT_EQ(bind(fd, reinterpret_cast<sockaddr*>(&addr), sizeof addr), 0);
  socklen_t len = sizeof addr;
  getsockname(fd, reinterpret_cast<sockaddr*>(&addr), &len);
  close(fd);
  ClientOptions o = options("anthropic");
  o.base_url = "http://127.0.0.1:" + std::to_string(ntohs(addr.sin_port)) + "/v1/";
  o.max_retries = 1;
  ChatError e = expect_error(*make_chat_client(o), request());
  EXPECT_EQ(e.kind(), "network") << e.what();
}

TEST_F(ChatClientTest, ConcurrentRequestsOnOneClient) {
  auto client = make_chat_client(options("openai"));
  std::vector<ChatRequest> requests;
  for (int i = 0; i < 8; ++i) requests.push_back(request(i % 2 ? " [[fake: 500 then ok]]" : ""));
  std::vector<ChatResponse> responses(requests.size());
  std::vector<std::thread> threads;
  for (size_t i = 0; i < requests.size(); ++i)
    threads.emplace_back([&, i] { responses[i] = client->complete(requests[i]); });
  for (std::thread& t : threads) t.join();
  for (size_t i = 0; i < responses.size(); ++i) {
    EXPECT_EQ(responses[i].text, canned(2));
    EXPECT_EQ(responses[i].attempts, i % 2 ? 2 : 1);
  }
}

TEST(ChatClientFactory, UnknownProvider) {
  ClientOptions o;
  o.provider = "gemini";
  EXPECT_THROW(make_chat_client(o), std::invalid_argument);
}

TEST(FakeLlmServer, AnswersFileAndDefaultDirective) {
  TempDir dir;
  write_text(dir / "answers.json", R"({"saxpy": "SAXPY ANSWER", "kernel": "KERNEL ANSWER"})");
  FakeLlmServer server;
  ASSERT_NO_FATAL_FAILURE(
      server.start("--answers " + (dir / "answers.json").string() + " --default '500 then ok'"));
  ClientOptions o;
  o.base_url = server.base_url();
  o.backoff_base_s = 0.01;
  auto client = make_chat_client(o);
  ChatRequest r;
  r.model = kModel;
  r.messages = {{"user", "Write a saxpy kernel."}};
  ChatResponse a = client->complete(r);
  EXPECT_EQ(a.text, "SAXPY ANSWER");  // the first match wins
  EXPECT_EQ(a.attempts, 2);
  r.messages = {{"user", "Write a kernel."}};
  EXPECT_EQ(client->complete(r).text, "KERNEL ANSWER");
}

TEST(RetryPolicy, ClassifiesStatuses) {
  EXPECT_EQ(classify_status(401).kind, "auth");
  EXPECT_FALSE(classify_status(403).retryable);
  EXPECT_EQ(classify_status(404).kind, "bad_request");
  EXPECT_FALSE(classify_status(422).retryable);
  EXPECT_EQ(classify_status(429).kind, "rate_limited");
  EXPECT_TRUE(classify_status(429).retryable);
  EXPECT_EQ(classify_status(529).kind, "server");
  EXPECT_TRUE(classify_status(502).retryable);
}

TEST(RetryPolicy, ParsesRetryAfter) {
  auto now = std::chrono::system_clock::from_time_t(784111777);  // Sun, 06 Nov 1994 08:49:37
  EXPECT_EQ(parse_retry_after("120", now), 120.0);
  EXPECT_EQ(parse_retry_after("1.5", now), 1.5);
  EXPECT_EQ(parse_retry_after("Sun, 06 Nov 1994 08:50:07 GMT", now), 30.0);
  EXPECT_EQ(parse_retry_after("Sunday, 06-Nov-94 08:49:47 GMT", now), 10.0);
  EXPECT_EQ(parse_retry_after("Sun, 06 Nov 1994 08:00:00 GMT", now), 0.0);  // already past
  EXPECT_EQ(parse_retry_after("soon", now), std::nullopt);
  EXPECT_EQ(parse_retry_after("12s", now), std::nullopt);
  EXPECT_EQ(parse_retry_after("", now), std::nullopt);
  EXPECT_EQ(requested_delay({{"retry-after-ms", "250"}, {"retry-after", "3"}}, now), 0.25);
  EXPECT_EQ(requested_delay({{"retry-after", "3"}}, now), 3.0);
  EXPECT_EQ(requested_delay({}, now), std::nullopt);
}

TEST(RetryPolicy, BackoffIsJitteredUnderTheCap) {
  std::mt19937_64 rng(1);
  for (int retry = 0; retry < 12; ++retry) {
    for (int i = 0; i < 50; ++i) {
      double d = backoff_delay(retry, 1.0, 60, rng);
      EXPECT_GE(d, 0.0);
      EXPECT_LE(d, std::min(60.0, std::pow(2.0, retry)));
    }
  }
  EXPECT_LE(backoff_delay(1000, 1.0, 60, rng), 60.0);
}

TEST(ApiKey, Redaction) {
  EXPECT_EQ(redact_key("sk-proj-abcdefghijklmnopWXYZ"), "sk-…WXYZ");
  EXPECT_EQ(redact_key("nvapi-abcdefghijklmnopqrstuvwxyz1234"), "nvapi-…1234");
  EXPECT_EQ(redact_key("abcdefghijklmnopqrstuvwxyz"), "…wxyz");
  EXPECT_EQ(redact_key("short-key"), "…");
  EXPECT_EQ(redact_key(""), "");
}

// Sets or unsets the key variables for one test and puts the old values back.
class ScopedKeyEnv {
 public:
  ScopedKeyEnv() {
    for (const char* name : kNames) {
      const char* v = std::getenv(name);
      saved_.push_back(v ? std::optional<std::string>(v) : std::nullopt);
      unsetenv(name);
    }
  }
  ~ScopedKeyEnv() {
    for (size_t i = 0; i < std::size(kNames); ++i) {
      if (saved_[i])
        setenv(kNames[i], saved_[i]->c_str(), 1);
      else
        unsetenv(kNames[i]);
    }
  }

 private:
  static constexpr const char* kNames[] = {"OPENAI_API_KEY", "NEMO_API_KEY", "ANTHROPIC_API_KEY"};
  std::vector<std::optional<std::string>> saved_;
};

TEST(ApiKey, EnvironmentFirst) {
  ScopedKeyEnv env;
  TempDir dir;
  write_text(dir / ".env", "OPENAI_API_KEY=from-file\nANTHROPIC_API_KEY=ant-file\n");
  EXPECT_EQ(find_api_key("openai", dir / ".env"), "from-file");
  setenv("NEMO_API_KEY", "nemo-env", 1);
  EXPECT_EQ(find_api_key("openai", dir / ".env"), "nemo-env");
  setenv("OPENAI_API_KEY", "openai-env", 1);
  EXPECT_EQ(find_api_key("openai", dir / ".env"), "openai-env");
  EXPECT_EQ(find_api_key("anthropic", dir / ".env"), "ant-file");
  setenv("ANTHROPIC_API_KEY", "ant-env", 1);
  EXPECT_EQ(find_api_key("anthropic", dir / ".env"), "ant-env");
  setenv("ANTHROPIC_API_KEY", "", 1);  // empty counts as unset
  EXPECT_EQ(find_api_key("anthropic", dir / ".env"), "ant-file");
}

TEST(ApiKey, DotenvSyntax) {
  ScopedKeyEnv env;
  TempDir dir;
  write_text(dir / ".env",
             "# keys\n"
             "\n"
             "OTHER=1\n"
             "export NEMO_API_KEY = 'nvapi-single # not a comment'\n"
             "ANTHROPIC_API_KEY=\"ant-\\\"quoted\\\"\"  # trailing\n"
             "OPENAI_API_KEY=first\n"
             "OPENAI_API_KEY=sk-bare # comment\n");
  EXPECT_EQ(find_api_key("openai", dir / ".env"), "sk-bare");  // the last line wins
  EXPECT_EQ(find_api_key("anthropic", dir / ".env"), "ant-\"quoted\"");
  write_text(dir / "nemo.env", "export NEMO_API_KEY = 'nvapi-single # not a comment'\n");
  EXPECT_EQ(find_api_key("openai", dir / "nemo.env"), "nvapi-single # not a comment");
}

TEST(ApiKey, NoneFound) {
  ScopedKeyEnv env;
  TempDir dir;
  EXPECT_EQ(find_api_key("openai", dir / "missing.env"), std::nullopt);
  write_text(dir / ".env", "# nothing here\nOPENAI_API_KEY=\n");
  EXPECT_EQ(find_api_key("openai", dir / ".env"), std::nullopt);
  EXPECT_EQ(find_api_key("anthropic", dir / ".env"), std::nullopt);
}

}  // namespace
}  // namespace kjudge
