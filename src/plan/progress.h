#pragma once
// Live progress of a run. On a terminal: one line redrawn in place (done/total, pass/fail,
// ETA). Otherwise: one plain line per graded solution, fit for logs and CI.
#include <chrono>
#include <cstdio>
#include <mutex>
#include <string>

#include "eval/graded.h"

namespace kjudge::plan {

class Progress {
 public:
  // `enabled` false prints nothing at all (--quiet, --json on a pipe).
  Progress(int total, int already_done, bool enabled, std::FILE* out = stderr);
  void update(const GradedSolution& g);
  void finish();
  // For tests: how the redrawn line looks.
  static std::string bar_line(int done, int total, int passed, int failed, int other,
                              double elapsed_s, int width);

 private:
  void draw();
  int total_, done_, passed_ = 0, failed_ = 0, other_ = 0;
  int done_this_run_ = 0;
  bool enabled_, tty_;
  std::FILE* out_;
  std::chrono::steady_clock::time_point start_;
  std::mutex mu_;
};

}  // namespace kjudge::plan
