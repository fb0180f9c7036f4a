// The sbatch command line and batch script, and the parsing of squeue and scontrol output
// (submit.h): pure functions, tested against captured output without a cluster.
#include "slurm/submit.h"

#include <algorithm>
#include <charconv>
#include <stdexcept>

namespace kjudge::slurm {

namespace {

struct StateName {
  std::string_view name;
  TaskState state;
};

constexpr StateName kStates[] = {
    {"PENDING", TaskState::Pending},       {"RUNNING", TaskState::Running},
    {"CONFIGURING", TaskState::Running},   {"COMPLETING", TaskState::Running},
    {"SIGNALING", TaskState::Running},     {"STAGE_OUT", TaskState::Running},
    {"RESIZING", TaskState::Running},      {"SUSPENDED", TaskState::Suspended},
    {"STOPPED", TaskState::Suspended},     {"REQUEUED", TaskState::Requeued},
    {"REQUEUE_HOLD", TaskState::Requeued}, {"REQUEUE_FED", TaskState::Requeued},
    {"COMPLETED", TaskState::Completed},   {"FAILED", TaskState::Failed},
    {"SPECIAL_EXIT", TaskState::Failed},   {"CANCELLED", TaskState::Cancelled},
    {"TIMEOUT", TaskState::Timeout},       {"OUT_OF_MEMORY", TaskState::OutOfMemory},
    {"DEADLINE", TaskState::Deadline},     {"NODE_FAIL", TaskState::NodeFail},
    {"PREEMPTED", TaskState::Preempted},   {"BOOT_FAIL", TaskState::BootFail},
};

std::string_view trim(std::string_view s) {
  while (!s.empty() && (s.front() == ' ' || s.front() == '\t' || s.front() == '\r'))
    s.remove_prefix(1);
  while (!s.empty() &&
         (s.back() == ' ' || s.back() == '\t' || s.back() == '\r' || s.back() == '\n'))
    s.remove_suffix(1);
  return s;
}

std::vector<std::string_view> split(std::string_view s, char sep) {
  std::vector<std::string_view> out;
  std::size_t start = 0;
  for (std::size_t i = 0; i <= s.size(); ++i)
    if (i == s.size() || s[i] == sep) {
      out.push_back(s.substr(start, i - start));
      start = i + 1;
    }
  return out;
}

int to_int(std::string_view s, std::string_view what) {
  int v = 0;
  auto [p, ec] = std::from_chars(s.data(), s.data() + s.size(), v);
  if (ec != std::errc() || p != s.data() + s.size() || s.empty())
    throw std::invalid_argument("not a " + std::string(what) + ": '" + std::string(s) + "'");
  return v;
}

ArrayTask make_task(int index, std::string_view raw_state, std::string_view reason) {
  ArrayTask t;
  t.index = index;
  t.raw_state = std::string(raw_state);
  t.state = parse_state(raw_state);
  t.reason = std::string(reason);
  return t;
}

}  // namespace

TaskState parse_state(std::string_view s) {
  s = trim(s);
  // sacct prints "CANCELLED by <uid>"; narrow columns end in '+'.
  if (auto sp = s.find(' '); sp != std::string_view::npos) s = s.substr(0, sp);
  if (!s.empty() && s.back() == '+') s.remove_suffix(1);
  for (const auto& n : kStates)
    if (n.name == s) return n.state;
  return TaskState::Unknown;
}

std::string_view state_name(TaskState s) {
  // The first name listed for a state is its canonical one.
  for (const auto& n : kStates)
    if (n.state == s) return n.name;
  return "UNKNOWN";
}

bool is_terminal(TaskState s) {
  switch (s) {
    case TaskState::Pending:
    case TaskState::Running:
    case TaskState::Suspended:
    case TaskState::Requeued:
    case TaskState::Unknown:
      return false;
    default:
      return true;
  }
}

Failure classify(TaskState s) {
  switch (s) {
    case TaskState::NodeFail:
    case TaskState::Preempted:
    case TaskState::BootFail:
      return Failure::Machine;
    case TaskState::Completed:
      return Failure::None;
    default:
      return is_terminal(s) ? Failure::Job : Failure::None;
  }
}

std::string array_spec(std::vector<int> indices, int max_parallel) {
  if (indices.empty()) throw std::invalid_argument("array_spec: no array indices");
  std::sort(indices.begin(), indices.end());
  indices.erase(std::unique(indices.begin(), indices.end()), indices.end());
  if (indices.front() < 0) throw std::invalid_argument("array_spec: negative array index");
  std::string out;
  for (std::size_t i = 0; i < indices.size();) {
    std::size_t j = i;
    while (j + 1 < indices.size() && indices[j + 1] == indices[j] + 1) ++j;
    if (!out.empty()) out += ',';
    out += std::to_string(indices[i]);
    if (j > i) out += "-" + std::to_string(indices[j]);
    i = j + 1;
  }
  if (max_parallel > 0) out += "%" + std::to_string(max_parallel);
  return out;
}

std::filesystem::path task_log_pattern(const std::filesystem::path& run_dir,
                                       const std::string& log_name) {
  return run_dir / "slurm" / log_name;
}

std::vector<std::string> sbatch_argv(const SubmitOptions& o, const std::vector<int>& indices,
                                     const std::filesystem::path& script) {
  std::vector<std::string> argv = {
      "sbatch",
      // Only the job id on stdout, so the submitter does not parse prose.
      "--parsable",
      "--job-name=" + o.job_name,
      "--array=" + array_spec(indices, o.max_parallel),
      "--output=" + task_log_pattern(o.run_dir, o.log_name).string(),
      // A task Slurm restarts in place keeps its job id; append rather than lose the first log.
      "--open-mode=append",
      // kjudge resubmits shards that failed for machine reasons itself and counts attempts;
      // Slurm requeueing the same task as well would run a shard twice at once.
      o.requeue ? "--requeue" : "--no-requeue",
  };
  if (!o.partition.empty()) argv.push_back("--partition=" + o.partition);
  if (o.gpus_per_task > 0) argv.push_back("--gres=gpu:" + std::to_string(o.gpus_per_task));
  for (const auto& a : o.extra_args) argv.push_back(a);
  argv.push_back(script.string());
  return argv;
}

std::string batch_script(const std::vector<std::vector<std::string>>& shard_commands) {
  std::string s =
      "#!/bin/bash\n"
      "# Written by kjudge: Slurm array task i runs shard i of the run.\n"
      "set -euo pipefail\n"
      "case \"${SLURM_ARRAY_TASK_ID:?kjudge: not started as a Slurm array task}\" in\n";
  for (std::size_t i = 0; i < shard_commands.size(); ++i) {
    if (shard_commands[i].empty()) throw std::invalid_argument("batch_script: empty command");
    s += "  " + std::to_string(i) + ") exec";
    for (const auto& a : shard_commands[i]) s += " " + shell_quote(a);
    s += " ;;\n";
  }
  s += "  *) echo \"kjudge: no shard $SLURM_ARRAY_TASK_ID in this script\" >&2; exit 2 ;;\n";
  s += "esac\n";
  return s;
}

std::string parse_sbatch_job_id(std::string_view out) {
  std::string_view id = trim(out);
  if (auto semi = id.find(';'); semi != std::string_view::npos) id = id.substr(0, semi);
  if (id.empty() || !std::all_of(id.begin(), id.end(), [](char c) { return c >= '0' && c <= '9'; }))
    throw std::runtime_error("sbatch did not print a job id: '" + std::string(trim(out)) + "'");
  return std::string(id);
}

std::vector<int> expand_indices(std::string_view spec) {
  spec = trim(spec);
  if (!spec.empty() && spec.front() == '[' && spec.back() == ']')
    spec = spec.substr(1, spec.size() - 2);
  if (auto pct = spec.find('%'); pct != std::string_view::npos) spec = spec.substr(0, pct);
  std::vector<int> out;
  for (auto part : split(spec, ',')) {
    auto dash = part.find('-');
    if (dash == std::string_view::npos) {
      out.push_back(to_int(part, "array index"));
      continue;
    }
    // A step ("0-15:4") is allowed in sbatch --array; scontrol prints it back the same way.
    std::string_view hi_s = part.substr(dash + 1);
    int step = 1;
    if (auto colon = hi_s.find(':'); colon != std::string_view::npos) {
      step = to_int(hi_s.substr(colon + 1), "array step");
      hi_s = hi_s.substr(0, colon);
    }
    int lo = to_int(part.substr(0, dash), "array index");
    int hi = to_int(hi_s, "array index");
    if (hi < lo || step < 1)
      throw std::invalid_argument("bad array range '" + std::string(part) + "'");
    for (int i = lo; i <= hi; i += step) out.push_back(i);
  }
  return out;
}

std::vector<std::string> squeue_argv(const std::string& array_job_id) {
  // -r: one line per task; -t all: finished tasks too, while Slurm still remembers them.
  return {"squeue", "-h", "-r", "-t", "all", "-j", array_job_id, "-o", "%i|%T|%r"};
}

std::vector<std::string> scontrol_argv(const std::string& array_job_id) {
  return {"scontrol", "show", "job", "-o", array_job_id};
}

std::map<int, ArrayTask> parse_squeue(std::string_view text, std::string_view array_job_id) {
  std::map<int, ArrayTask> out;
  for (auto line : split(text, '\n')) {
    line = trim(line);
    auto f = split(line, '|');
    if (f.size() < 2) continue;
    auto id = trim(f[0]);
    auto us = id.find('_');
    if (us == std::string_view::npos || id.substr(0, us) != array_job_id) continue;
    std::vector<int> indices;
    try {
      indices = expand_indices(id.substr(us + 1));
    } catch (const std::invalid_argument&) {
      continue;  // not an array task line; nothing to say about our tasks
    }
    for (int i : indices) out[i] = make_task(i, f[1], f.size() > 2 ? trim(f[2]) : "");
  }
  return out;
}

std::map<int, ArrayTask> parse_scontrol(std::string_view text, std::string_view array_job_id) {
  std::map<int, ArrayTask> out;
  for (auto line : split(text, '\n')) {
    // Values never hold spaces in the fields read here; later fields (Command=, Comment=) may,
    // so only the first occurrence of each key counts.
    std::map<std::string_view, std::string_view> kv;
    for (auto tok : split(trim(line), ' ')) {
      auto eq = tok.find('=');
      if (eq == std::string_view::npos || eq == 0) continue;
      kv.emplace(tok.substr(0, eq), tok.substr(eq + 1));
    }
    auto get = [&](std::string_view k) -> std::string_view {
      auto it = kv.find(k);
      return it == kv.end() ? std::string_view() : it->second;
    };
    if (get("ArrayJobId") != array_job_id || get("ArrayTaskId").empty()) continue;
    std::vector<int> indices;
    try {
      indices = expand_indices(get("ArrayTaskId"));
    } catch (const std::invalid_argument&) {
      continue;
    }
    int restarts = 0;
    try {
      restarts = to_int(get("Restarts"), "restart count");
    } catch (const std::invalid_argument&) {
    }
    for (int i : indices) {
      ArrayTask t = make_task(i, get("JobState"), get("Reason"));
      t.exit_code = std::string(get("ExitCode"));
      t.restarts = restarts;
      out[i] = t;
    }
  }
  return out;
}

}  // namespace kjudge::slurm
