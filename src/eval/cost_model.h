#pragma once
// Expected build and test seconds per problem, for longest-expected-first scheduling: the
// durations seen in earlier runs on this machine when there are any, a guess from what the
// problem includes and links otherwise. Only the order of jobs depends on it, never a verdict.
#include <filesystem>
#include <map>
#include <mutex>
#include <string>

#include "core/problem.h"

namespace kjudge {

class CostModel {
 public:
  // `history_file` may not exist yet; it is read once and rewritten by save().
  explicit CostModel(std::filesystem::path history_file);

  double expected_build_s(const Problem& p) const;
  double expected_test_s(const Problem& p) const;
  double expected_total_s(const Problem& p) const {
    return expected_build_s(p) + expected_test_s(p);
  }

  // Records an uncached build / a test as observed; thread-safe.
  void observe(const std::string& task_id, double build_s, double test_s);
  void save() const;

  // The heuristic alone, exposed for tests.
  static double guess_build_s(const Problem& p);

 private:
  struct Seen {
    double build_s = -1;
    double test_s = -1;
  };
  std::filesystem::path file_;
  mutable std::mutex mu_;
  std::map<std::string, Seen> seen_;
};

}  // namespace kjudge
