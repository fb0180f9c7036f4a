// `kjudge evaluate` on a TritonBench folder: its options checked and turned into `kjudge triton
// eval`'s (cli/evaluate_triton.h).
#include "cli/evaluate_triton.h"

#include <fmt/format.h>

#include <algorithm>
#include <set>

#include "cli/triton_eval_args.h"
#include "core/error.h"
#include "core/input_error.h"

namespace kjudge {
namespace {

const CLI::Option* given(const CLI::App& cmd, const std::string& name) {
  const CLI::Option* o = cmd.get_option_no_throw(name);
  return o && o->count() > 0 ? o : nullptr;
}

// Options of `kjudge evaluate` that mean something for Triton operators; anything else given
// is refused by name.
const char* const kSupported[] = {
    "--problems",     "--solutions", "--out",      "--resume",          "--json",       "--quiet",
    "--workers",      "--gpus",      "--task",     "--group",           "--difficulty", "--limit",
    "--benchmark",    "--runs",      "--warmups",  "--keep-workspaces", "--sandbox",    "--bwrap",
    "--memory-limit", "--log-cap",   "--executor", "--profiler"};

std::string one_value(const CLI::Option* o) {
  const auto& r = o->results();
  if (r.size() != 1)
    throw InputError("kjudge evaluate", 0, o->get_name(), "give it once for Triton operators");
  return r[0];
}

}  // namespace

int evaluate_triton_pack(const CLI::App& cmd) {
  std::vector<std::string> refused;
  for (const CLI::Option* o : cmd.get_options()) {
    if (o->count() == 0) continue;
    const bool ok = std::any_of(std::begin(kSupported), std::end(kSupported),
                                [&](const char* n) { return o->check_name(n); });
    if (!ok) refused.push_back(o->get_name());
  }
  if (const CLI::Option* ex = given(cmd, "--executor"); ex && one_value(ex) != "local")
    refused.push_back("--executor " + one_value(ex));
  if (!refused.empty()) {
    std::string list;
    for (const std::string& r : refused) list += (list.empty() ? "" : ", ") + r;
    throw Error(exit_code::usage,
                list +
                    " cannot apply to Triton operators (--problems is a TritonBench folder); "
                    "`kjudge triton eval` has the Triton judge's own options (docs/triton.md)");
  }

  TritonEvalArgs a;
  a.dir = cmd.get_option("--problems")->as<std::string>();
  a.solutions =
      triton::triton_solutions_file(cmd.get_option("--solutions")->as<std::string>()).string();
  if (auto o = given(cmd, "--out")) a.out = one_value(o);
  a.resume = given(cmd, "--resume") != nullptr;
  a.json = given(cmd, "--json") != nullptr;
  a.quiet = given(cmd, "--quiet") != nullptr;
  if (auto o = given(cmd, "--workers")) {
    a.workers = o->as<int>();
    if (a.workers < 1) throw InputError("kjudge evaluate", 0, "--workers", "must be at least 1");
  }
  if (auto o = given(cmd, "--gpus")) {
    const auto gpus = o->as<std::vector<int>>();
    // One timed run holds the GPU alone; the runs in test mode share it. More GPUs are not
    // used by the Triton judge yet.
    if (gpus.size() != 1)
      throw InputError("kjudge evaluate", 0, "--gpus",
                       "the Triton judge runs on one GPU: give one index");
    a.gpu = gpus[0];
  }
  // --task: an operator ("add_example", "add_example.py") or a task id as kjudge generate
  // --tritonbench names them ("G/add_example.py"); --group: the channel.
  std::set<std::string> channels;
  if (auto o = given(cmd, "--task"))
    for (std::string t : o->as<std::vector<std::string>>()) {
      if (t.size() > 2 && (t.starts_with("G/") || t.starts_with("T/"))) {
        channels.insert(t.substr(0, 1));
        t = t.substr(2);
      }
      a.operators.push_back(t);
    }
  if (auto o = given(cmd, "--group"))
    for (const std::string& g : o->as<std::vector<std::string>>()) {
      if (g != "G" && g != "T")
        throw InputError("kjudge evaluate", 0, "--group",
                         "'" + g + "' is not a TritonBench channel (G or T)");
      channels.insert(g);
    }
  if (channels.size() == 1) a.channel = *channels.begin();
  if (auto o = given(cmd, "--difficulty")) {
    const std::string d = one_value(o);
    if (d.size() != 1 || d[0] < '1' || d[0] > '5')
      throw InputError("kjudge evaluate", 0, "--difficulty",
                       "'" + d + "' is not a TritonBench difficulty (1..5)");
    a.difficulty = d[0] - '0';
  }
  if (auto o = given(cmd, "--limit")) a.limit = o->as<int>();
  a.speedup = given(cmd, "--benchmark") != nullptr;
  // --profiler named: the Triton judge's --cupti with that library (it needs --benchmark);
  // otherwise a timed run uses the profiler where it is found, as triton eval does.
  if (auto o = given(cmd, "--profiler")) {
    if (!a.speedup)
      throw Error(exit_code::usage,
                  "--profiler on Triton operators puts the CUPTI profiler in the timing "
                  "processes (triton eval --cupti): it needs --benchmark");
    a.cupti = true;
    a.profiler = one_value(o);
  }
  if (auto o = given(cmd, "--runs")) a.rounds = o->as<int>();
  if (auto o = given(cmd, "--warmups")) a.warmup_rounds = o->as<int>();
  a.keep_workspaces = given(cmd, "--keep-workspaces") != nullptr;
  if (auto o = given(cmd, "--sandbox")) a.steps.sandbox = one_value(o);
  if (auto o = given(cmd, "--bwrap")) a.steps.bwrap = one_value(o);
  if (auto o = given(cmd, "--memory-limit")) a.steps.memory_limit = one_value(o);
  if (auto o = given(cmd, "--log-cap")) a.log_cap = o->as<std::size_t>();
  if (!a.json && !a.quiet)
    fmt::print(stderr,
               "kjudge: {} is a TritonBench folder: judging Triton operators "
               "(kjudge triton eval {} --solutions {})\n",
               a.dir, a.dir, a.solutions);
  int rc = exit_code::ok;
  run_triton_eval(a, rc);
  return rc;
}

}  // namespace kjudge
