#include "perf/harness_record.h"

#include <cstdlib>
#include <sstream>

namespace kjudge {

namespace {

std::vector<double> numbers(const std::string& csv, const std::string& key) {
  std::vector<double> out;
  std::stringstream in(csv);
  std::string item;
  while (std::getline(in, item, ',')) {
    char* end = nullptr;
    double v = std::strtod(item.c_str(), &end);
    if (item.empty() || *end != '\0' || !(v >= 0))
      throw HarnessRecordError("record " + key + ": '" + item + "' is not a time");
    out.push_back(v);
  }
  return out;
}

int integer(const std::string& v, const std::string& key) {
  char* end = nullptr;
  long x = std::strtol(v.c_str(), &end, 10);
  if (v.empty() || *end != '\0' || x < 0 || x > (1L << 30))
    throw HarnessRecordError("record " + key + ": '" + v + "' is not a count");
  return static_cast<int>(x);
}

// "test.3.status" → index 3 and field "status" under prefix "test".
bool indexed(const std::string& key, const std::string& prefix, std::size_t* index,
             std::string* field) {
  if (key.rfind(prefix + ".", 0) != 0) return false;
  std::size_t a = prefix.size() + 1, dot = key.find('.', a);
  if (dot == std::string::npos) return false;
  const std::string digits = key.substr(a, dot - a);
  if (digits.empty() || digits.size() > 6 ||
      digits.find_first_not_of("0123456789") != std::string::npos)
    return false;
  *index = std::stoul(digits);
  *field = key.substr(dot + 1);
  return true;
}

}  // namespace

HarnessReport parse_harness_record(const std::string& text, const std::string& nonce) {
  HarnessReport r;
  const std::string head = "KJ1 " + nonce + " ";
  std::istringstream in(text);
  std::string line;
  long records = 0;
  bool ended = false;
  int test_count = -1, bench_count = -1;
  bool checked = false;
  while (std::getline(in, line)) {
    if (ended) throw HarnessRecordError("records after the end record");
    if (line.rfind(head, 0) != 0)
      throw HarnessRecordError(
          "a line without this run's nonce: the channel was written by "
          "something other than the harness");
    std::string rest = line.substr(head.size());
    std::size_t sp = rest.find(' ');
    std::string key = rest.substr(0, sp);
    std::string value = sp == std::string::npos ? "" : rest.substr(sp + 1);
    if (key == "end") {
      if (integer(value, key) != records)
        throw HarnessRecordError("the end record counts " + value + " records, " +
                                 std::to_string(records) + " came");
      ended = true;
      continue;
    }
    ++records;
    std::size_t i = 0;
    std::string field;
    if (key == "mode")
      r.mode = value;
    else if (key == "device")
      r.device = value;
    else if (key == "l2_bytes")
      r.l2_bytes = integer(value, key);
    else if (key == "warmup-calls")
      r.warmup_calls = integer(value, key);
    else if (key == "test-count")
      test_count = integer(value, key);
    else if (key == "benchmark-count")
      bench_count = integer(value, key);
    else if (key == "profiler")
      r.profiler = value;
    else if (key == "process")
      r.process = value;
    else if (key == "worker_profiler")
      r.worker_profiler = value;
    else if (key == "worker_end")
      r.worker_end = value;
    else if (key == "crossing_ns")
      r.crossing_ns = std::strtod(value.c_str(), nullptr);
    else if (key == "task-error")
      r.task_error = value;
    else if (key == "profile.spec")
      r.profile_spec = value;
    else if (key == "profile.error")
      r.profile_error = value;
    else if (key == "check") {
      if (value != "pass" && value != "fail") throw HarnessRecordError("check: '" + value + "'");
      r.passed = value == "pass";
      checked = true;
    } else if (indexed(key, "test", &i, &field)) {
      if (test_count < 0 || i >= static_cast<std::size_t>(test_count))
        throw HarnessRecordError("record " + key + " outside the announced test count");
      if (r.tests.size() <= i) r.tests.resize(i + 1);
      HarnessTest& t = r.tests[i];
      if (field == "spec")
        t.spec = value;
      else if (field == "status")
        t.status = value;
      else if (field == "error")
        t.error = value;
      else if (field == "max_abs_error")
        t.max_abs_error = std::strtod(value.c_str(), nullptr);
    } else if (indexed(key, "benchmark", &i, &field)) {
      if (bench_count < 0 || i >= static_cast<std::size_t>(bench_count))
        throw HarnessRecordError("record " + key + " outside the announced benchmark count");
      if (r.benchmarks.size() <= i) r.benchmarks.resize(i + 1);
      HarnessBenchmark& b = r.benchmarks[i];
      if (field == "spec")
        b.spec = value;
      else if (field == "times_ns")
        b.times_ns = numbers(value, key);
      else if (field == "host_ns")
        b.host_ns = numbers(value, key);
      else if (field == "checker_ns")
        b.checker_ns = numbers(value, key);
      else if (field == "checked")
        b.checked = integer(value, key);
      else if (field == "status")
        b.status = value;
      else if (field == "error")
        b.error = value;
      else if (field == "stop")
        b.stop = value;
    }
    // Other keys are tolerated: a newer harness may say more.
  }
  if (!ended) throw HarnessRecordError("no end record: the harness did not finish its report");
  if (!checked) throw HarnessRecordError("no check record");
  for (const auto& b : r.benchmarks)
    if (b.times_ns.size() != b.host_ns.size())
      throw HarnessRecordError("event and host times differ in number");
  // A pass must be backed by every case it claims.
  if (r.passed) {
    if (r.mode == "test" && static_cast<int>(r.tests.size()) != test_count)
      throw HarnessRecordError("check: pass, but not every test reported");
    if ((r.mode == "benchmark" || r.mode == "leaderboard") &&
        static_cast<int>(r.benchmarks.size()) != bench_count)
      throw HarnessRecordError("check: pass, but not every benchmark reported");
    for (const auto& t : r.tests)
      if (t.status != "pass") throw HarnessRecordError("check: pass with a failed test");
    for (const auto& b : r.benchmarks)
      if (b.status != "pass" || b.times_ns.empty())
        throw HarnessRecordError("check: pass with a failed or untimed benchmark");
  }
  return r;
}

}  // namespace kjudge
