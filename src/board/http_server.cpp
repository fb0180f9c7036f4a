#include "board/http_server.h"

#include <sys/socket.h>

#include <array>
#include <boost/asio.hpp>
#include <boost/beast/core.hpp>
#include <boost/beast/http.hpp>
#include <cctype>
#include <cerrno>
#include <cstdio>
#include <optional>

#include "board/work_pool.h"

namespace kjudge::board {

namespace asio = boost::asio;
namespace beast = boost::beast;
namespace http = beast::http;
using tcp = asio::ip::tcp;

std::string HttpRequest::header(const std::string& lower_name) const {
  auto it = headers.find(lower_name);
  return it == headers.end() ? std::string() : it->second;
}

std::string HttpRequest::param(const std::string& name) const {
  auto it = params.find(name);
  return it == params.end() ? std::string() : it->second;
}

void HttpResponse::set_header(const std::string& name, const std::string& value) {
  for (auto& [n, v] : headers)
    if (beast::iequals(n, name)) {
      v = value;
      return;
    }
  headers.emplace_back(name, value);
}

void HttpResponse::redirect(const std::string& location, int code) {
  status = code;
  set_header("Location", location);
}

std::string url_decode(const std::string& s, bool plus_is_space) {
  std::string out;
  out.reserve(s.size());
  auto hex = [](char c) -> int {
    if (c >= '0' && c <= '9') return c - '0';
    if (c >= 'a' && c <= 'f') return c - 'a' + 10;
    if (c >= 'A' && c <= 'F') return c - 'A' + 10;
    return -1;
  };
  for (std::size_t i = 0; i < s.size(); ++i) {
    if (s[i] == '%' && i + 2 < s.size() && hex(s[i + 1]) >= 0 && hex(s[i + 2]) >= 0) {
      out += static_cast<char>(hex(s[i + 1]) * 16 + hex(s[i + 2]));
      i += 2;
    } else {
      out += plus_is_space && s[i] == '+' ? ' ' : s[i];
    }
  }
  return out;
}

void parse_query(const std::string& text, std::multimap<std::string, std::string>& out) {
  std::size_t a = 0;
  while (a <= text.size()) {
    std::size_t e = text.find('&', a);
    if (e == std::string::npos) e = text.size();
    const std::string pair = text.substr(a, e - a);
    if (!pair.empty()) {
      const std::size_t eq = pair.find('=');
      out.emplace(url_decode(pair.substr(0, eq), true),
                  eq == std::string::npos ? "" : url_decode(pair.substr(eq + 1), true));
    }
    a = e + 1;
  }
}

// Outside the anonymous namespace: HttpServer::Impl holds routes, and a unity build (where this
// file is included, not compiled alone) warns of a member whose type has internal linkage.
struct HttpRoute {
  std::string method;
  std::regex pattern;
  HttpHandler plain;
  HttpDeferredHandler deferred;
};

namespace {

// The transport's own answers (busy, too large, no route) are JSON like the API's.
HttpResponse plain_error(int status, const std::string& why) {
  HttpResponse r;
  r.status = status;
  std::string escaped;
  for (char c : why) escaped += c == '"' || c == '\\' ? std::string("\\") + c : std::string(1, c);
  r.body = "{\"error\": \"" + escaped + "\"}\n";
  r.content_type = "application/json";
  return r;
}

HttpResponse busy(const std::string& why) {
  HttpResponse r = plain_error(503, why);
  r.set_header("Retry-After", "1");
  return r;
}

}  // namespace

struct HttpServer::Impl {
  HttpServer& owner;
  asio::io_context ioc{1};
  tcp::acceptor acceptor{ioc};
  asio::steady_timer accept_retry{ioc};
  std::vector<HttpRoute> routes;
  std::vector<std::pair<std::string, std::string>> default_headers;
  WorkPool pool;
  std::thread thread;

  explicit Impl(HttpServer& o) : owner(o), pool(o.limits_.workers, o.limits_.max_queued) {}
  void accept();
  std::atomic<int>& connections() { return owner.connections_; }
};

namespace {

std::chrono::steady_clock::duration seconds(double s) {
  return std::chrono::duration_cast<std::chrono::steady_clock::duration>(
      std::chrono::duration<double>(s));
}

class Session : public std::enable_shared_from_this<Session> {
 public:
  Session(HttpServer::Impl& server, tcp::socket socket, bool counted)
      : server_(server), stream_(std::move(socket)), counted_(counted) {}
  ~Session() {
    if (counted_) server_.connections().fetch_sub(1);
  }

  void read() {
    parser_.emplace();
    parser_->header_limit(static_cast<std::uint32_t>(limits().max_header_bytes));
    parser_->body_limit(limits().max_body_bytes);
    // One deadline for the whole request, headers and body: a client that sends a byte now and
    // then is cut when it runs out, whatever its pace.
    stream_.expires_after(seconds(limits().request_timeout_s));
    http::async_read_header(
        stream_, buffer_, *parser_,
        [self = shared_from_this()](beast::error_code ec, std::size_t) { self->on_header(ec); });
  }

  // Answers without reading (over the connection limit), then closes.
  void refuse(HttpResponse r) {
    keep_alive_ = false;
    write(std::move(r));
  }

  void write(HttpResponse r) {
    auto msg = std::make_shared<http::response<http::string_body>>();
    msg->version(11);
    msg->result(static_cast<unsigned>(r.status));
    msg->set(http::field::content_type, r.content_type);
    for (const auto& [n, v] : server_.default_headers) msg->set(n, v);
    for (const auto& [n, v] : r.headers) msg->set(n, v);
    msg->body() = std::move(r.body);
    msg->keep_alive(keep_alive_);
    msg->prepare_payload();
    stream_.expires_after(seconds(limits().write_timeout_s));
    http::async_write(stream_, *msg,
                      [self = shared_from_this(), msg](beast::error_code ec, std::size_t) {
                        self->on_write(ec);
                      });
  }

 private:
  const HttpLimits& limits() const { return server_.owner.limits(); }

  void on_header(beast::error_code ec) {
    if (ec == http::error::header_limit)
      return refuse(plain_error(431, "the headers are too large"));
    if (ec == http::error::body_limit) return refuse(plain_error(413, "the body is too large"));
    if (ec) return close();
    if (beast::iequals(parser_->get()[http::field::expect], "100-continue")) {
      static const std::string kContinue = "HTTP/1.1 100 Continue\r\n\r\n";
      asio::async_write(stream_, asio::buffer(kContinue),
                        [self = shared_from_this()](beast::error_code e, std::size_t) {
                          if (e) return self->close();
                          self->read_body();
                        });
      return;
    }
    read_body();
  }

  void read_body() {
    http::async_read(
        stream_, buffer_, *parser_,
        [self = shared_from_this()](beast::error_code ec, std::size_t) { self->on_read(ec); });
  }

  void on_read(beast::error_code ec) {
    if (ec == http::error::body_limit) return refuse(plain_error(413, "the body is too large"));
    if (ec) return close();
    // The handler decides how long it takes (a long poll, its own deadline); the socket waits.
    stream_.expires_never();
    dispatch(parser_->release());
  }

  void dispatch(http::request<http::string_body> msg) {
    keep_alive_ = msg.keep_alive();
    HttpRequest req;
    req.method = std::string(msg.method_string());
    const std::string target(msg.target());
    const std::size_t q = target.find('?');
    req.path = url_decode(target.substr(0, q), false);
    if (q != std::string::npos) parse_query(target.substr(q + 1), req.params);
    for (const auto& f : msg) {
      std::string name(f.name_string());
      for (auto& c : name) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
      req.headers.emplace(std::move(name), std::string(f.value()));
    }
    req.body = std::move(msg.body());
    if (req.header("content-type").rfind("application/x-www-form-urlencoded", 0) == 0)
      parse_query(req.body, req.params);

    bool path_known = false;
    for (const HttpRoute& r : server_.routes) {
      std::smatch m;
      if (!std::regex_match(req.path, m, r.pattern)) continue;
      path_known = true;
      if (r.method != req.method) continue;
      for (const auto& g : m) req.matches.push_back(g.str());
      return run(r, std::move(req));
    }
    write(plain_error(path_known ? 405 : 404, path_known ? "method not allowed" : "not found"));
  }

  void run(const HttpRoute& route, HttpRequest req) {
    // The answer comes back to the network thread, whichever thread gives it.
    auto gone = std::make_shared<std::atomic<bool>>(false);
    HttpResponder respond(
        [self = shared_from_this()](HttpResponse r) {
          asio::post(self->stream_.get_executor(),
                     [self, r = std::move(r)]() mutable { self->write(std::move(r)); });
        },
        gone);
    if (route.deferred) watch(gone);
    const bool queued = server_.pool.try_post(
        [plain = route.plain, deferred = route.deferred, req = std::move(req), respond]() {
          try {
            if (deferred) return deferred(req, respond);
            HttpResponse res;
            plain(req, res);
            respond(std::move(res));
          } catch (const std::exception& e) {
            // The reason goes to the log, not to the client: it may be a library's own words.
            std::fprintf(stderr, "kjudge serve: %s %s: %s\n", req.method.c_str(), req.path.c_str(),
                         e.what());
            respond(plain_error(500, "internal error"));
          }
        });
    if (!queued) write(busy("the service is busy; try again"));
  }

  // While a deferred answer is awaited, a readable socket is either the client's next request
  // sent early (left for read() to take) or its close: then the request is marked gone and the
  // connection closed, so its waiter can be dropped at once rather than at its deadline.
  void watch(std::shared_ptr<std::atomic<bool>> gone) {
    stream_.socket().async_wait(
        tcp::socket::wait_read, [self = shared_from_this(), gone](beast::error_code ec) {
          if (ec) return;
          char c;
          const ssize_t n =
              ::recv(self->stream_.socket().native_handle(), &c, 1, MSG_PEEK | MSG_DONTWAIT);
          if (n == 0 || (n < 0 && errno != EAGAIN && errno != EWOULDBLOCK && errno != EINTR)) {
            gone->store(true);
            self->close();
          }
        });
  }

  void on_write(beast::error_code ec) {
    if (ec) return close();
    if (!keep_alive_) return linger();
    read();
  }

  // Closing a socket with unread bytes in it resets the connection, and the reset can overtake
  // the answer just written (a 503, a 413): the client would see no answer. So: no more
  // sending, then read and drop what comes for a second, or until the client closes.
  void linger() {
    beast::error_code ignored;
    stream_.socket().shutdown(tcp::socket::shutdown_send, ignored);
    stream_.expires_after(std::chrono::seconds(1));
    drain();
  }

  void drain() {
    stream_.async_read_some(asio::buffer(sink_),
                            [self = shared_from_this()](beast::error_code ec, std::size_t) {
                              if (ec) return self->close();
                              self->drain();
                            });
  }

  void close() {
    beast::error_code ignored;
    stream_.socket().shutdown(tcp::socket::shutdown_both, ignored);
    stream_.close();
  }

  HttpServer::Impl& server_;
  beast::tcp_stream stream_;
  beast::flat_buffer buffer_;
  std::optional<http::request_parser<http::string_body>> parser_;
  bool keep_alive_ = true;
  bool counted_;
  std::array<char, 4096> sink_;
};

}  // namespace

void HttpServer::Impl::accept() {
  acceptor.async_accept(ioc, [this](beast::error_code ec, tcp::socket socket) {
    if (!acceptor.is_open()) return;
    if (ec) {
      // Out of descriptors (EMFILE) and the like: try again shortly rather than spin.
      accept_retry.expires_after(std::chrono::milliseconds(50));
      accept_retry.async_wait([this](beast::error_code) { accept(); });
      return;
    }
    if (owner.connections_.fetch_add(1) >= owner.limits_.max_connections) {
      owner.connections_.fetch_sub(1);
      std::make_shared<Session>(*this, std::move(socket), false)
          ->refuse(busy("too many connections; try again"));
    } else {
      std::make_shared<Session>(*this, std::move(socket), true)->read();
    }
    accept();
  });
}

HttpServer::HttpServer(HttpLimits limits) : limits_(limits), impl_(std::make_unique<Impl>(*this)) {}

HttpServer::~HttpServer() { stop(); }

void HttpServer::route(const std::string& method, const std::string& pattern, HttpHandler h) {
  impl_->routes.push_back({method, std::regex(pattern), std::move(h), nullptr});
}

void HttpServer::route_deferred(const std::string& method, const std::string& pattern,
                                HttpDeferredHandler h) {
  impl_->routes.push_back({method, std::regex(pattern), nullptr, std::move(h)});
}

void HttpServer::set_default_headers(std::vector<std::pair<std::string, std::string>> headers) {
  impl_->default_headers = std::move(headers);
}

bool HttpServer::post_work(std::function<void()> job) {
  return impl_->pool.try_post(std::move(job));
}

bool HttpServer::start(const std::string& host, int port) {
  beast::error_code ec;
  tcp::resolver resolver(impl_->ioc);
  auto found = resolver.resolve(host, std::to_string(port), ec);
  if (ec || found.empty()) return false;
  const tcp::endpoint ep = *found.begin();
  tcp::acceptor& a = impl_->acceptor;
  a.open(ep.protocol(), ec);
  if (!ec) a.set_option(asio::socket_base::reuse_address(true), ec);
  if (!ec) a.bind(ep, ec);
  // The kernel's largest backlog (SOMAXCONN): a burst of clients queues rather than being reset.
  if (!ec) a.listen(asio::socket_base::max_listen_connections, ec);
  if (ec) return false;
  port_ = a.local_endpoint().port();
  impl_->accept();
  impl_->thread = std::thread([this] { impl_->ioc.run(); });
  return true;
}

void HttpServer::stop() {
  if (!impl_) return;
  if (impl_->thread.joinable()) {
    impl_->ioc.stop();
    impl_->thread.join();
  }
  impl_->pool.stop();
}

}  // namespace kjudge::board
