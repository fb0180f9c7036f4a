// The judge's end of a KernelBench runner's control channel.
// Declared, and explained, in kernelbench/runner/control.h.
#include "kernelbench/runner/control.h"

#include <fmt/format.h>
#include <signal.h>
#include <sys/socket.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <stdexcept>

#include "core/sha256.h"

namespace kjudge::kernelbench {
namespace {

constexpr std::size_t kLineCap = 256;
constexpr std::size_t kEventCap = 1u << 16;

bool parse_count(const std::string& w, std::size_t& out) {
  if (w.empty() || w.size() > 7 || w.find_first_not_of("0123456789") != std::string::npos)
    return false;
  out = static_cast<std::size_t>(std::stoul(w));
  return true;
}

// A time in ms ("-": not timed, NaN): finite and positive, as no real call takes no time.
bool parse_ms(const std::string& w, double& out, bool dash_ok) {
  if (w == "-") {
    out = NAN;
    return dash_ok;
  }
  if (w.empty() || w.size() > 40) return false;
  char* end = nullptr;
  out = std::strtod(w.c_str(), &end);
  return end == w.c_str() + w.size() && std::isfinite(out) && out > 0;
}

std::vector<std::string> words(const std::string& line) {
  std::vector<std::string> w;
  for (std::size_t i = 0; i < line.size();) {
    const std::size_t j = std::min(line.find(' ', i), line.size());
    w.push_back(line.substr(i, j - i));
    i = j + 1;
  }
  return w;
}

}  // namespace

std::int64_t realtime_ns() {
  timespec ts{};
  clock_gettime(CLOCK_REALTIME, &ts);
  return static_cast<std::int64_t>(ts.tv_sec) * 1000000000 + ts.tv_nsec;
}

std::string pair_key(std::uint64_t secret, std::size_t pair) {
  return sha256_hex(fmt::format("{:016x}/kjudge-kernelbench/pair/{}", secret, pair)).substr(0, 32);
}

ControlServer::ControlServer(GpuGate& gate, std::uint64_t secret, bool allow_time, double limit_s)
    : gate_(gate), secret_(secret), allow_time_(allow_time), limit_s_(limit_s) {
  int fds[2];
  if (socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, fds) != 0)
    throw std::runtime_error("cannot make the runner's control channel");
  judge_ = fds[0];
  child_ = fds[1];
  // Every message the runner sends then carries its sender's credentials, its pid as the judge
  // sees it (the kernel translates it out of the sandbox's pid namespace, and a process can only
  // send its own).
  const int on = 1;
  if (setsockopt(judge_, SOL_SOCKET, SO_PASSCRED, &on, sizeof on) != 0) {
    close(judge_);
    close(child_);
    throw std::runtime_error("cannot ask for the control channel's credentials");
  }
}

ControlServer::~ControlServer() {
  (void)stop();
  close(judge_);
  close(child_);
  if (pidfd_ >= 0) close(pidfd_);
}

void ControlServer::start(std::int64_t spawn_ns) {
  log_ = ControlLog{};
  log_.served = true;
  log_.spawn_ns = spawn_ns;
  stopping_ = false;
  waited_ns_ = waiting_since_ns_ = 0;
  thread_ = std::thread([this] { serve(); });
  if (limit_s_ > 0) watchdog_ = std::thread([this] { watch(); });
}

void ControlServer::watch() {
  std::unique_lock<std::mutex> lock(mu_);
  while (!stopping_) {
    cv_.wait_for(lock, std::chrono::milliseconds(100));
    const std::int64_t now = realtime_ns();
    const std::int64_t waiting = waiting_since_ns_ ? now - waiting_since_ns_ : 0;
    const double own_s = static_cast<double>(now - log_.spawn_ns - waited_ns_ - waiting) / 1e9;
    if (own_s <= limit_s_ || pidfd_ < 0 || log_.killed) continue;
    // pidfd: the process that said hello, never a later one that took its number.
    if (syscall(SYS_pidfd_send_signal, pidfd_, SIGKILL, nullptr, 0) == 0) log_.killed = true;
  }
}

ControlLog ControlServer::stop() {
  if (!thread_.joinable()) return ControlLog{};
  {
    std::lock_guard<std::mutex> lock(mu_);
    stopping_ = true;
  }
  cv_.notify_all();
  gate_.poke();
  // The judge holds the runner's end too, so no end of file would come: wake the thread.
  shutdown(judge_, SHUT_RDWR);
  thread_.join();
  if (watchdog_.joinable()) watchdog_.join();
  {
    std::lock_guard<std::mutex> lock(mu_);
    log_.waited_s = static_cast<double>(waited_ns_) / 1e9;
  }
  if (ticket_ != 0) {
    if (gate_.revoked(ticket_)) log_.revoked = true;
    gate_.release(ticket_);
    ticket_ = 0;
  }
  state_ = State::idle;
  return std::move(log_);
}

void ControlServer::send_line(const std::string& line) {
  std::string_view v = line;
  while (!v.empty()) {
    const ssize_t n = send(judge_, v.data(), v.size(), MSG_NOSIGNAL);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) return;
    v.remove_prefix(static_cast<std::size_t>(n));
  }
}

void ControlServer::serve() {
  std::string buf;
  char tmp[512];
  for (;;) {
    iovec iov{tmp, sizeof tmp};
    alignas(cmsghdr) char control[CMSG_SPACE(sizeof(ucred))];
    msghdr msg{};
    msg.msg_iov = &iov;
    msg.msg_iovlen = 1;
    msg.msg_control = control;
    msg.msg_controllen = sizeof control;
    const ssize_t n = recvmsg(judge_, &msg, MSG_CMSG_CLOEXEC);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) return;
    const std::int64_t now = realtime_ns();
    pid_t sender = 0;
    for (cmsghdr* c = CMSG_FIRSTHDR(&msg); c; c = CMSG_NXTHDR(&msg, c))
      if (c->cmsg_level == SOL_SOCKET && c->cmsg_type == SCM_CREDENTIALS) {
        ucred cred{};
        std::memcpy(&cred, CMSG_DATA(c), sizeof cred);
        sender = cred.pid;
      }
    buf.append(tmp, static_cast<std::size_t>(n));
    std::size_t nl;
    while ((nl = buf.find('\n')) != std::string::npos) {
      const std::string line = buf.substr(0, nl);
      buf.erase(0, nl + 1);
      if (line.size() > kLineCap) {
        log_.violation = "a message longer than 256 bytes";
        send_line("refused\n");
        return;
      }
      if (line == "hello" && log_.events.empty() && sender > 0) {
        std::lock_guard<std::mutex> lock(mu_);
        if (pidfd_ < 0) pidfd_ = static_cast<int>(syscall(SYS_pidfd_open, sender, 0));
      }
      std::string reply;
      const std::string bad = handle(line, now, reply);
      if (!bad.empty()) {
        log_.violation = bad;
        send_line("refused\n");
        return;
      }
      if (stopping_) return;
      log_.events.back().answer_ns = realtime_ns();
      log_.events.back().answer = reply;
      send_line(reply + "\n");
    }
    if (buf.size() > kLineCap) {
      log_.violation = "a message longer than 256 bytes";
      send_line("refused\n");
      return;
    }
  }
}

std::string ControlServer::handle(const std::string& line, std::int64_t now, std::string& reply) {
  const std::vector<std::string> w = words(line);
  const std::string quoted = "'" + line.substr(0, 80) + "'";
  if (log_.events.size() >= kEventCap) return "more than 65536 messages";
  if (w.empty() || w[0].empty()) return "an empty message";
  ControlEvent e;
  e.at_ns = now;
  const std::string& verb = w[0];
  // The gate's waits are not the runner's own time: the watchdog leaves them out.
  auto waiting = [&](bool on) {
    std::lock_guard<std::mutex> lock(mu_);
    const std::int64_t t = realtime_ns();
    if (on) {
      waiting_since_ns_ = t;
    } else {
      waited_ns_ += t - waiting_since_ns_;
      waiting_since_ns_ = 0;
    }
  };
  auto wait_for = [&](auto acquire) {
    waiting(true);
    const GpuGate::Ticket t = acquire();
    waiting(false);
    return t;
  };
  if (verb == "hello" && w.size() == 1) {
    if (!log_.events.empty()) return "said hello twice";
    e.kind = ControlEvent::Kind::hello;
    reply = "ok";
  } else if (log_.events.empty()) {
    return "did not say hello first: " + quoted;
  } else if (verb == "gpu" && w.size() == 1) {
    if (state_ != State::idle) return "asked for the GPU while holding it";
    e.kind = ControlEvent::Kind::gpu;
    ticket_ = wait_for([&] { return gate_.acquire_shared(&stopping_); });
    state_ = State::shared;
    reply = "go";
  } else if (verb == "idle" && w.size() == 1) {
    if (state_ != State::shared) return "released a shared phase it did not hold";
    e.kind = ControlEvent::Kind::idle;
    if (gate_.revoked(ticket_)) log_.revoked = true;
    gate_.release(ticket_);
    ticket_ = 0;
    state_ = State::idle;
    reply = "ok";
  } else if (verb == "solo" && w.size() == 1) {
    // A shared phase taken alone: a run retried because it ran out of GPU memory beside others.
    if (state_ != State::idle) return "asked for the GPU while holding it";
    e.kind = ControlEvent::Kind::solo;
    ticket_ = wait_for([&] { return gate_.acquire_exclusive(&stopping_); });
    state_ = State::solo;
    reply = "go";
  } else if (verb == "time" && w.size() == 1) {
    if (state_ != State::idle) return "asked to be timed while holding the GPU";
    if (log_.timed) return "asked to be timed twice";
    e.kind = ControlEvent::Kind::time;
    if (allow_time_) {
      ticket_ = wait_for([&] { return gate_.acquire_exclusive(&stopping_); });
      state_ = State::exclusive;
      log_.timed = true;
      reply = "go";
    } else {
      reply = "skip";
    }
  } else if (verb == "pair" && w.size() == 2) {
    if (state_ != State::exclusive) return "asked for a pair's key outside the timed phase";
    if (!parse_count(w[1], e.pair)) return "a malformed message " + quoted;
    if (keyed_ || e.pair != next_pair_)
      return fmt::format("the key of pair {} asked for out of turn (pair {} was next)", e.pair,
                         next_pair_);
    e.kind = ControlEvent::Kind::pair;
    keyed_ = true;
    reply = "k " + pair_key(secret_, e.pair);
  } else if (verb == "done" && w.size() == 9) {
    if (state_ != State::exclusive) return "a pair done outside the timed phase";
    if (!parse_count(w[1], e.pair)) return "a malformed message " + quoted;
    if (!keyed_ || e.pair != next_pair_)
      return fmt::format("pair {} said done out of turn", e.pair);
    if (!parse_ms(w[2], e.sol_ms, false) || !parse_ms(w[3], e.ref_ms, false) ||
        !parse_ms(w[4], e.cmp_ms, true) || !parse_ms(w[5], e.sol_dev_ms, false) ||
        !parse_ms(w[6], e.ref_dev_ms, false) || !parse_ms(w[7], e.cmp_dev_ms, true) ||
        std::isnan(e.cmp_ms) != std::isnan(e.cmp_dev_ms) || (w[8] != "0" && w[8] != "1"))
      return "a malformed message " + quoted;
    e.kind = ControlEvent::Kind::done;
    e.ok = w[8] == "1";
    keyed_ = false;
    ++next_pair_;
    reply = fmt::format("a {}", e.pair);
  } else if (verb == "end" && w.size() == 1) {
    if (state_ != State::exclusive && state_ != State::solo)
      return "ended a timed phase it did not hold";
    if (keyed_) return "ended the timed phase inside a pair";
    e.kind = ControlEvent::Kind::end;
    gate_.release(ticket_);
    ticket_ = 0;
    state_ = State::idle;
    reply = "ok";
  } else {
    return "a message the judge has no use for: " + quoted;
  }
  log_.events.push_back(std::move(e));
  return "";
}

}  // namespace kjudge::kernelbench
