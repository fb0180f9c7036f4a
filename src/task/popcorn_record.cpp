#include "task/popcorn_record.h"

#include <cstdlib>
#include <sstream>

namespace kjudge::task {

namespace {

std::string trim(const std::string& s) {
  const std::size_t a = s.find_first_not_of(" \t\r");
  if (a == std::string::npos) return "";
  return s.substr(a, s.find_last_not_of(" \t\r") - a + 1);
}

std::optional<double> number(const std::string& v) {
  char* end = nullptr;
  const double x = std::strtod(v.c_str(), &end);
  if (v.empty() || *end != '\0') return std::nullopt;
  return x;
}

int count(const std::string& v) {
  const std::optional<double> x = number(v);
  // A count past a million is no real task's: taken as no count rather than resizing to it.
  return x && *x >= 0 && *x <= 1e6 ? static_cast<int>(*x) : -1;
}

// "test.3.status" -> 3 and "status".
bool indexed(const std::string& key, const std::string& prefix, std::size_t* i,
             std::string* field) {
  if (key.rfind(prefix + ".", 0) != 0) return false;
  const std::size_t a = prefix.size() + 1, dot = key.find('.', a);
  if (dot == std::string::npos || dot == a || dot - a > 6) return false;
  const std::string digits = key.substr(a, dot - a);
  if (digits.find_first_not_of("0123456789") != std::string::npos) return false;
  *i = std::stoul(digits);
  *field = key.substr(dot + 1);
  return true;
}

}  // namespace

bool PopcornCase::passed() const {
  if (!status.empty()) return status == "pass";
  return mean.has_value() && error.empty();
}

std::string decode_popcorn_base64(const std::string& text) {
  auto value = [](char c) -> int {
    if (c >= 'A' && c <= 'Z') return c - 'A';
    if (c >= 'a' && c <= 'z') return c - 'a' + 26;
    if (c >= '0' && c <= '9') return c - '0' + 52;
    if (c == '+') return 62;
    if (c == '*') return 63;
    return -1;
  };
  std::string out;
  unsigned bits = 0;
  int have = 0;
  for (char c : text) {
    if (c == '=') break;
    const int v = value(c);
    if (v < 0) return "";
    bits = (bits << 6) | static_cast<unsigned>(v);
    have += 6;
    if (have >= 8) {
      have -= 8;
      out.push_back(static_cast<char>((bits >> have) & 0xFF));
    }
  }
  return out;
}

PopcornRecord parse_popcorn_record(const std::string& text) {
  PopcornRecord r;
  std::istringstream in(text);
  std::string line;
  while (std::getline(in, line)) {
    if (trim(line).empty()) continue;
    const std::size_t colon = line.find(':');
    if (colon == std::string::npos) {
      r.odd.push_back(line.substr(0, 200));
      continue;
    }
    const std::string key = trim(line.substr(0, colon)), value = trim(line.substr(colon + 1));
    std::size_t i = 0;
    std::string field;
    if (key == "check") {
      r.check = value;
    } else if (key == "test-count") {
      r.test_count = count(value);
    } else if (key == "benchmark-count") {
      r.benchmark_count = count(value);
    } else if (indexed(key, "test", &i, &field) || indexed(key, "benchmark", &i, &field)) {
      const bool test = key[0] == 't';
      const int announced = test ? r.test_count : r.benchmark_count;
      // Indices past the announced count are the protocol broken, not new cases.
      if (announced < 0 || i >= static_cast<std::size_t>(announced)) {
        r.odd.push_back(line.substr(0, 200));
        continue;
      }
      std::vector<PopcornCase>& cases = test ? r.tests : r.benchmarks;
      if (cases.size() <= i) cases.resize(i + 1);
      PopcornCase& c = cases[i];
      if (field == "spec")
        c.spec = value;
      else if (field == "status")
        c.status = value;
      else if (field == "error")
        c.error = value;
      else if (field == "message")
        c.message = value;
      else if (field == "report")
        c.report = decode_popcorn_base64(value);
      else if (field == "runs")
        c.runs = number(value);
      else if (field == "mean")
        c.mean = number(value);
      else if (field == "std")
        c.std = number(value);
      else if (field == "err")
        c.err = number(value);
      else if (field == "best")
        c.best = number(value);
      else if (field == "worst")
        c.worst = number(value);
      else
        r.odd.push_back(line.substr(0, 200));
    } else {
      r.odd.push_back(line.substr(0, 200));
    }
  }
  return r;
}

PopcornVerdict popcorn_verdict(const PopcornRecord& r, const std::string& mode,
                               const std::vector<TaskCase>& shown) {
  PopcornVerdict v;
  auto name = [&](std::size_t i, const std::string& fallback) {
    return i < shown.size() ? shown[i].text() : fallback;
  };
  for (std::size_t i = 0; i < r.tests.size() && v.failure.empty(); ++i)
    if (!r.tests[i].passed())
      v.failure = "test '" + name(i, r.tests[i].spec) +
                  "': " + (r.tests[i].error.empty() ? "failed" : r.tests[i].error);
  // A leaderboard run's tests are its benchmarks' (GPU MODE's eval.cu reports a ranked failure
  // as test.0): named by the benchmark case then.
  for (std::size_t i = 0; i < r.benchmarks.size() && v.failure.empty(); ++i)
    if (!r.benchmarks[i].passed())
      v.failure = "benchmark '" + name(i, r.benchmarks[i].spec) +
                  "': " + (r.benchmarks[i].error.empty() ? "failed" : r.benchmarks[i].error);
  if (r.check.empty()) {
    if (v.failure.empty()) v.failure = "the task's harness wrote no check line (it did not finish)";
    return v;
  }
  if (r.check != "pass") {
    if (v.failure.empty()) v.failure = "the task's harness reported check: " + r.check;
    return v;
  }
  if (!v.failure.empty()) return v;  // check: pass beside a failed case: GPU MODE fails it too
  // A pass must come with what the mode runs: every test in test mode, every benchmark's
  // figures in the timed modes (eval.cu's leaderboard mode reports one: the last).
  if (mode == "test" && (r.test_count < 0 || static_cast<int>(r.tests.size()) != r.test_count)) {
    v.failure = "check: pass, but not every test was reported";
    return v;
  }
  if ((mode == "benchmark" || mode == "leaderboard") &&
      (r.benchmark_count <= 0 || static_cast<int>(r.benchmarks.size()) != r.benchmark_count)) {
    v.failure = "check: pass, but not every benchmark was reported";
    return v;
  }
  v.passed = true;
  return v;
}

}  // namespace kjudge::task
