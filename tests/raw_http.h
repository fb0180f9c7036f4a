#pragma once
// HTTP over plain loopback sockets, for tests that must misbehave as a client would: send a
// request a byte at a time, hold a connection open without a request, or keep thousands open.
#include <arpa/inet.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <poll.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cstdint>
#include <string>

namespace kjudge::testing {

// A connected socket to 127.0.0.1:port, or -1.
inline int connect_loopback(int port) {
  const int fd = socket(AF_INET, SOCK_STREAM, 0);
  if (fd < 0) return -1;
  sockaddr_in a{};
  a.sin_family = AF_INET;
  a.sin_port = htons(static_cast<std::uint16_t>(port));
  a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  if (connect(fd, reinterpret_cast<sockaddr*>(&a), sizeof a) != 0) {
    close(fd);
    return -1;
  }
  const int one = 1;
  setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof one);
  return fd;
}

inline bool send_all(int fd, const std::string& bytes) {
  std::size_t sent = 0;
  while (sent < bytes.size()) {
    const ssize_t n = ::send(fd, bytes.data() + sent, bytes.size() - sent, MSG_NOSIGNAL);
    if (n <= 0) return false;
    sent += static_cast<std::size_t>(n);
  }
  return true;
}

// What arrives until the peer closes or `timeout_ms` passes.
inline std::string read_until_close(int fd, int timeout_ms) {
  std::string out;
  const auto end = std::chrono::steady_clock::now() + std::chrono::milliseconds(timeout_ms);
  char buf[8192];
  for (;;) {
    const auto left = std::chrono::duration_cast<std::chrono::milliseconds>(
                          end - std::chrono::steady_clock::now())
                          .count();
    if (left <= 0) break;
    pollfd p{fd, POLLIN, 0};
    if (poll(&p, 1, static_cast<int>(left)) <= 0) break;
    const ssize_t n = ::recv(fd, buf, sizeof buf, 0);
    if (n <= 0) break;
    out.append(buf, static_cast<std::size_t>(n));
  }
  return out;
}

// True when the peer has closed the connection (EOF or reset) within `timeout_ms`.
inline bool closed_by_peer(int fd, int timeout_ms) {
  pollfd p{fd, POLLIN, 0};
  if (poll(&p, 1, timeout_ms) <= 0) return false;
  char c;
  return ::recv(fd, &c, 1, MSG_PEEK) <= 0;
}

// One request with `Connection: close`; the whole response (status line, headers, body).
inline std::string exchange(int port, const std::string& request, int timeout_ms = 10000) {
  const int fd = connect_loopback(port);
  if (fd < 0) return "";
  std::string out;
  if (send_all(fd, request)) out = read_until_close(fd, timeout_ms);
  close(fd);
  return out;
}

inline int status_of(const std::string& response) {
  return response.rfind("HTTP/1.1 ", 0) == 0 ? std::stoi(response.substr(9, 3)) : 0;
}

// The value of header `name` (as the server spells it) in a response, or "".
inline std::string header_of(const std::string& response, const std::string& name) {
  const std::string key = "\r\n" + name + ": ";
  const std::size_t a = response.find(key);
  if (a == std::string::npos || a > response.find("\r\n\r\n")) return "";
  const std::size_t b = a + key.size();
  return response.substr(b, response.find("\r\n", b) - b);
}

// The process may hold `want` descriptors (up to the hard limit); the limit it got.
inline rlim_t raise_fd_limit(rlim_t want) {
  rlimit r{};
  getrlimit(RLIMIT_NOFILE, &r);
  if (r.rlim_cur < want) {
    r.rlim_cur = std::min(want, r.rlim_max);
    setrlimit(RLIMIT_NOFILE, &r);
  }
  return r.rlim_cur;
}

}  // namespace kjudge::testing
