#pragma once
// The service's HTTP transport (issue 32): Boost.Beast on one Asio network thread, so a
// connection costs a socket and a buffer, not a thread. What it guarantees:
//   - a request (headers and body) arrives within `request_timeout_s` of the connection
//     becoming ready for it, however slowly its bytes trickle; a keep-alive connection idle that
//     long is closed too;
//   - at most `max_connections` connections are held; the next ones get 503 + Retry-After;
//   - handlers run on a bounded pool (`workers` threads, `max_queued` waiting); a full queue is
//     answered 503 + Retry-After at once;
//   - a handler may answer later (HttpResponder), so a long poll holds no thread while it waits,
//     and its socket is watched meanwhile: a client that hangs up is seen as gone;
//   - every response carries the security headers (security_headers.h).
#include <atomic>
#include <chrono>
#include <cstddef>
#include <functional>
#include <map>
#include <memory>
#include <regex>
#include <string>
#include <thread>
#include <utility>
#include <vector>

namespace kjudge::board {

struct HttpRequest {
  std::string method;  // "GET", "POST" …
  std::string path;    // percent-decoded, without the query
  std::string body;
  std::map<std::string, std::string> headers;  // names lower-cased
  // The query's parameters, then (for a form-encoded body) the form's; the first of a name wins.
  std::multimap<std::string, std::string> params;
  std::vector<std::string> matches;  // the route's regex groups; [0] is the whole path

  std::string header(const std::string& lower_name) const;
  bool has_param(const std::string& name) const { return params.count(name) > 0; }
  std::string param(const std::string& name) const;
};

struct HttpResponse {
  int status = 200;
  std::string body;
  std::string content_type = "text/plain; charset=utf-8";
  std::vector<std::pair<std::string, std::string>> headers;

  void set_header(const std::string& name, const std::string& value);
  void redirect(const std::string& location, int status = 303);
};

// Answers one request, once, from any thread. Dropping it unanswered closes the connection.
class HttpResponder {
 public:
  HttpResponder(std::function<void(HttpResponse)> send,
                std::shared_ptr<const std::atomic<bool>> gone = nullptr)
      : send_(std::move(send)), gone_(std::move(gone)) {}
  void operator()(HttpResponse r) const { send_(std::move(r)); }
  // The client closed its connection while it waited: no answer will be read. A parked long
  // poll is dropped then, so a client that hangs up gives its connection slot back.
  bool gone() const { return gone_ && gone_->load(); }

 private:
  std::function<void(HttpResponse)> send_;
  std::shared_ptr<const std::atomic<bool>> gone_;
};
using HttpHandler = std::function<void(const HttpRequest&, HttpResponse&)>;
using HttpDeferredHandler = std::function<void(const HttpRequest&, HttpResponder)>;

struct HttpLimits {
  int max_connections = 10000;
  double request_timeout_s = 10;
  // How long writing one response may take (a client that stops reading is cut after it).
  double write_timeout_s = 30;
  std::size_t max_header_bytes = 16u << 10;
  std::size_t max_body_bytes = 16u << 20;
  int workers = 4;
  // A waiting request costs its memory only (its connection holds that anyway): a burst of a
  // thousand clients is queued, not refused.
  std::size_t max_queued = 1024;
};

class HttpServer {
 public:
  explicit HttpServer(HttpLimits limits = {});
  ~HttpServer();
  HttpServer(const HttpServer&) = delete;
  HttpServer& operator=(const HttpServer&) = delete;

  // `pattern` matches the whole decoded path. Routes are tried in the order added.
  void route(const std::string& method, const std::string& pattern, HttpHandler h);
  void route_deferred(const std::string& method, const std::string& pattern, HttpDeferredHandler h);
  // Sent with every response, the transport's own answers included.
  void set_default_headers(std::vector<std::pair<std::string, std::string>> headers);
  // Runs `job` on the handlers' pool; false when its queue is full.
  bool post_work(std::function<void()> job);

  // Binds (port 0: any free port) and serves; false when it cannot bind.
  bool start(const std::string& host, int port);
  int port() const { return port_; }
  void stop();
  const HttpLimits& limits() const { return limits_; }
  int connections() const { return connections_.load(); }

  struct Impl;

 private:
  HttpLimits limits_;
  std::atomic<int> connections_{0};  // before impl_: its sessions count down as they go
  std::unique_ptr<Impl> impl_;
  int port_ = 0;
};

// `s` with %XX decoded, and '+' as a space where `plus_is_space` (form and query text).
std::string url_decode(const std::string& s, bool plus_is_space);
// `a=1&b=2` into `out`.
void parse_query(const std::string& text, std::multimap<std::string, std::string>& out);

}  // namespace kjudge::board
