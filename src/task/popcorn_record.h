#pragma once
// What a GPU MODE harness (the task's own eval.py or eval.cu) writes on the descriptor named by
// POPCORN_FD: `key: value` lines (test-count, test.N.spec|status|error|message,
// benchmark-count, benchmark.N.spec|runs|mean|std|err|best|worst|status|error|report, check),
// read as GPU MODE's runner reads them: each line split at its first colon, the last value of
// a key kept. Times are nanoseconds. Nothing in it is authenticated: the process that wrote it
// holds the submission too (docs/tasks.md, "The task's own harness").
#include <optional>
#include <string>
#include <vector>

#include "core/task_spec.h"

namespace kjudge::task {

struct PopcornCase {
  std::string spec, status, error, message;
  // Benchmarks: the harness's own statistics (ns); unset when it wrote none.
  std::optional<double> runs, mean, std, err, best, worst;
  std::string report;  // profile mode: the torch profiler's table (decoded from base64)

  // GPU MODE's runner: a case passed when its status says pass, or, for a benchmark that gives
  // no status (eval.py writes one only on failure), when it reported its statistics.
  bool passed() const;
};

struct PopcornRecord {
  int test_count = -1, benchmark_count = -1;  // -1: not written
  std::vector<PopcornCase> tests, benchmarks;
  std::string check;             // "pass", "fail", or "" when the harness never wrote one
  std::vector<std::string> odd;  // lines or keys that mean nothing to the protocol, kept to show
};

PopcornRecord parse_popcorn_record(const std::string& text);

// Decodes GPU MODE's profile report: base64 with '+' and '*' as its two extra characters.
// Returns "" for text that is not such base64.
std::string decode_popcorn_base64(const std::string& text);

// Whether the record says the mode passed, and if not, why, in one line (the first failing
// case named by its public spec when `shown` has it). `mode`: the mode it ran.
struct PopcornVerdict {
  bool passed = false;
  std::string failure;
};
PopcornVerdict popcorn_verdict(const PopcornRecord& record, const std::string& mode,
                               const std::vector<TaskCase>& shown);

}  // namespace kjudge::task
