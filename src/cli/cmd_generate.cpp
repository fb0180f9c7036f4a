// kjudge generate: solutions from a language model, as a ComputeEval solutions pack.
#include <fmt/format.h>
#include <signal.h>

#include <atomic>
#include <chrono>

#include "cli/commands.h"
#include "cli/generate_triton.h"
#include "cli/generation_session.h"
#include "cli/load.h"
#include "core/datapack.h"
#include "core/error.h"
#include "core/input_error.h"
#include "eval/build_cache.h"
#include "plan/turn_judge.h"
#include "run/machine.h"
#include "run/sandbox.h"

namespace kjudge {
namespace {

namespace fs = std::filesystem;

std::atomic<GenerationSession*> g_session{nullptr};

extern "C" void on_generate_interrupt(int) {
  if (GenerationSession* s = g_session.load()) s->request_stop();
  signal(SIGINT, SIG_DFL);
  signal(SIGTERM, SIG_DFL);
}

std::string default_dir(const std::string& model) {
  std::string s;
  for (char c : model) s += (std::isalnum(static_cast<unsigned char>(c)) || c == '.') ? c : '-';
  return "kjudge-gen/" + (s.empty() ? std::string("model") : s);
}

int run_generate(const GenArgs& a, const TritonGenArgs& t) {
  auto t0 = std::chrono::steady_clock::now();
  // TritonBench operators have their own prompts and a solutions JSONL instead of a pack.
  if (!t.tritonbench.empty()) {
    if (!a.problems.empty())
      throw InputError("--tritonbench", 0, "", "give either --problems or --tritonbench");
    return run_triton_generate(a, t, fs::path(a.out.empty() ? default_dir(a.model) : a.out));
  }
  if (a.problems.empty())
    throw InputError("--problems", 0, "",
                     "name the problems to ask for (or a TritonBench folder: --tritonbench DIR)");
  LoadReport report;
  std::vector<Problem> problems = filter_problems(read_problems_any(a.problems, &report), a.filter);
  int load_errors = print_load_errors(report);
  if (problems.empty())
    throw InputError(a.problems, 0, "", "no problems to ask for (after filters)");

  const fs::path out = a.out.empty() ? fs::path(default_dir(a.model)) : fs::path(a.out);
  GenerationSession session(a, out);
  session.open();

  // --turns: every answer is built and tested here, in the sandbox, as it arrives.
  std::unique_ptr<plan::TurnJudge> judge;
  if (a.turns > 1) {
    EvalOptions eo;
    eo.sandbox = true;
    eo.bwrap = locate_bwrap();
    eo.cache_dir = a.cache_dir.empty() ? default_cache_dir() : fs::path(a.cache_dir);
    SandboxPolicy probe;
    probe.bwrap = eo.bwrap;
    std::string why;
    if (!sandbox_available(probe, &why)) {
      throw Error(exit_code::environment,
                  fmt::format("--turns judges each answer in the sandbox, which does not work "
                              "here: {}\n  install bubblewrap (apt-get install bubblewrap)",
                              why));
    }
    judge = std::make_unique<plan::TurnJudge>(eo, probe_machine());
    session.set_judge([&judge](const Problem& p, const Solution& s) { return judge->judge(p, s); });
  }
  g_session.store(&session);
  signal(SIGINT, on_generate_interrupt);
  signal(SIGTERM, on_generate_interrupt);
  session.run(problems, nullptr);
  g_session.store(nullptr);
  signal(SIGINT, SIG_DFL);
  signal(SIGTERM, SIG_DFL);

  nlohmann::json summary =
      session.finish(problems, "summary.json",
                     std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count());
  if (a.json) fmt::print("{}\n", summary.dump(2));
  const std::size_t answers = summary["answers"].get<std::size_t>();
  const std::size_t missing = summary["missing"].get<std::size_t>();
  if (!a.quiet) {
    fmt::print(
        stderr,
        "generated {} of {} answers ({} without usable code, {} truncated); tokens in "
        "{} out {}{}\nsolutions: {}\n",
        answers, answers + missing, summary["unusable_answers"].get<int>(),
        summary["truncated_answers"].get<int>(), summary["usage"]["input_tokens"].get<long>(),
        summary["usage"]["output_tokens"].get<long>(),
        summary["estimated_cost_usd"].is_null()
            ? std::string()
            : fmt::format("; estimated cost ${:.4f}", summary["estimated_cost_usd"].get<double>()),
        summary["solutions_pack"].get<std::string>());
  }
  if (missing > 0) {
    fmt::print(stderr,
               "kjudge: {} answers missing; finish with: kjudge generate ... --out {} --resume\n",
               missing, out.string());
    return session.failed_requests() == 0 ? exit_code::interrupted : exit_code::judge_error;
  }
  return load_errors ? exit_code::findings : exit_code::ok;
}

}  // namespace

void add_generate_command(CLI::App& app, int& rc) {
  auto a = std::make_shared<GenArgs>();
  auto t = std::make_shared<TritonGenArgs>();
  auto* g = app.add_subcommand("generate",
                               "Ask a language model for solutions; writes a ComputeEval "
                               "solutions pack (OpenAI-compatible or Anthropic API)");
  g->add_option("--problems", a->problems,
                "Problems pack, problems.jsonl or problem directories (or --tritonbench DIR)");
  add_triton_generate_options(g, *t);
  g->add_option("--out", a->out,
                "Run directory: generation.jsonl, answers/, <model>-solutions.tar.gz, "
                "summary.json (default kjudge-gen/<model>)");
  g->add_flag("--resume", a->resume, "Finish the run in --out: ask only for missing answers");
  add_filter_options(g, a->filter);
  add_model_options(g, *a, /*standalone=*/true);
  g->add_option("--cache-dir", a->cache_dir,
                "Build cache used to judge turns with --turns (default $KJUDGE_CACHE_DIR or "
                "~/.cache/kjudge)");
  g->add_flag("-q,--quiet", a->quiet, "No progress on stderr");
  g->add_flag("--json", a->json, "Print the summary JSON on stdout");
  g->callback([a, t, &rc] { rc = run_generate(*a, *t); });
}

}  // namespace kjudge
