// Following the shards of a Slurm run (array.h): sbatch, squeue/scontrol, resubmission of shards
// lost to the machine, and the shard journals read back as they grow.
#include "slurm/array.h"

#include <fmt/format.h>
#include <unistd.h>

#include <fstream>
#include <map>
#include <stdexcept>

#include "eval/graded_json.h"
#include "run/process.h"
#include "slurm/submit.h"

namespace kjudge::slurm {
namespace fs = std::filesystem;
using nlohmann::json;

namespace {

struct Cmd {
  bool ok = false;
  std::string out;
};

Cmd run_cmd(const std::vector<std::string>& argv, double timeout_s = 120) {
  ProcessSpec s;
  s.argv = argv;
  s.cwd = fs::current_path();  // sbatch makes the submitter's cwd the tasks' cwd
  s.timeout_s = timeout_s;
  s.output_cap = 4 << 20;
  ProcessResult r = run_process(s);
  return {r.ok(), r.started ? r.output : r.error};
}

// Complete lines only: a line without its newline is still being written (or torn).
std::vector<json> read_jsonl_lines(const fs::path& p) {
  std::vector<json> out;
  std::ifstream in(p);
  std::string line;
  while (std::getline(in, line)) {
    if (in.eof()) break;
    if (line.find_first_not_of(" \t\r") == std::string::npos) continue;
    json j = json::parse(line, nullptr, false);
    if (!j.is_discarded() && j.is_object()) out.push_back(std::move(j));
  }
  return out;
}

}  // namespace

std::vector<GradedSolution> read_shard_journal(const fs::path& p) {
  std::vector<GradedSolution> out;
  for (const auto& j : read_jsonl_lines(p)) {
    try {
      out.push_back(graded_from_json(j));
    } catch (const std::exception&) {
    }
  }
  return out;
}

std::vector<json> read_perf_lines(const fs::path& p) {
  std::vector<json> out;
  for (auto& j : read_jsonl_lines(p))
    if (j.contains("task_id")) out.push_back(std::move(j));
  return out;
}

json read_json_file(const fs::path& p) {
  std::ifstream in(p);
  if (!in) throw std::runtime_error("cannot read " + p.string());
  json j = json::parse(in, nullptr, false);
  if (j.is_discarded()) throw std::runtime_error(p.string() + " is not JSON");
  return j;
}

ShardArray::ShardArray(Options o) : o_(std::move(o)) { fs::create_directories(o_.out / "slurm"); }

fs::path ShardArray::shard_dir(std::size_t i) const {
  return o_.out / "shards" / std::to_string(i);
}

std::size_t ShardArray::add(std::vector<SolutionKey> keys, std::vector<std::string> argv) {
  Shard s;
  s.keys = std::move(keys);
  s.argv = std::move(argv);
  shards_.push_back(std::move(s));
  return shards_.size() - 1;
}

std::size_t ShardArray::graded(std::size_t i) const {
  std::set<SolutionKey> want(shards_[i].keys.begin(), shards_[i].keys.end()), got;
  for (const auto& g : read_shard_journal(shard_dir(i) / "results.jsonl"))
    if (want.count({g.task_id, g.sample})) got.insert({g.task_id, g.sample});
  return got.size();
}

bool ShardArray::complete(std::size_t i) const {
  std::set<SolutionKey> want(shards_[i].keys.begin(), shards_[i].keys.end()), got, passed;
  for (const auto& g : read_shard_journal(shard_dir(i) / "results.jsonl"))
    if (want.count({g.task_id, g.sample})) {
      got.insert({g.task_id, g.sample});
      if (g.verdict == Verdict::pass) passed.insert({g.task_id, g.sample});
    }
  if (got.size() != want.size()) return false;
  if (!o_.benchmark) return true;
  // The benchmark stage follows the tests in the same task: a task cancelled while timing has
  // a full journal but not every timing, and its resubmission times only what is missing.
  for (const auto& j : read_perf_lines(shard_dir(i) / "perf.jsonl"))
    passed.erase({j["task_id"].get<std::string>(), j.value("sample", 0)});
  return passed.empty();
}

int ShardArray::resubmitted() const {
  int n = 0;
  for (const auto& s : shards_) n += std::max(0, s.attempts - 1);
  return n;
}

void ShardArray::submit(const std::vector<int>& idx, const std::string& why) {
  // The script knows every shard so far; sbatch copies it at submission, so rewriting it for a
  // later submission does not touch tasks already queued.
  std::vector<std::vector<std::string>> commands;
  for (const auto& s : shards_) commands.push_back(s.argv);
  const fs::path script = o_.out / "slurm" / "array.sh";
  write_file_atomically(script, slurm::batch_script(commands));

  slurm::SubmitOptions so;
  so.partition = o_.slurm.partition;
  so.gpus_per_task = o_.slurm.gpus_per_task;
  so.max_parallel = o_.slurm.max_parallel;
  so.extra_args = o_.slurm.sbatch_args;
  so.job_name = o_.job_name;
  so.run_dir = o_.out;
  Cmd r = run_cmd(slurm::sbatch_argv(so, idx, script));
  if (!r.ok) throw std::runtime_error("sbatch failed: " + r.out);
  // sbatch may print warnings before the id; the id is the last line.
  std::string last = r.out;
  while (!last.empty() && (last.back() == '\n' || last.back() == '\r')) last.pop_back();
  if (auto nl = last.rfind('\n'); nl != std::string::npos) last = last.substr(nl + 1);
  const std::string job = slurm::parse_sbatch_job_id(last);
  for (int i : idx) {
    auto& st = shards_[static_cast<std::size_t>(i)];
    st.job = job;
    st.submitted = true;
    st.seen = false;
    ++st.attempts;
    st.submitted_at = std::chrono::steady_clock::now();
  }
  submissions_.push_back({{"job", job}, {"shards", idx}, {"why", why}});
  const json record = {
      {"schema_version", 1}, {"kind", "kjudge-slurm-submissions"}, {"submissions", submissions_}};
  write_file_atomically(o_.out / "slurm" / "submissions.json", record.dump(2) + "\n");
  if (!o_.quiet)
    fmt::print(stderr, "kjudge: submitted Slurm array {} ({} shards: {})\n", job, idx.size(), why);
}

void ShardArray::submit_new(const std::string& why) {
  std::vector<int> idx;
  for (std::size_t i = 0; i < shards_.size(); ++i) {
    auto& s = shards_[i];
    if (s.submitted || s.done) continue;
    if (complete(i)) {
      s.done = true;  // finished by an earlier submitter (--resume)
      continue;
    }
    idx.push_back(static_cast<int>(i));
  }
  if (!idx.empty()) submit(idx, why);
}

void ShardArray::cancel() {
  std::set<std::string> jobs;
  for (const auto& s : shards_)
    if (s.submitted && !s.done && !s.given_up) jobs.insert(s.job);
  for (const auto& j : jobs) run_cmd({"scancel", j});
}

ShardArray::Counts ShardArray::poll() {
  // A task not yet listed right after sbatch is pending, not lost.
  const auto grace = std::chrono::seconds(30);
  std::map<std::string, std::map<int, slurm::ArrayTask>> listed;
  for (const auto& st : shards_)
    if (st.submitted && !st.done && !st.given_up && !listed.count(st.job)) {
      auto tasks = slurm::parse_scontrol(run_cmd(slurm::scontrol_argv(st.job)).out, st.job);
      // scontrol and squeue both forget a job MinJobAge after it ends; either may answer.
      for (auto& [i, t] : slurm::parse_squeue(run_cmd(slurm::squeue_argv(st.job)).out, st.job))
        tasks.emplace(i, t);
      listed[st.job] = std::move(tasks);
    }
  Counts c;
  std::vector<int> again;
  std::vector<std::string> reasons;
  for (std::size_t i = 0; i < shards_.size(); ++i) {
    auto& st = shards_[i];
    if (st.done) {
      ++c.done;
      continue;
    }
    if (st.given_up) {
      ++c.lost;
      continue;
    }
    if (!st.submitted) {
      ++c.pending;
      continue;
    }
    const auto& tasks = listed[st.job];
    auto it = tasks.find(static_cast<int>(i));
    if (it != tasks.end()) {
      st.seen = true;
      st.last_state = std::string(slurm::state_name(it->second.state));
      if (!slurm::is_terminal(it->second.state)) {
        it->second.state == slurm::TaskState::Pending ? ++c.pending : ++c.running;
        continue;
      }
    } else if (!st.seen && std::chrono::steady_clock::now() - st.submitted_at < grace) {
      ++c.pending;
      continue;
    } else {
      st.last_state = "vanished";
    }
    // Ended (or forgotten by Slurm): its journal decides.
    if (complete(i)) {
      st.done = true;
      ++c.done;
      continue;
    }
    // Machine failures are what this is for; a task cancelled or killed (an admin, the OOM
    // killer, a node drained) is retried too, within the same bound, because a shard's jobs
    // must never take a verdict from how the task ended.
    if (st.attempts <= o_.slurm.shard_retries) {
      again.push_back(static_cast<int>(i));
      reasons.push_back(fmt::format("shard {} {}", i, st.last_state));
      ++c.pending;
    } else {
      st.given_up = true;
      ++c.lost;
      fmt::print(stderr,
                 "kjudge: shard {} lost ({}) after {} attempts; its unfinished jobs are "
                 "judge_error\n",
                 i, st.last_state, st.attempts);
    }
  }
  if (!again.empty()) {
    std::string why = "resubmitted: ";
    for (std::size_t k = 0; k < reasons.size(); ++k) why += (k ? ", " : "") + reasons[k];
    submit(again, why);
  }
  for (std::size_t i = 0; i < shards_.size(); ++i) {
    c.total += shards_[i].keys.size();
    c.graded += shards_[i].done ? shards_[i].keys.size() : graded(i);
  }
  std::string line = fmt::format(
      "kjudge: slurm: shards {} done, {} running, {} pending, {} lost of {}; {}/{} graded", c.done,
      c.running, c.pending, c.lost, shards_.size(), c.graded, c.total);
  if (!o_.quiet && line != last_line_) fmt::print(stderr, "{}\n", line);
  last_line_ = line;
  return c;
}

}  // namespace kjudge::slurm
