// The progress line of a run (plan/progress.h).
#include "plan/progress.h"

#include <fmt/format.h>
#include <sys/ioctl.h>
#include <unistd.h>

namespace kjudge::plan {
namespace {

std::string format_duration(double s) {
  if (s < 0) return "?";
  int t = static_cast<int>(s + 0.5);
  if (t >= 3600) return fmt::format("{}h{:02}m", t / 3600, (t % 3600) / 60);
  if (t >= 60) return fmt::format("{}m{:02}s", t / 60, t % 60);
  return fmt::format("{}s", t);
}

}  // namespace

Progress::Progress(int total, int already_done, bool enabled, std::FILE* out)
    : total_(total),
      done_(already_done),
      enabled_(enabled),
      tty_(isatty(fileno(out)) != 0),
      out_(out),
      start_(std::chrono::steady_clock::now()) {
  if (enabled_ && tty_) draw();
}

std::string Progress::bar_line(int done, int total, int passed, int failed, int other,
                               double elapsed_s, int width) {
  double frac = total > 0 ? static_cast<double>(done) / total : 1.0;
  int bar = std::max(10, std::min(40, width - 60));
  int filled = static_cast<int>(frac * bar);
  std::string b(filled, '=');
  if (filled < bar) b += '>' + std::string(bar - filled - 1, ' ');
  // ETA from this run's own pace; resumed work done earlier does not count.
  const std::string eta = done >= total ? std::string("0s")
                          : (done > 0 && elapsed_s > 0)
                              ? format_duration(elapsed_s / done * (total - done))
                              : std::string("?");
  return fmt::format("[{}] {}/{}  pass {}  fail {}  other {}  {}  ETA {}", b, done, total, passed,
                     failed, other, format_duration(elapsed_s), eta);
}

void Progress::draw() {
  struct winsize ws {};
  int width = (ioctl(fileno(out_), TIOCGWINSZ, &ws) == 0 && ws.ws_col > 0) ? ws.ws_col : 100;
  double elapsed = std::chrono::duration<double>(std::chrono::steady_clock::now() - start_).count();
  // Pace from this run only, extrapolated over what is left.
  int left = total_ - done_;
  std::string line =
      bar_line(done_this_run_, done_this_run_ + left, passed_, failed_, other_, elapsed, width);
  if (static_cast<int>(line.size()) > width - 1) line.resize(width - 1);
  std::fprintf(out_, "\r\033[K%s", line.c_str());
  std::fflush(out_);
}

void Progress::update(const GradedSolution& g) {
  std::lock_guard<std::mutex> lock(mu_);
  ++done_;
  ++done_this_run_;
  if (g.verdict == Verdict::pass)
    ++passed_;
  else if (counts_for_model(g.verdict))
    ++failed_;
  else
    ++other_;
  if (!enabled_) return;
  if (tty_) {
    draw();
    return;
  }
  std::string extra = g.skip_code.empty() ? "" : " (" + g.skip_code + ")";
  std::fprintf(out_, "[%d/%d] %s#%d %s%s %.1fs\n", done_, total_, g.task_id.c_str(), g.sample,
               std::string(to_string(g.verdict)).c_str(), extra.c_str(), g.total_s);
  std::fflush(out_);
}

void Progress::finish() {
  std::lock_guard<std::mutex> lock(mu_);
  if (enabled_ && tty_) {
    draw();
    std::fprintf(out_, "\n");
    std::fflush(out_);
  }
}

}  // namespace kjudge::plan
