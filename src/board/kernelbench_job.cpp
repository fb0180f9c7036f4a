#include "board/kernelbench_job.h"

#include <fstream>

#include "core/private_dir.h"
#include "kernelbench/judge/eval.h"

namespace kjudge::board {

namespace fs = std::filesystem;
using nlohmann::ordered_json;

const kernelbench::Problem* find_kernelbench_problem(const KernelBenchSets& sets,
                                                     const std::string& target, std::string* why,
                                                     std::string* set_name) {
  const std::string prefix = "kernelbench:";
  const std::size_t hash = target.find('#');
  if (target.rfind(prefix, 0) != 0 || hash == std::string::npos) {
    *why = "a KernelBench target is kernelbench:NAME#L1/19";
    return nullptr;
  }
  const std::string name = target.substr(prefix.size(), hash - prefix.size());
  const std::string ref_text = target.substr(hash + 1);
  const auto set = sets.find(name);
  if (set == sets.end()) {
    *why = "no KernelBench data folder named '" + name + "' is loaded";
    return nullptr;
  }
  const auto ref = kernelbench::parse_problem_ref(ref_text);
  const kernelbench::Problem* p = !ref ? nullptr
                                  : ref->file.empty()
                                      ? set->second.find(ref->level, ref->id)
                                      : set->second.find_file(ref->level, ref->file);
  if (!p) {
    *why = "KernelBench '" + name + "' has no problem '" + ref_text +
           "' (give L1/19 or level1/19_ReLU.py)";
    return nullptr;
  }
  if (set_name) *set_name = name;
  return p;
}

std::string kernelbench_target(const std::string& set_name, const kernelbench::Problem& p) {
  return "kernelbench:" + set_name + "#" + p.key();
}

namespace {

KernelBenchJobResult unjudged(const kernelbench::Problem& p, const std::string& why) {
  KernelBenchJobResult r;
  r.verdict = "judge_error";
  r.result = {{"kind", "kjudge-kernelbench-result"},
              {"key", p.key() + "#0"},
              {"level", p.level},
              {"problem_id", p.id},
              {"problem", p.file},
              {"verdict", r.verdict},
              {"detail", why}};
  return r;
}

}  // namespace

KernelBenchJobResult judge_kernelbench(const kernelbench::Problem& problem, const std::string& code,
                                       const KernelBenchJobOptions& o) {
  const fs::path parent = o.work_root.empty() ? fs::temp_directory_path() : o.work_root;
  std::error_code ec;
  fs::create_directories(parent, ec);
  PrivateDir dir = PrivateDir::try_make(parent, "kjudge-serve-kb-");
  if (dir.path().empty())
    return unjudged(problem, "judge: no folder for the run under " + o.work_root.string());
  const fs::path solutions = dir.path() / "solutions.jsonl";
  {
    std::ofstream out(solutions);
    out << ordered_json({{"level", problem.level},
                         {"problem_id", problem.id},
                         {"sample", 0},
                         {"code", code}})
               .dump()
        << "\n";
  }
  kernelbench::EvalOptions a;
  a.dir = o.data_dir.string();
  a.solutions = solutions.string();
  a.level = problem.level;
  a.problems = {problem.key()};
  a.out = (dir.path() / "run").string();
  a.workers = 1;  // one solution; the service takes KernelBench jobs one at a time
  a.gpu = o.gpu;
  a.speedup = o.speedup;
  a.python = o.python;
  a.cache_dir = o.extension_cache.string();
  a.bytecode_cache = o.bytecode_cache.string();
  a.quiet = true;
  kernelbench::EvalSandbox sandbox;
  sandbox.settings = o.step;
  sandbox.mode = o.sandbox_mode;
  kernelbench::EvalStop stop;
  kernelbench::EvalDone done;
  try {
    done = kernelbench::run_eval(
        a, sandbox, [](const std::string&) {}, &stop);
  } catch (const std::exception& e) {
    return unjudged(problem, std::string("judge: ") + e.what());
  }
  if (!stop.message.empty()) return unjudged(problem, "judge: " + stop.message);
  std::ifstream in(done.results);
  std::string line;
  if (!std::getline(in, line)) return unjudged(problem, "judge: the run wrote no result");
  KernelBenchJobResult r;
  r.result = ordered_json::parse(line, nullptr, false);
  if (!r.result.is_object() || !r.result.contains("verdict") || !r.result["verdict"].is_string())
    return unjudged(problem, "judge: the run's result line is not a result");
  r.verdict = r.result["verdict"].get<std::string>();
  // What the run found of the machine (python, torch, the GPU), as the summary has it.
  if (done.summary.contains("run") && done.summary["run"].contains("env"))
    r.result["env"] = done.summary["run"]["env"];
  return r;
}

}  // namespace kjudge::board
