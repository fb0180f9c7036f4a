#pragma once
// The directives popcorn-cli (GPU MODE's submission client) reads from a submission file:
// lines `#!POPCORN leaderboard NAME` and `#!POPCORN gpu NAME` (`//!POPCORN` in C++ files;
// `gpus` with a list is read too). `kjudge submit` takes the leaderboard and the GPU from them
// unless its options name them.
#include <string>
#include <vector>

namespace kjudge {

struct PopcornHeaders {
  std::string leaderboard;
  std::vector<std::string> gpus;  // `gpu NAME` once or more, or `gpus A, B`
  // Directive lines that say something kjudge does not know: shown, never silently dropped.
  std::vector<std::string> unknown;
};

PopcornHeaders read_popcorn_headers(const std::string& text);

}  // namespace kjudge
