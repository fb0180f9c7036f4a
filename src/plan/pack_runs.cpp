// A folder of solution packs evaluated pack by pack (plan/pack_runs.h).
#include "plan/pack_runs.h"

#include <fmt/format.h>

#include <algorithm>
#include <ctime>
#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>
#include <string>

#include "core/atomic_file.h"
#include "core/exit_codes.h"
#include "core/input_error.h"
#include "core/time_stamp.h"
#include "eval/computeeval_graded.h"
#include "plan/execute.h"
#include "plan/run_plan.h"

namespace kjudge::plan {

namespace fs = std::filesystem;
using nlohmann::json;

namespace {

json read_summary(const fs::path& path) {
  std::ifstream in(path);
  if (!in) return nullptr;
  json j = json::parse(in, nullptr, false);
  return j.is_discarded() ? json(nullptr) : j;
}

// One pack's line of the combined summary, from its own summary.json (null: not run yet).
json pack_entry(const SolutionPackRef& pack, const fs::path& out) {
  const fs::path dir = out / pack.name;
  json e = {{"name", pack.name},
            {"solutions_pack", pack.path.string()},
            {"run_dir", dir.string()},
            {"summary", (fs::path(pack.name) / "summary.json").string()},
            {"graded_solutions",
             (fs::path(pack.name) / computeeval_graded_file_name(pack.name)).string()}};
  const json s = read_summary(dir / "summary.json");
  if (s.is_null()) {
    e["complete"] = false;
    e["started"] = false;
    return e;
  }
  e["started"] = true;
  for (const char* key : {"complete", "problems", "evaluated_problems", "solutions", "verdicts",
                          "pass_at_k", "load_errors"})
    if (s.contains(key)) e[key] = s[key];
  e["judge_errors"] = s.value("judge_errors", json::array()).size();
  if (s.contains("performance") && s["performance"].is_object())
    e["geomean_speedup"] = s["performance"].value("geomean_speedup", json(nullptr));
  return e;
}

std::string pass_text(const json& pass_at_k, int k) {
  const std::string key = std::to_string(k);
  if (!pass_at_k.is_object() || !pass_at_k.contains(key) || !pass_at_k[key].is_number()) return "-";
  return fmt::format("{:.3f}", pass_at_k[key].get<double>());
}

// The packs side by side on stderr: pass@k, graded solutions, failures and judge errors.
void print_table(const json& summary, const std::vector<int>& ks) {
  std::size_t w = 4;
  for (const auto& p : summary["packs"]) w = std::max(w, p["name"].get<std::string>().size());
  std::string head = fmt::format("{:<{}}", "pack", w);
  for (int k : ks) head += fmt::format("  {:>7}", "pass@" + std::to_string(k));
  head += fmt::format("  {:>9}  {:>12}  {}", "solutions", "judge_errors", "run directory");
  fmt::print(stderr, "\n{}\n", head);
  for (const auto& p : summary["packs"]) {
    std::string line = fmt::format("{:<{}}", p["name"].get<std::string>(), w);
    for (int k : ks) line += fmt::format("  {:>7}", pass_text(p.value("pass_at_k", json()), k));
    line += fmt::format("  {:>9}  {:>12}  {}{}", p.value("solutions", 0),
                        p.value("judge_errors", 0), p["run_dir"].get<std::string>(),
                        p.value("complete", false) ? "" : "  (incomplete)");
    fmt::print(stderr, "{}\n", line);
  }
}

int gravest(int a, int b) {
  auto rank = [](int c) {
    return c == exit_code::judge_error ? 2 : c == exit_code::findings ? 1 : c == 0 ? 0 : 3;
  };
  return rank(b) > rank(a) ? b : a;
}

}  // namespace

int evaluate_each_pack(const RunOptions& options, const std::vector<SolutionPackRef>& packs) {
  if (options.slurm.executor == "slurm" || !options.slurm.shard_of.empty())
    throw InputError("--solutions", 0, "",
                     options.solutions +
                         " is a folder of solution packs, which runs on the local executor: "
                         "give --executor slurm one pack at a time");
  const fs::path out =
      options.out.empty()
          ? fs::path("kjudge-runs") / ("evaluate-" + run_stamp(std::time(nullptr), false))
          : fs::path(options.out);
  if (fs::exists(out / "results.jsonl"))
    throw InputError(out.string(), 0, "",
                     "holds the run of a single solutions pack; choose another --out for a "
                     "folder of packs");
  if (fs::exists(out / "summary.json") && !options.resume)
    throw InputError(out.string(), 0, "",
                     "holds an earlier run; pass --resume to finish it, or choose another --out");

  // Every pack planned first: nothing runs unless all of them can.
  std::vector<RunPlan> plans;
  for (const auto& pack : packs) {
    RunOptions po = options;
    po.solutions = pack.path.string();
    po.out = (out / pack.name).string();
    po.json = false;  // the combined summary is the one printed
    if (!options.quiet) fmt::print(stderr, "kjudge: pack {}: {}\n", pack.name, pack.path.string());
    plans.push_back(plan_run("evaluate", po));
  }

  int rc = exit_code::ok;
  bool interrupted = false;
  for (std::size_t i = 0; i < plans.size(); ++i) {
    if (!options.quiet)
      fmt::print(stderr, "\nkjudge: evaluating pack {} of {}: {} -> {}\n", i + 1, plans.size(),
                 packs[i].name, plans[i].out.string());
    // The machine is the same for every pack: checked once, before the first.
    if (i > 0) plans[i].options.skip_env_check = true;
    const int pack_rc = execute(plans[i]);
    if (pack_rc == exit_code::interrupted) {
      interrupted = true;
      rc = pack_rc;
      break;
    }
    rc = gravest(rc, pack_rc);
  }

  json summary = {{"schema_version", 1},
                  {"kind", "kjudge-packs-summary"},
                  {"command", "evaluate"},
                  {"problems", options.problems},
                  {"solutions", options.solutions},
                  {"run_dir", out.string()},
                  {"ks", options.ks},
                  {"packs", json::array()}};
  bool complete = !interrupted;
  for (const auto& pack : packs) {
    json e = pack_entry(pack, out);
    complete = complete && e.value("complete", false);
    summary["packs"].push_back(std::move(e));
  }
  summary["complete"] = complete;
  fs::create_directories(out);
  write_json_atomically(out / "summary.json", summary);
  if (options.json) fmt::print("{}\n", summary.dump(2));
  if (!options.quiet) {
    print_table(summary, options.ks);
    fmt::print(stderr, "packs: {}\n", (out / "summary.json").string());
  }
  if (interrupted)
    fmt::print(stderr,
               "kjudge: interrupted; finish every pack with: kjudge evaluate ... --out {} "
               "--resume\n",
               out.string());
  return rc;
}

}  // namespace kjudge::plan
