// --executor slurm for kjudge validate|evaluate (executor.h): the plan of shards, the argv of
// an array task, and run_on_slurm, which submits, follows and merges them.
#include "slurm/executor.h"

#include <fmt/format.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <fstream>
#include <sstream>
#include <stdexcept>
#include <thread>

#include "slurm/array.h"
#include "slurm/merge.h"
#include "slurm/shards.h"

namespace kjudge::slurm {
namespace fs = std::filesystem;
using nlohmann::json;

std::vector<std::string> own_cmdline() {
  std::ifstream in("/proc/self/cmdline", std::ios::binary);
  std::string all((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  std::vector<std::string> argv;
  std::string cur;
  for (char c : all) {
    if (c == '\0') {
      argv.push_back(cur);
      cur.clear();
    } else {
      cur += c;
    }
  }
  if (!cur.empty()) argv.push_back(cur);
  if (argv.empty()) throw std::runtime_error("cannot read /proc/self/cmdline");
  return argv;
}

json plan_shard(std::size_t index, const std::vector<const PlannedJob*>& jobs) {
  json list = json::array();
  double expected = 0;
  for (const PlannedJob* p : jobs) {
    list.push_back({{"task_id", p->key.first},
                    {"sample", p->key.second},
                    {"group", p->group},
                    {"difficulty", p->difficulty},
                    {"expected_s", p->expected_s}});
    expected += std::max(0.0, p->expected_s);
  }
  return {{"index", index}, {"expected_s", expected}, {"jobs", list}};
}

json executor_json(const SlurmArgs& a, std::size_t shards, const fs::path& plan) {
  return {{"kind", "slurm"},
          {"partition", a.partition},
          {"gpus_per_task", a.gpus_per_task},
          {"max_parallel", a.max_parallel},
          {"sbatch_args", a.sbatch_args},
          {"shards", shards},
          {"plan", plan.string()}};
}

std::set<SolutionKey> shard_keys(const fs::path& plan_path, int shard) {
  json plan = read_json_file(plan_path);
  for (const auto& s : plan.at("shards"))
    if (s.at("index").get<int>() == shard) {
      std::set<SolutionKey> keys;
      for (const auto& j : s.at("jobs"))
        keys.insert({j.at("task_id").get<std::string>(), j.at("sample").get<int>()});
      return keys;
    }
  throw std::runtime_error(plan_path.string() + " has no shard " + std::to_string(shard));
}

std::vector<std::string> shard_argv(const std::vector<std::string>& own, const fs::path& plan,
                                    int shard, const fs::path& shard_out) {
  // Options of the submitter that a shard must not inherit; everything else (pack paths,
  // filters, cache, sandbox, -k …) passes through so the shard plans the same jobs.
  static const std::set<std::string> with_value = {
      "--executor", "--partition",  "--gpus-per-task", "--max-parallel", "--sbatch-arg",
      "--shards",   "--out",        "--shard-retries", "--slurm-poll",   "--shard-of",
      "--shard",    "--shard-size", "--shard-wait"};
  static const std::set<std::string> flags = {"--resume", "--json", "-q", "--quiet"};
  std::vector<std::string> argv;
  std::error_code ec;
  fs::path exe = fs::read_symlink("/proc/self/exe", ec);
  argv.push_back(ec ? own.at(0) : exe.string());
  for (std::size_t i = 1; i < own.size(); ++i) {
    const std::string& a = own[i];
    std::string name = a.substr(0, a.find('='));
    if (flags.count(a)) continue;
    if (with_value.count(name)) {
      if (name == a) ++i;  // "--opt value": skip the value too
      continue;
    }
    argv.push_back(a);
  }
  for (const std::string& a :
       {std::string("--executor"), std::string("local"), std::string("--shard-of"), plan.string(),
        std::string("--shard"), std::to_string(shard), std::string("--out"), shard_out.string()})
    argv.push_back(a);
  return argv;
}

SlurmRunResult run_on_slurm(const SlurmRunInput& in) {
  const fs::path out = fs::absolute(in.out);
  const fs::path sdir = out / "slurm";
  const fs::path plan_path = sdir / "plan.json";
  fs::create_directories(sdir);

  // The plan: from an earlier submission when resuming (the cost history may have changed
  // since, and shards must keep their jobs), else cut fresh.
  json plan;
  if (in.resume && fs::exists(plan_path)) {
    plan = read_json_file(plan_path);
    std::set<SolutionKey> planned, now;
    for (const auto& s : plan.at("shards"))
      for (const auto& j : s.at("jobs"))
        planned.insert({j.at("task_id").get<std::string>(), j.at("sample").get<int>()});
    for (const auto& j : in.jobs) now.insert(j.key);
    if (planned != now)
      throw std::runtime_error(plan_path.string() +
                               " plans other jobs than this command has; choose another --out");
  } else {
    std::vector<ShardJob> sj;
    for (const auto& j : in.jobs) sj.push_back({j.key.first, j.key.second, j.expected_s});
    std::size_t n = in.slurm.shards > 0 ? static_cast<std::size_t>(in.slurm.shards) : 16;
    std::vector<Shard> cut = sj.empty() ? std::vector<Shard>{} : make_shards(sj, n);
    json shards = json::array();
    for (std::size_t i = 0; i < cut.size(); ++i) {
      std::vector<const PlannedJob*> jobs;
      for (std::size_t x : cut[i].jobs) jobs.push_back(&in.jobs[x]);
      shards.push_back(plan_shard(i, jobs));
    }
    plan = {{"schema_version", 1},
            {"kind", "kjudge-slurm-plan"},
            {"command", in.command},
            {"shards", shards},
            {"imbalance", shard_imbalance(cut)}};
    write_file_atomically(plan_path, plan.dump(2) + "\n");
  }

  json run_json = in.run_json;
  run_json["executor"] = executor_json(in.slurm, plan["shards"].size(), plan_path);
  write_file_atomically(out / "run.json", run_json.dump(2) + "\n");

  ShardArray array({out, in.slurm, "kjudge-" + in.command, in.quiet, in.benchmark});
  const std::vector<std::string> own = own_cmdline();
  for (const auto& s : plan["shards"]) {
    const int i = s.at("index").get<int>();
    std::vector<SolutionKey> keys;
    for (const auto& j : s.at("jobs"))
      keys.push_back({j.at("task_id").get<std::string>(), j.at("sample").get<int>()});
    array.add(std::move(keys), shard_argv(own, plan_path, i, array.shard_dir(i)));
  }
  array.submit_new("first submission");

  bool interrupted = false;
  for (;;) {
    if (in.stop && in.stop->load()) {
      array.cancel();
      interrupted = true;
      break;
    }
    ShardArray::Counts c = array.poll();
    if (c.running == 0 && c.pending == 0) break;
    std::this_thread::sleep_for(std::chrono::duration<double>(in.slurm.poll_s));
  }
  return merge_shards(array, in.jobs, {out, interrupted, in.benchmark});
}

}  // namespace kjudge::slurm
