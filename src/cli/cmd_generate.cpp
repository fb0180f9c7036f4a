// kjudge generate: its options; the run (a ComputeEval solutions pack, with --tritonbench a
// Triton solutions file, with --kernelbench a KernelBench solutions file) is plan/generate.h's.
#include "cli/commands.h"
#include "cli/generate_kernelbench.h"
#include "cli/generate_triton.h"
#include "cli/generation_session.h"
#include "cli/load.h"
#include "plan/generate.h"

namespace kjudge {

void add_generate_command(CLI::App& app, int& rc) {
  auto a = std::make_shared<GenArgs>();
  auto t = std::make_shared<TritonGenArgs>();
  auto k = std::make_shared<KernelBenchGenArgs>();
  auto* g = app.add_subcommand("generate",
                               "Ask a language model for solutions; writes a ComputeEval "
                               "solutions pack (OpenAI-compatible or Anthropic API)");
  g->add_option("--problems", a->problems,
                "Problems pack, problems.jsonl or problem directories (or --tritonbench DIR, "
                "--kernelbench DIR)");
  add_triton_generate_options(g, *t);
  add_kernelbench_generate_options(g, *k, "writes kernelbench-solutions.jsonl");
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
  g->callback([a, t, k, &rc] { rc = plan::run_generate(*a, *t, *k); });
}

}  // namespace kjudge
