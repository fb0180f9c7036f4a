// The problem filter options (cli/load.h).
#include "cli/load.h"

namespace kjudge {

void add_filter_options(CLI::App* cmd, ProblemFilter& f, bool with_limit) {
  cmd->add_option("--group", f.groups, "Only problems of this group (repeatable)");
  cmd->add_option("--exclude-group", f.exclude_groups, "Leave out this group (repeatable)");
  cmd->add_option("--difficulty", f.difficulties, "Only this difficulty (repeatable)");
  cmd->add_option("--task", f.task_ids, "Only this task_id (repeatable)");
  if (with_limit) cmd->add_option("--limit", f.limit, "At most N problems (after the filters)");
}

}  // namespace kjudge
