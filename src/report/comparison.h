#pragma once
// Two runs side by side (`kjudge report --compare A B`): pass rates overall and per group, the
// solutions whose verdict flipped, and the exact McNemar test on the pairs judged in both.
#include <map>
#include <string>
#include <vector>

#include "report/run_data.h"

namespace kjudge::report {

struct PassRate {
  int passed = 0;
  int counted = 0;  // samples that count for the model (not skipped, not judge_error)
  double rate() const { return counted ? static_cast<double>(passed) / counted : 0.0; }
};

// "66.7% (2/3)", or "n/a" where nothing counted.
std::string rate_text(const PassRate& r);

struct Flip {
  std::string task_id;
  int sample = 0;
  std::string group;
  std::string verdict_a, verdict_b;
  std::string detail;  // of the failing side
};

struct Comparison {
  std::string label_a, label_b;
  PassRate all_a, all_b;  // every counted sample of each run, paired or not
  std::map<std::string, std::pair<PassRate, PassRate>> groups;
  // Pairs: solutions counted in both runs, matched by (task_id, sample).
  int pairs = 0;
  int both_pass = 0, both_fail = 0;
  int a_only_pass = 0;  // b of McNemar's table: passed in A, failed in B
  int b_only_pass = 0;  // c: failed in A, passed in B
  int unpaired = 0;     // counted in one run only (or skipped / judge_error in the other)
  double p_value = 1.0;
  std::vector<Flip> pass_to_fail, fail_to_pass;  // A → B
};

Comparison compare_runs(const RunData& a, const RunData& b);

// What a run is called in a report: its directory's name, with the model when it had one.
std::string run_label(const RunData& r);

}  // namespace kjudge::report
