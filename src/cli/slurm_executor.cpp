#include "cli/slurm_executor.h"

#include <fmt/format.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <fstream>
#include <sstream>
#include <stdexcept>
#include <thread>

#include "eval/graded_json.h"
#include "run/process.h"
#include "run/slurm_shards.h"
#include "run/slurm_submit.h"

namespace kjudge {
namespace fs = std::filesystem;
using nlohmann::json;

void add_slurm_options(CLI::App* c, SlurmArgs& a) {
  c->add_option("--executor", a.executor,
                "local (default): grade on this machine; slurm: one Slurm job array over shards "
                "of the run (docs/slurm.md)")
      ->check(CLI::IsMember({"local", "slurm"}));
  c->add_option("--partition", a.partition, "Slurm partition (default: the cluster's default)");
  c->add_option("--gpus-per-task", a.gpus_per_task,
                "GPUs each array task asks for (--gres=gpu:N); 0 (default): none, for "
                "host-only problems")
      ->check(CLI::Range(0, 64));
  c->add_option("--max-parallel", a.max_parallel,
                "Array tasks running at once (sbatch --array=…%M); 0: no limit")
      ->check(CLI::Range(0, 100000));
  c->add_option("--sbatch-arg", a.sbatch_args,
                "Passed to sbatch verbatim, after kjudge's own options (repeatable), e.g. "
                "--sbatch-arg=--time=2:00:00")
      ->allow_extra_args(false);
  c->add_option("--shards", a.shards, "Shards (array tasks) of the run (default: min(jobs, 16))")
      ->check(CLI::Range(0, 100000));
  c->add_option("--shard-retries", a.shard_retries,
                "Resubmissions of a shard lost to the machine before its jobs become "
                "judge_error (default 3)")
      ->check(CLI::Range(0, 100));
  c->add_option("--slurm-poll", a.poll_s, "Seconds between squeue/scontrol polls (default 2)")
      ->check(CLI::Range(0.1, 3600.0));
  // What the submitter gives each array task; not for people.
  c->add_option("--shard-of", a.shard_of)->group("");
  c->add_option("--shard", a.shard)->group("");
}

namespace {

json read_json(const fs::path& p) {
  std::ifstream in(p);
  if (!in) throw std::runtime_error("cannot read " + p.string());
  json j = json::parse(in, nullptr, false);
  if (j.is_discarded()) throw std::runtime_error(p.string() + " is not JSON");
  return j;
}

void write_atomically(const fs::path& path, const std::string& text) {
  // Unique temp name: on shared storage another process may write the same file.
  fs::path tmp = path;
  tmp += fmt::format(".tmp.{}", getpid());
  {
    std::ofstream out(tmp, std::ios::binary);
    out << text;
    if (!out) throw std::runtime_error("cannot write " + tmp.string());
  }
  fs::rename(tmp, path);
}

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

// The keys a shard's journal holds, in file order, dropping a torn last line.
std::vector<GradedSolution> read_journal(const fs::path& p) {
  std::vector<GradedSolution> out;
  std::ifstream in(p);
  std::string line;
  while (std::getline(in, line)) {
    if (in.eof()) break;  // no newline: a line still being written (or torn)
    if (line.find_first_not_of(" \t\r") == std::string::npos) continue;
    json j = json::parse(line, nullptr, false);
    if (j.is_discarded()) continue;
    try {
      out.push_back(graded_from_json(j));
    } catch (const std::exception&) {
    }
  }
  return out;
}

struct ShardState {
  std::vector<SolutionKey> keys;
  int attempts = 0;
  std::string job;        // the array job id of its latest submission
  bool seen = false;      // the latest submission has been listed by squeue/scontrol
  bool done = false;      // its journal holds every key
  bool given_up = false;  // lost more often than --shard-retries allows
  std::string last_state;
  std::chrono::steady_clock::time_point submitted;
};

std::set<SolutionKey> graded_keys(const fs::path& journal, const std::vector<SolutionKey>& want) {
  std::set<SolutionKey> wanted(want.begin(), want.end()), got;
  for (const auto& g : read_journal(journal))
    if (wanted.count({g.task_id, g.sample})) got.insert({g.task_id, g.sample});
  return got;
}

}  // namespace

std::set<SolutionKey> shard_keys(const fs::path& plan_path, int shard) {
  json plan = read_json(plan_path);
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
      "--executor",   "--partition", "--gpus-per-task", "--max-parallel",
      "--sbatch-arg", "--shards",    "--out",           "--shard-retries",
      "--slurm-poll", "--shard-of",  "--shard"};
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
  std::map<SolutionKey, const PlannedJob*> by_key;
  for (const auto& j : in.jobs) by_key[j.key] = &j;
  if (in.resume && fs::exists(plan_path)) {
    plan = read_json(plan_path);
    std::set<SolutionKey> planned;
    for (const auto& s : plan.at("shards"))
      for (const auto& j : s.at("jobs"))
        planned.insert({j.at("task_id").get<std::string>(), j.at("sample").get<int>()});
    std::set<SolutionKey> now;
    for (const auto& [k, j] : by_key) now.insert(k);
    if (planned != now)
      throw std::runtime_error(plan_path.string() +
                               " plans other jobs than this command has; choose another --out");
  } else {
    std::vector<ShardJob> sj;
    for (const auto& j : in.jobs) sj.push_back({j.key.first, j.key.second, j.expected_s});
    std::size_t n = in.slurm.shards > 0 ? static_cast<std::size_t>(in.slurm.shards) : 16;
    plan = {{"schema_version", 1}, {"kind", "kjudge-slurm-plan"}, {"command", in.command}};
    json shards = json::array();
    std::vector<Shard> cut = sj.empty() ? std::vector<Shard>{} : make_shards(sj, n);
    for (std::size_t i = 0; i < cut.size(); ++i) {
      json jobs = json::array();
      for (std::size_t x : cut[i].jobs) {
        const PlannedJob& p = in.jobs[x];
        jobs.push_back({{"task_id", p.key.first},
                        {"sample", p.key.second},
                        {"group", p.group},
                        {"difficulty", p.difficulty},
                        {"expected_s", p.expected_s}});
      }
      shards.push_back({{"index", i}, {"expected_s", cut[i].expected_s}, {"jobs", jobs}});
    }
    plan["shards"] = shards;
    plan["imbalance"] = shard_imbalance(cut);
    write_atomically(plan_path, plan.dump(2) + "\n");
  }

  json run_json = in.run_json;
  run_json["executor"] = {{"kind", "slurm"},
                          {"partition", in.slurm.partition},
                          {"gpus_per_task", in.slurm.gpus_per_task},
                          {"max_parallel", in.slurm.max_parallel},
                          {"sbatch_args", in.slurm.sbatch_args},
                          {"shards", plan["shards"].size()},
                          {"plan", plan_path.string()}};
  write_atomically(out / "run.json", run_json.dump(2) + "\n");

  std::vector<ShardState> shards(plan["shards"].size());
  for (const auto& s : plan["shards"]) {
    auto& st = shards.at(s.at("index").get<std::size_t>());
    for (const auto& j : s.at("jobs"))
      st.keys.push_back({j.at("task_id").get<std::string>(), j.at("sample").get<int>()});
  }
  auto journal_of = [&](std::size_t i) {
    return out / "shards" / std::to_string(i) / "results.jsonl";
  };

  // The batch script: the same for every submission, array index = shard index.
  const std::vector<std::string> own = own_cmdline();
  std::vector<std::vector<std::string>> commands;
  for (std::size_t i = 0; i < shards.size(); ++i)
    commands.push_back(
        shard_argv(own, plan_path, static_cast<int>(i), out / "shards" / std::to_string(i)));
  const fs::path script = sdir / "array.sh";
  write_atomically(script, slurm::batch_script(commands));

  slurm::SubmitOptions so;
  so.partition = in.slurm.partition;
  so.gpus_per_task = in.slurm.gpus_per_task;
  so.max_parallel = in.slurm.max_parallel;
  so.extra_args = in.slurm.sbatch_args;
  so.job_name = "kjudge-" + in.command;
  so.run_dir = out;

  json submissions = json::array();
  auto submit = [&](const std::vector<int>& idx, const std::string& why) {
    Cmd r = run_cmd(slurm::sbatch_argv(so, idx, script));
    if (!r.ok) throw std::runtime_error("sbatch failed: " + r.out);
    // sbatch may print warnings before the id; the id is the last line.
    std::string last = r.out;
    while (!last.empty() && (last.back() == '\n' || last.back() == '\r')) last.pop_back();
    if (auto nl = last.rfind('\n'); nl != std::string::npos) last = last.substr(nl + 1);
    std::string job = slurm::parse_sbatch_job_id(last);
    for (int i : idx) {
      auto& st = shards[static_cast<std::size_t>(i)];
      st.job = job;
      st.seen = false;
      ++st.attempts;
      st.submitted = std::chrono::steady_clock::now();
    }
    submissions.push_back({{"job", job}, {"shards", idx}, {"why", why}});
    const json record = {
        {"schema_version", 1}, {"kind", "kjudge-slurm-submissions"}, {"submissions", submissions}};
    write_atomically(sdir / "submissions.json", record.dump(2) + "\n");
    if (!in.quiet)
      fmt::print(stderr, "kjudge: submitted Slurm array {} ({} shards: {})\n", job, idx.size(),
                 why);
  };

  // Shards already complete (a resumed run) are not submitted again.
  std::vector<int> first;
  for (std::size_t i = 0; i < shards.size(); ++i) {
    if (graded_keys(journal_of(i), shards[i].keys).size() == shards[i].keys.size())
      shards[i].done = true;
    else
      first.push_back(static_cast<int>(i));
  }
  if (!first.empty()) submit(first, "first submission");

  SlurmRunResult res;
  std::string last_line;
  // A task not yet listed right after sbatch is pending, not lost.
  const auto grace = std::chrono::seconds(30);
  for (;;) {
    if (in.stop && in.stop->load()) {
      std::set<std::string> jobs;
      for (const auto& st : shards)
        if (!st.done && !st.given_up && !st.job.empty()) jobs.insert(st.job);
      for (const auto& j : jobs) run_cmd({"scancel", j});
      res.interrupted = true;
      break;
    }
    std::map<std::string, std::map<int, slurm::ArrayTask>> listed;
    for (const auto& st : shards)
      if (!st.done && !st.given_up && !listed.count(st.job)) {
        auto tasks = slurm::parse_scontrol(run_cmd(slurm::scontrol_argv(st.job)).out, st.job);
        // scontrol and squeue both forget a job MinJobAge after it ends; either may answer.
        for (auto& [i, t] : slurm::parse_squeue(run_cmd(slurm::squeue_argv(st.job)).out, st.job))
          tasks.emplace(i, t);
        listed[st.job] = std::move(tasks);
      }
    std::vector<int> again;
    std::vector<std::string> reasons;
    int running = 0, pending = 0, done = 0, lost = 0;
    for (std::size_t i = 0; i < shards.size(); ++i) {
      auto& st = shards[i];
      if (st.done) {
        ++done;
        continue;
      }
      if (st.given_up) {
        ++lost;
        continue;
      }
      const auto& tasks = listed[st.job];
      auto it = tasks.find(static_cast<int>(i));
      if (it != tasks.end()) {
        st.seen = true;
        st.last_state = std::string(slurm::state_name(it->second.state));
        if (!slurm::is_terminal(it->second.state)) {
          it->second.state == slurm::TaskState::Pending ? ++pending : ++running;
          continue;
        }
      } else if (!st.seen && std::chrono::steady_clock::now() - st.submitted < grace) {
        ++pending;
        continue;
      } else {
        st.last_state = "vanished";
      }
      // Ended (or forgotten by Slurm): its journal decides.
      if (graded_keys(journal_of(i), st.keys).size() == st.keys.size()) {
        st.done = true;
        ++done;
        continue;
      }
      // Machine failures are what this is for; a task cancelled or killed (an admin, the
      // OOM killer, a node drained) is retried too, within the same bound, because a shard's
      // jobs must never take a verdict from how the task ended.
      if (st.attempts <= in.slurm.shard_retries) {
        again.push_back(static_cast<int>(i));
        reasons.push_back(fmt::format("shard {} {}", i, st.last_state));
      } else {
        st.given_up = true;
        ++lost;
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
      continue;
    }
    std::size_t graded = 0, total = 0;
    for (std::size_t i = 0; i < shards.size(); ++i) {
      total += shards[i].keys.size();
      graded += shards[i].done ? shards[i].keys.size()
                               : graded_keys(journal_of(i), shards[i].keys).size();
    }
    std::string line = fmt::format(
        "kjudge: slurm: shards {} done, {} running, {} pending, {} lost of {}; {}/{} graded", done,
        running, pending, lost, shards.size(), graded, total);
    if (!in.quiet && line != last_line) fmt::print(stderr, "{}\n", line);
    last_line = line;
    if (running == 0 && pending == 0) break;
    std::this_thread::sleep_for(std::chrono::duration<double>(in.slurm.poll_s));
  }

  // Merge: each shard's journal, first record of a key wins (a shard resumes its own journal,
  // so a later line for the same key can only come from a task that ran twice at once).
  std::set<SolutionKey> have;
  std::set<std::string> sandbox, limits;
  for (std::size_t i = 0; i < shards.size(); ++i) {
    std::set<SolutionKey> mine(shards[i].keys.begin(), shards[i].keys.end());
    for (auto& g : read_journal(journal_of(i))) {
      SolutionKey k{g.task_id, g.sample};
      if (!mine.count(k) || !have.insert(k).second) continue;
      res.results.push_back(std::move(g));
    }
    fs::path sum = out / "shards" / std::to_string(i) / "summary.json";
    if (fs::exists(sum)) {
      json s = json::parse(std::ifstream(sum), nullptr, false);
      if (!s.is_discarded()) {
        if (s.contains("sandbox")) sandbox.insert(s["sandbox"].get<std::string>());
        if (s.contains("sandbox_limits")) limits.insert(s["sandbox_limits"].get<std::string>());
        for (auto b : s.value("broken_gpus", json::array())) {
          b["shard"] = i;
          res.broken_gpus.push_back(b);
        }
        for (const auto& w : s.value("warnings", json::array()))
          if (std::find(res.warnings.begin(), res.warnings.end(), w) == res.warnings.end())
            res.warnings.push_back(w);
      }
    }
  }
  auto joined = [](const std::set<std::string>& s) {
    std::string r;
    for (const auto& x : s) r += (r.empty() ? "" : "; ") + x;
    return r;
  };
  res.sandbox = joined(sandbox);
  res.sandbox_limits = joined(limits);
  int missing = 0;
  for (std::size_t i = 0; i < shards.size(); ++i) {
    if (!shards[i].given_up) continue;
    for (const auto& k : shards[i].keys) {
      if (have.count(k)) continue;
      // The model is never charged for a lost node: judge_error, left out of pass@k.
      GradedSolution g;
      g.task_id = k.first;
      g.sample = k.second;
      if (auto it = by_key.find(k); it != by_key.end()) {
        g.group = it->second->group;
        g.difficulty = it->second->difficulty;
      }
      g.verdict = Verdict::judge_error;
      g.detail = fmt::format("Slurm shard {} was lost ({}) {} times; not graded", i,
                             shards[i].last_state, shards[i].attempts);
      have.insert(k);
      res.results.push_back(std::move(g));
      ++missing;
    }
  }
  if (missing)
    res.notes.push_back(fmt::format("{} jobs of lost Slurm shards are judge_error", missing));
  int resubmitted = 0;
  for (const auto& st : shards) resubmitted += std::max(0, st.attempts - 1);
  res.executor = {{"kind", "slurm"},
                  {"shards", shards.size()},
                  {"resubmitted", resubmitted},
                  {"submissions", submissions},
                  {"plan", plan_path.string()}};
  std::string text;
  for (const auto& g : res.results)
    text += graded_to_json(g).dump(-1, ' ', false, json::error_handler_t::replace) + "\n";
  write_atomically(out / "results.jsonl", text);
  res.complete = !res.interrupted && missing == 0 && have.size() == by_key.size();
  return res;
}

}  // namespace kjudge
