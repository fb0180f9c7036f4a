#pragma once
// Loading inputs for a run: the problem filters, and bad records reported on stderr and left
// out, the rest going on. The options that fill a ProblemFilter are cli/load.h's.
#include <filesystem>
#include <string>
#include <vector>

#include "core/datapack.h"

namespace kjudge::plan {

struct ProblemFilter {
  std::vector<std::string> groups;  // keep only these (empty: all)
  std::vector<std::string> exclude_groups;
  std::vector<std::string> difficulties;
  std::vector<std::string> task_ids;
  int limit = 0;  // 0: no limit; applied last, in pack order
};

std::vector<Problem> filter_problems(const std::vector<Problem>& problems, const ProblemFilter& f);

// Prints each error of `report` to stderr as a warning; returns how many there were.
int print_load_errors(const LoadReport& report);

}  // namespace kjudge::plan
