// kjudge run --executor slurm (run.h): answers cut into shards as they arrive from the model,
// each submitted while generation goes on, then followed and merged like evaluate's.
#include "slurm/run.h"

#include <fmt/format.h>

#include <chrono>
#include <deque>
#include <map>
#include <mutex>
#include <set>
#include <stdexcept>
#include <thread>

#include "core/problem_json.h"
#include "gen/generator.h"
#include "slurm/array.h"
#include "slurm/merge.h"

namespace kjudge::slurm {
namespace fs = std::filesystem;
using nlohmann::json;
using Clock = std::chrono::steady_clock;

namespace {

struct Waiting {
  Solution solution;
  const Problem* problem;
  Clock::time_point since;
};

}  // namespace

SlurmRunResult run_streaming_on_slurm(const SlurmStreamInput& in) {
  const fs::path out = fs::absolute(in.out);
  const fs::path sdir = out / "slurm";
  const fs::path plan_path = sdir / "plan.json";
  fs::create_directories(sdir / "solutions");
  std::map<std::string, const Problem*> by_id;
  for (const auto& p : *in.problems) by_id[p.task_id] = &p;

  ShardArray array({out, in.slurm, "kjudge-run", in.quiet, in.benchmark});
  std::deque<PlannedJob> planned;  // a deque: add_shard keeps pointers into it
  json plan = {{"schema_version", 1},
               {"kind", "kjudge-slurm-plan"},
               {"command", "run"},
               {"shards", json::array()}};
  std::set<SolutionKey> in_plan;
  auto add_shard = [&](const std::vector<const PlannedJob*>& jobs, const fs::path& solutions) {
    const std::size_t i = array.size();
    std::vector<SolutionKey> keys;
    for (const PlannedJob* j : jobs) keys.push_back(j->key);
    array.add(keys,
              in.shard_command(solutions, plan_path, static_cast<int>(i), array.shard_dir(i)));
    json s = plan_shard(i, jobs);
    s["solutions"] = solutions.string();
    plan["shards"].push_back(s);
    in_plan.insert(keys.begin(), keys.end());
  };

  // A resumed run keeps its shards (their solutions files are in the run directory); answers
  // journaled but never cut into a shard wait for the next one.
  if (in.resume && fs::exists(plan_path)) {
    json old = read_json_file(plan_path);
    for (const auto& s : old.at("shards")) {
      for (const auto& j : s.at("jobs"))
        planned.push_back({{j.at("task_id").get<std::string>(), j.at("sample").get<int>()},
                           j.value("group", std::string()),
                           j.value("difficulty", std::string()),
                           j.value("expected_s", 0.0)});
    }
    std::size_t k = 0;
    for (const auto& s : old.at("shards")) {
      std::vector<const PlannedJob*> jobs;
      for (std::size_t n = 0; n < s.at("jobs").size(); ++n) jobs.push_back(&planned[k++]);
      add_shard(jobs, s.at("solutions").get<std::string>());
    }
  }
  json run_json = in.run_json;
  run_json["executor"] = executor_json(in.slurm, 0, plan_path);
  write_file_atomically(out / "run.json", run_json.dump(2) + "\n");

  std::mutex mu;
  std::deque<GenRecord> arrived;
  bool generated = false;
  for (const auto& r : in.answered) arrived.push_back(r);
  std::thread producer([&] {
    in.generate([&](const GenRecord& r) {
      std::lock_guard<std::mutex> lock(mu);
      arrived.push_back(r);
    });
    std::lock_guard<std::mutex> lock(mu);
    generated = true;
  });

  std::vector<Waiting> waiting;
  const std::size_t size = static_cast<std::size_t>(std::max(1, in.slurm.shard_size));
  const auto wait = std::chrono::duration<double>(in.slurm.shard_wait_s);
  bool interrupted = false;
  try {
    array.submit_new("resumed shards");
    for (;;) {
      if (in.stop && in.stop->load()) {
        in.stop_generating();
        array.cancel();
        interrupted = true;
        break;
      }
      bool done;
      {
        std::lock_guard<std::mutex> lock(mu);
        for (auto& r : arrived) {
          auto p = by_id.find(r.task_id);
          if (p == by_id.end() || in_plan.count({r.task_id, r.sample})) continue;
          waiting.push_back({solution_of(r, *p->second), p->second, Clock::now()});
        }
        arrived.clear();
        done = generated;
      }
      // Cut: a full shard whenever there is one; a smaller one when the oldest answer has
      // waited long enough or no more will come.
      std::size_t cut = 0;
      while (waiting.size() >= size ||
             (!waiting.empty() && (done || Clock::now() - waiting.front().since >= wait))) {
        const std::size_t n = std::min(size, waiting.size());
        const fs::path file = sdir / "solutions" / fmt::format("shard-{}.jsonl", array.size());
        std::string text;
        std::vector<const PlannedJob*> jobs;
        for (std::size_t k = 0; k < n; ++k) {
          const Waiting& w = waiting[k];
          text += solution_to_json(w.solution, true)
                      .dump(-1, ' ', false, json::error_handler_t::replace) +
                  "\n";
          planned.push_back({{w.solution.task_id, w.solution.sample},
                             w.problem->group,
                             w.problem->difficulty,
                             in.expected_s ? in.expected_s(*w.problem) : 0.0});
          jobs.push_back(&planned.back());
        }
        write_file_atomically(file, text);
        add_shard(jobs, file);
        waiting.erase(waiting.begin(), waiting.begin() + static_cast<std::ptrdiff_t>(n));
        cut += n;
      }
      if (cut) {
        // The plan before sbatch: an array task reads its jobs from it as it starts.
        write_file_atomically(plan_path, plan.dump(2) + "\n");
        array.submit_new(fmt::format("{} answers", cut));
      }
      ShardArray::Counts c = array.poll();
      if (done && waiting.empty() && c.running == 0 && c.pending == 0) break;
      std::this_thread::sleep_for(std::chrono::duration<double>(in.slurm.poll_s));
    }
  } catch (...) {
    in.stop_generating();
    producer.join();
    throw;
  }
  producer.join();

  run_json["executor"] = executor_json(in.slurm, array.size(), plan_path);
  run_json["jobs"] = planned.size();
  write_file_atomically(out / "run.json", run_json.dump(2) + "\n");
  return merge_shards(array, std::vector<PlannedJob>(planned.begin(), planned.end()),
                      {out, interrupted, in.benchmark});
}

}  // namespace kjudge::slurm
