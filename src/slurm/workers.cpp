// kjudge serve --slurm-workers N (workers.h): the worker argv, the worker id from Slurm's
// environment, and the submission of the worker array.
#include "slurm/workers.h"

#include <fmt/format.h>
#include <unistd.h>

#include <cstdlib>
#include <ctime>
#include <set>
#include <stdexcept>

#include "core/time_stamp.h"
#include "run/process.h"
#include "slurm/array.h"
#include "slurm/submit.h"

namespace kjudge::slurm {
namespace fs = std::filesystem;

std::string worker_id_from_env() {
  const char* array_job = std::getenv("SLURM_ARRAY_JOB_ID");
  const char* task = std::getenv("SLURM_ARRAY_TASK_ID");
  if (array_job && task && *array_job && *task) return fmt::format("slurm-{}-{}", array_job, task);
  if (const char* job = std::getenv("SLURM_JOB_ID"); job && *job)
    return fmt::format("slurm-{}", job);
  char host[256] = {};
  gethostname(host, sizeof host - 1);
  return fmt::format("{}-{}", host, getpid());
}

std::vector<std::string> worker_argv(const std::vector<std::string>& own) {
  // The submitter's own options; --worker-id too: each task names itself.
  static const std::set<std::string> with_value = {"--slurm-workers", "--partition",
                                                   "--gpus-per-task", "--sbatch-arg",
                                                   "--log-dir",       "--worker-id"};
  std::vector<std::string> argv;
  std::error_code ec;
  fs::path exe = fs::read_symlink("/proc/self/exe", ec);
  argv.push_back(ec ? own.at(0) : exe.string());
  bool workers_only = false;
  for (std::size_t i = 1; i < own.size(); ++i) {
    const std::string& a = own[i];
    const std::string name = a.substr(0, a.find('='));
    if (with_value.count(name)) {
      if (name == a) ++i;  // "--opt value": skip the value too
      continue;
    }
    workers_only |= a == "--workers-only";
    argv.push_back(a);
  }
  if (!workers_only) argv.push_back("--workers-only");
  argv.push_back("--slurm-worker-task");
  return argv;
}

void submit_slurm_workers(const SlurmWorkersArgs& a, const std::vector<std::string>& own) {
  const fs::path dir = fs::absolute(a.log_dir);
  fs::create_directories(dir / "slurm");
  const fs::path script =
      dir / "slurm" /
      fmt::format("workers-{}-{}.sh", run_stamp(std::time(nullptr), true), getpid());
  const std::vector<std::string> argv = worker_argv(own);
  write_file_atomically(script, slurm::batch_script(std::vector<std::vector<std::string>>(
                                    static_cast<std::size_t>(a.count), argv)));

  slurm::SubmitOptions so;
  so.partition = a.partition;
  so.gpus_per_task = a.gpus_per_task;
  so.extra_args = a.sbatch_args;
  so.job_name = "kjudge-worker";
  so.run_dir = dir;
  so.log_name = "worker-%a.job-%A.out";
  so.requeue = true;
  std::vector<int> idx;
  for (int i = 0; i < a.count; ++i) idx.push_back(i);
  ProcessSpec s;
  s.argv = slurm::sbatch_argv(so, idx, script);
  s.cwd = fs::current_path();
  s.timeout_s = 120;
  ProcessResult r = run_process(s);
  if (!r.ok()) throw std::runtime_error("sbatch failed: " + (r.started ? r.output : r.error));
  std::string last = r.output;
  while (!last.empty() && (last.back() == '\n' || last.back() == '\r')) last.pop_back();
  if (auto nl = last.rfind('\n'); nl != std::string::npos) last = last.substr(nl + 1);
  const std::string job = slurm::parse_sbatch_job_id(last);
  fmt::print(stderr,
             "kjudge serve: submitted {} Slurm workers as array {} (logs: {}; stop them with "
             "scancel {})\n",
             a.count, job, (dir / "slurm").string(), job);
  fmt::print("{}\n", job);
}

}  // namespace kjudge::slurm
