// A run as CSV: a header, one row per results.jsonl line, the speedup columns only with a
// perf.jsonl, and every field read back (by an RFC 4180 reader) as the journal holds it.
#include "export/results_csv.h"

#include <gtest/gtest.h>

#include <filesystem>

#include "test_util.h"

namespace kjudge {
namespace {

namespace fs = std::filesystem;
using nlohmann::json;
using Table = std::vector<std::vector<std::string>>;

const fs::path kRunA = fs::path(KJUDGE_SOURCE_DIR) / "tests/fixtures/report/run-a";

// RFC 4180, strictly: every record ends with CRLF, quoted fields double their quotes.
Table parse_csv(const std::string& text) {
  Table rows(1);
  std::string field;
  bool quoted = false, was_quoted = false;
  for (std::size_t i = 0; i < text.size(); ++i) {
    const char c = text[i];
    if (quoted) {
      if (c == '"' && i + 1 < text.size() && text[i + 1] == '"') {
        field += '"';
        ++i;
      } else if (c == '"') {
        quoted = false;
      } else {
        field += c;
      }
    } else if (c == '"') {
      EXPECT_TRUE(field.empty() && !was_quoted) << "a quote inside an unquoted field at " << i;
      quoted = was_quoted = true;
    } else if (c == ',') {
      rows.back().push_back(field);
      field.clear();
      was_quoted = false;
    } else if (c == '\r') {
      EXPECT_TRUE(i + 1 < text.size() && text[i + 1] == '\n') << "a bare CR at " << i;
      rows.back().push_back(field);
      field.clear();
      was_quoted = false;
      rows.emplace_back();
      ++i;
    } else {
      EXPECT_NE(c, '\n') << "a bare LF outside quotes at " << i;
      field += c;
    }
  }
  EXPECT_FALSE(quoted) << "an unterminated quoted field";
  EXPECT_TRUE(rows.back().empty() && field.empty()) << "the last record has no CRLF";
  rows.pop_back();
  return rows;
}

std::string column(const Table& t, std::size_t row, const std::string& name) {
  const auto& h = t.front();
  const auto it = std::find(h.begin(), h.end(), name);
  EXPECT_NE(it, h.end()) << name;
  return it == h.end() ? "" : t.at(row).at(static_cast<std::size_t>(it - h.begin()));
}

double number(const std::string& s) { return std::stod(s); }

TEST(ResultsCsv, OneRowPerGradedSolutionWithItsSpeedup) {
  const report::RunData run = report::load_run(kRunA);
  const Table t = parse_csv(exports::results_csv(run));
  ASSERT_EQ(t.size(), run.results.size() + 1);
  EXPECT_EQ(t[0], (std::vector<std::string>{"task_id", "sample", "group", "difficulty", "verdict",
                                            "passed", "skip_reason", "build_seconds",
                                            "test_seconds", "speedup", "speedup_low",
                                            "speedup_high", "not_timed", "detail"}));
  int timed = 0;
  for (std::size_t i = 0; i < run.results.size(); ++i) {
    const json& row = run.results[i];
    SCOPED_TRACE(row["task_id"].get<std::string>() + "#" +
                 std::to_string(row["sample"].get<int>()));
    ASSERT_EQ(t[i + 1].size(), t[0].size());
    EXPECT_EQ(column(t, i + 1, "task_id"), row["task_id"]);
    EXPECT_EQ(column(t, i + 1, "sample"), std::to_string(row["sample"].get<int>()));
    EXPECT_EQ(column(t, i + 1, "group"), row.value("group", ""));
    EXPECT_EQ(column(t, i + 1, "difficulty"), row.value("difficulty", ""));
    EXPECT_EQ(column(t, i + 1, "verdict"), row["verdict"]);
    EXPECT_EQ(column(t, i + 1, "passed"), row["verdict"] == "pass" ? "true" : "false");
    EXPECT_EQ(column(t, i + 1, "skip_reason"), row.value("skip_reason", ""));
    EXPECT_EQ(column(t, i + 1, "detail"), row.value("detail", ""));
    if (row["build"].value("ran", false))
      EXPECT_DOUBLE_EQ(number(column(t, i + 1, "build_seconds")), row["build"]["seconds"]);
    else
      EXPECT_EQ(column(t, i + 1, "build_seconds"), "");
    if (row["test"].value("ran", false))
      EXPECT_DOUBLE_EQ(number(column(t, i + 1, "test_seconds")), row["test"]["seconds"]);
    else
      EXPECT_EQ(column(t, i + 1, "test_seconds"), "") << "a test that never ran has no time";
    const auto p = run.perf.find({row["task_id"].get<std::string>(), row["sample"].get<int>()});
    if (p != run.perf.end() && p->second.value("timed", false)) {
      ++timed;
      const json& s = p->second["speedup"];
      EXPECT_DOUBLE_EQ(number(column(t, i + 1, "speedup")), s["estimate"]);
      EXPECT_DOUBLE_EQ(number(column(t, i + 1, "speedup_low")), s["low"]);
      EXPECT_DOUBLE_EQ(number(column(t, i + 1, "speedup_high")), s["high"]);
      EXPECT_EQ(column(t, i + 1, "not_timed"), "");
    } else {
      EXPECT_EQ(column(t, i + 1, "speedup"), "");
      EXPECT_EQ(column(t, i + 1, "not_timed"),
                p == run.perf.end() ? "" : p->second.value("not_timed", ""));
    }
  }
  EXPECT_EQ(timed, 7) << "the fixture's timed solutions";
}

TEST(ResultsCsv, AFieldWithCommasQuotesAndLineBreaksReadsBackWhole) {
  testing::TempDir dir;
  const std::string detail = "test said: \"a, b\"\r\nthen \"c\"\nend,";
  json row = {{"task_id", "x/comma,id"},
              {"sample", 2},
              {"group", "g"},
              {"difficulty", "easy"},
              {"verdict", "test_fail"},
              {"detail", detail},
              {"build", {{"ran", true}, {"seconds", 1.5}}},
              {"test", {{"ran", true}, {"seconds", 0.25}}}};
  testing::write_text(dir / "results.jsonl", row.dump() + "\n");
  const Table t = parse_csv(exports::results_csv(report::load_run(dir.path())));
  ASSERT_EQ(t.size(), 2u);
  EXPECT_EQ(t[0].size(), 10u) << "no perf.jsonl: no speedup columns";
  EXPECT_EQ(t[1], (std::vector<std::string>{"x/comma,id", "2", "g", "easy", "test_fail", "false",
                                            "", "1.5", "0.25", detail}));
}

TEST(ResultsCsv, AnEmptyRunIsAHeaderAlone) {
  testing::TempDir dir;
  testing::write_text(dir / "results.jsonl", "");
  EXPECT_EQ(exports::results_csv(report::load_run(dir.path())),
            "task_id,sample,group,difficulty,verdict,passed,skip_reason,build_seconds,"
            "test_seconds,detail\r\n");
}

}  // namespace
}  // namespace kjudge
