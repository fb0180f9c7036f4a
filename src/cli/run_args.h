#pragma once
// The options of kjudge validate|evaluate|run as parsed (cmd_run.cpp), shared with the Slurm
// side of those commands (slurm_commands.h).
#include <cstddef>
#include <memory>
#include <string>
#include <vector>

#include "cli/generation_session.h"
#include "cli/load.h"
#include "cli/step_options.h"
#include "slurm/options.h"

namespace kjudge {

struct RunArgs {
  std::string problems;
  std::string solutions;
  std::vector<int> ks{1};
  std::string out;
  bool resume = false;
  ProblemFilter filter;
  int workers = 0;
  int tests_per_gpu = 4;
  std::vector<int> gpus;
  bool no_cache = false;
  std::string cache_dir;
  std::string work_dir;
  bool keep_workspaces = false;
  bool skip_env_check = false;
  bool json = false;
  bool quiet = false;
  std::size_t log_cap = 16 * 1024;
  int retries = 2;
  bool no_quiet_retry = false;
  StepArgs steps;
  bool build_only = false;  // build every solution and stop: no test, no GPU needed
  bool benchmark = false;
  int runs = 5;
  int warmups = 1;
  std::string profiler;
  std::shared_ptr<GenArgs> gen;  // kjudge run: the model to ask
  slurm::SlurmArgs slurm;
};

}  // namespace kjudge
