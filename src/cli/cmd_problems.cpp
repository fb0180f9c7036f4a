// kjudge problems {list, show, verify, pack, export} and kjudge solutions {pack, baseline}.
#include <fmt/format.h>

#include <nlohmann/json.hpp>

#include "cli/commands.h"
#include "cli/load.h"
#include "core/datapack.h"
#include "core/exit_codes.h"
#include "core/problem_dir.h"
#include "core/problem_json.h"
#include "eval/evaluator.h"

namespace kjudge {
namespace {

std::string refs_text(const Problem& p) {
  if (!p.source_references || p.source_references->empty()) return "";
  std::string s;
  if (!p.source_references->all.empty())
    s += fmt::format("all of: {}", fmt::join(p.source_references->all, ", "));
  if (!p.source_references->any.empty())
    s += fmt::format("{}one of: {}", s.empty() ? "" : "; ",
                     fmt::join(p.source_references->any, ", "));
  return s;
}

// `problems list --json` stays a bare array (scripts index it directly); each element carries
// the version instead, so a reader still learns which shape it holds.
nlohmann::ordered_json brief_json(const Problem& p) {
  return {
      {"schema_version", 1},
      {"kind", "kjudge-problem-brief"},
      {"task_id", p.task_id},
      {"type", p.type},
      {"group", p.group},
      {"difficulty", p.difficulty},
      {"tags", p.tags},
      {"timeout_seconds", p.timeout_or_default()},
      {"min_cuda_toolkit", p.min_cuda_toolkit ? nlohmann::ordered_json(*p.min_cuda_toolkit)
                                              : nlohmann::ordered_json(nullptr)},
      {"compute_capability", p.compute_capability ? nlohmann::ordered_json(*p.compute_capability)
                                                  : nlohmann::ordered_json(nullptr)},
      {"has_benchmark", p.benchmark_command.has_value()},
      {"has_source_references", p.source_references && !p.source_references->empty()},
      {"has_baseline", p.baseline_solution.has_value()}};
}

struct ListArgs {
  std::string pack;
  ProblemFilter filter;
  bool json = false;
};

struct ShowArgs {
  std::string pack;
  std::string task_id;
  bool json = false;
  bool tests = false;
};

struct PackArgs {
  std::vector<std::string> inputs;
  std::string out;
  std::string release = "custom";
  std::string description;
};

void cmd_list(const ListArgs& a, int& rc) {
  LoadReport report;
  auto problems = filter_problems(read_problems_any(a.pack, &report), a.filter);
  int bad = print_load_errors(report);
  if (a.json) {
    nlohmann::ordered_json arr = nlohmann::ordered_json::array();
    for (const auto& p : problems) arr.push_back(brief_json(p));
    fmt::print("{}\n", arr.dump(2));
  } else {
    fmt::print("{:<24} {:<13} {:<7} {:>7}  {}\n", "TASK", "GROUP", "LEVEL", "TIMEOUT", "NOTES");
    for (const auto& p : problems) {
      std::string notes;
      if (p.benchmark_command) notes += "bench ";
      if (p.source_references && !p.source_references->empty()) notes += "srcrefs ";
      if (p.compute_capability) notes += "sm" + *p.compute_capability + " ";
      if (p.requires_datacenter_gpu) notes += "datacenter ";
      if (p.host_only) notes += "host-only ";
      if (p.type != "cuda_cpp") notes += p.type + " ";
      fmt::print("{:<24} {:<13} {:<7} {:>6.0f}s  {}\n", p.task_id, p.group, p.difficulty,
                 p.timeout_or_default(), notes);
    }
    fmt::print("{} problems\n", problems.size());
  }
  rc = bad ? exit_code::findings : exit_code::ok;
}

void cmd_show(const ShowArgs& a, int& rc) {
  LoadReport report;
  auto problems = read_problems_any(a.pack, &report);
  print_load_errors(report);
  for (const auto& p : problems) {
    if (p.task_id != a.task_id) continue;
    if (a.json) {
      // ComputeEval's own problem object, versioned by its own schema_version (2).
      auto j = problem_to_json(p);
      if (!a.tests) j.erase("test_files");
      fmt::print("{}\n", j.dump(2));
      rc = exit_code::ok;
      return;
    }
    fmt::print("{}  ({}, {}, {})\n", p.task_id, p.group, p.difficulty, p.type);
    if (!p.tags.empty()) fmt::print("tags: {}\n", fmt::join(p.tags, ", "));
    fmt::print("\n{}\n\n", p.prompt);
    fmt::print("build:     {}\n", p.build_command.value_or("(none)"));
    fmt::print("test:      {}\n", p.test_command);
    if (p.benchmark_command)
      fmt::print("benchmark: {} (timing: {})\n", *p.benchmark_command, p.timing_mode.type);
    fmt::print("timeout:   {:.0f} s   min CUDA: {}   compute capability: {}{}\n",
               p.timeout_or_default(), p.min_cuda_toolkit.value_or("any"),
               p.compute_capability.value_or("any"),
               p.requires_datacenter_gpu ? "   datacenter GPU" : "");
    if (auto r = refs_text(p); !r.empty()) fmt::print("must use:  {}\n", r);
    for (const auto& f : p.context_files)
      fmt::print("context:   {} ({} bytes)\n", f.path, f.content.size());
    for (const auto& f : p.test_files)
      fmt::print("test file: {} ({} bytes, hidden)\n", f.path, f.content.size());
    if (p.baseline_solution)
      for (const auto& f : p.baseline_solution->files)
        fmt::print("baseline:  {} ({} bytes)\n", f.path, f.content.size());
    if (a.tests)
      for (const auto& f : p.test_files) fmt::print("\n--- {} ---\n{}\n", f.path, f.content);
    rc = exit_code::ok;
    return;
  }
  throw InputError(a.pack, 0, "task_id", "no problem '" + a.task_id + "' in this pack");
}

void cmd_verify(const std::string& path, bool json, int& rc) {
  LoadReport report;
  ProblemPack pack = read_problem_pack(path, &report);
  auto issues = verify_pack(pack);
  if (json) {
    nlohmann::ordered_json j = {{"schema_version", 1},
                                {"kind", "kjudge-pack-verify"},
                                {"pack", path},
                                {"release", pack.metadata.release},
                                {"problems", pack.problems.size()},
                                {"ok", issues.empty() && report.ok()}};
    j["load_errors"] = nlohmann::ordered_json::array();
    for (const auto& e : report.errors) j["load_errors"].push_back(e.what());
    j["issues"] = nlohmann::ordered_json::array();
    for (const auto& i : issues)
      j["issues"].push_back({{"task_id", i.task_id}, {"message", i.message}});
    fmt::print("{}\n", j.dump(2));
  } else {
    for (const auto& e : report.errors) fmt::print("unreadable: {}\n", e.what());
    for (const auto& i : issues)
      fmt::print("MISMATCH {}: {}\n", i.task_id.empty() ? "(pack)" : i.task_id, i.message);
    if (issues.empty() && report.ok())
      fmt::print("ok: {} problems of release {}, every hash verifies\n", pack.problems.size(),
                 pack.metadata.release);
    else
      fmt::print("{} integrity issues, {} unreadable lines\n", issues.size(), report.errors.size());
  }
  rc = (issues.empty() && report.ok()) ? exit_code::ok : exit_code::findings;
}

void cmd_pack_problems(const PackArgs& a, int& rc) {
  std::vector<Problem> all;
  LoadReport report;
  for (const auto& in : a.inputs) {
    auto ps = read_problems_any(in, &report);
    all.insert(all.end(), ps.begin(), ps.end());
  }
  int bad = print_load_errors(report);
  // An empty pack is never what was asked for (every input failed, or held nothing).
  if (all.empty()) throw InputError(a.out, 0, "", "nothing to pack: no problem was loaded");
  write_problem_pack(
      a.out, a.release,
      a.description.empty() ? std::nullopt : std::optional<std::string>(a.description), all);
  fmt::print(stderr, "wrote {} problems to {}\n", all.size(), a.out);
  rc = bad ? exit_code::findings : exit_code::ok;
}

void cmd_export(const std::string& pack, const std::string& out, const ProblemFilter& filter,
                int& rc) {
  LoadReport report;
  auto problems = filter_problems(read_problems_any(pack, &report), filter);
  int bad = print_load_errors(report);
  for (const auto& p : problems)
    write_problem_dir(p, std::filesystem::path(out) / sanitize_task_id(p.task_id));
  fmt::print(stderr, "wrote {} problem directories under {}\n", problems.size(), out);
  rc = bad ? exit_code::findings : exit_code::ok;
}

void cmd_pack_solutions(const PackArgs& a, int& rc) {
  std::vector<Solution> all;
  LoadReport report;
  for (const auto& in : a.inputs) {
    auto ss = read_solutions_any(in, &report);
    all.insert(all.end(), ss.begin(), ss.end());
  }
  int bad = print_load_errors(report);
  if (all.empty()) throw InputError(a.out, 0, "", "nothing to pack: no solution was loaded");
  write_solution_pack(
      a.out, a.release,
      a.description.empty() ? std::nullopt : std::optional<std::string>(a.description),
      std::nullopt, all);
  fmt::print(stderr, "wrote {} solutions to {}\n", all.size(), a.out);
  rc = bad ? exit_code::findings : exit_code::ok;
}

void cmd_baseline(const std::string& pack, const std::string& out, const ProblemFilter& filter,
                  int& rc) {
  LoadReport report;
  auto problems = filter_problems(read_problems_any(pack, &report), filter);
  int bad = print_load_errors(report);
  std::vector<Solution> sols;
  for (const auto& p : problems)
    if (p.baseline_solution) sols.push_back(*p.baseline_solution);
  write_solution_pack(out, "baseline", std::nullopt, std::nullopt, sols);
  fmt::print(stderr, "wrote {} baseline solutions to {}\n", sols.size(), out);
  rc = bad ? exit_code::findings : exit_code::ok;
}

}  // namespace

void add_problems_commands(CLI::App& app, int& rc) {
  auto* problems = app.add_subcommand("problems", "Inspect, verify and convert problem packs");
  problems->require_subcommand(1);

  auto list = std::make_shared<ListArgs>();
  auto* l = problems->add_subcommand("list", "List the problems of a pack");
  l->add_option("PACK", list->pack, "Problems pack (.tar.gz), problems.jsonl or problem directory")
      ->required();
  add_filter_options(l, list->filter);
  l->add_flag("--json", list->json, "JSON array on stdout");
  l->callback([list, &rc] { cmd_list(*list, rc); });

  auto show = std::make_shared<ShowArgs>();
  auto* s = problems->add_subcommand("show", "Show one problem");
  s->add_option("PACK", show->pack, "Problems pack")->required();
  s->add_option("ID", show->task_id, "task_id, e.g. CUDA/3")->required();
  s->add_flag("--json", show->json, "The problem as JSON (hidden tests left out unless --tests)");
  s->add_flag("--tests", show->tests, "Also print the hidden test files");
  s->callback([show, &rc] { cmd_show(*show, rc); });

  auto verify = std::make_shared<std::pair<std::string, bool>>();
  auto* v = problems->add_subcommand("verify", "Check every problem against the pack's MD5 hashes");
  v->add_option("PACK", verify->first, "Problems pack (.tar.gz)")->required();
  v->add_flag("--json", verify->second, "JSON on stdout");
  v->callback([verify, &rc] { cmd_verify(verify->first, verify->second, rc); });

  auto pack = std::make_shared<PackArgs>();
  auto* p = problems->add_subcommand("pack",
                                     "Write a ComputeEval problems pack from problem "
                                     "directories, JSONL files or other packs");
  p->add_option("INPUT", pack->inputs, "Problem directories (or trees of them), packs, .jsonl")
      ->required();
  p->add_option("-o,--out", pack->out, "Output .tar.gz")->required();
  p->add_option("--release", pack->release, "Release name in metadata.json");
  p->add_option("--description", pack->description, "Description in metadata.json");
  p->callback([pack, &rc] { cmd_pack_problems(*pack, rc); });

  struct ExportArgs {
    std::string pack, out;
    ProblemFilter filter;
  };
  auto exp = std::make_shared<ExportArgs>();
  auto* e =
      problems->add_subcommand("export", "Write each problem of a pack as a problem directory");
  e->add_option("PACK", exp->pack, "Problems pack")->required();
  e->add_option("DIR", exp->out, "Output directory")->required();
  add_filter_options(e, exp->filter);
  e->callback([exp, &rc] { cmd_export(exp->pack, exp->out, exp->filter, rc); });
}

void add_solutions_commands(CLI::App& app, int& rc) {
  auto* sols = app.add_subcommand("solutions", "Build solutions packs");
  sols->require_subcommand(1);

  auto pack = std::make_shared<PackArgs>();
  auto* p = sols->add_subcommand("pack",
                                 "Write a ComputeEval solutions pack from solution "
                                 "directories, solutions.jsonl files or packs");
  p->add_option("INPUT", pack->inputs, "Solution directories (or trees of them), packs, .jsonl")
      ->required();
  p->add_option("-o,--out", pack->out, "Output <name>-solutions.tar.gz")->required();
  p->add_option("--release", pack->release, "Release name in metadata.json");
  p->add_option("--description", pack->description, "Description in metadata.json");
  p->callback([pack, &rc] { cmd_pack_solutions(*pack, rc); });

  struct BaselineArgs {
    std::string pack, out;
    ProblemFilter filter;
  };
  auto base = std::make_shared<BaselineArgs>();
  auto* b = sols->add_subcommand("baseline",
                                 "Write the problems' baseline solutions as a "
                                 "solutions pack");
  b->add_option("PACK", base->pack, "Problems pack")->required();
  b->add_option("-o,--out", base->out, "Output <name>-solutions.tar.gz")->required();
  add_filter_options(b, base->filter);
  b->callback([base, &rc] { cmd_baseline(base->pack, base->out, base->filter, rc); });
}

}  // namespace kjudge
