#pragma once
// The service's web page, rendered on the server (light JavaScript only for the chart):
// the leaderboards, one board's ranking per GPU type with the viewer's personal best and a
// chart of the best score over time (Chart.js from Debian's libjs-chart.js, served by the
// service itself: the page makes no request elsewhere), a submit form, and a submission's
// status with its runs and logs. Everything a user wrote is HTML-escaped.
#include <optional>
#include <string>
#include <vector>

#include "board/store.h"
#include "core/html_escape.h"

namespace kjudge::board {

using kjudge::html_escape;

std::string page_index(const std::vector<Leaderboard>& boards, const std::optional<User>& viewer);

struct BoardView {
  std::string gpu_type;
  std::vector<RankEntry> ranking;
  std::vector<std::pair<std::int64_t, double>> history;  // (ended_us, score)
};
// `code_name`: a pack board's solution file, which the form's one code box becomes ("" on a
// task board).
std::string page_board(const Leaderboard& board, const std::vector<BoardView>& views,
                       const std::optional<User>& viewer, const std::string& code_name = "");

// The admin's list of flagged ranked runs waiting for review, each with its flags and a form
// to clear it (it ranks) or reject it (it never does).
std::string page_reviews(const std::vector<ReviewItem>& items, const User& admin);

std::string page_submission(const Submission& sub, const std::vector<Run>& runs, bool admin);

std::string page_message(const std::string& title, const std::string& text);

}  // namespace kjudge::board
