// The options of `kjudge generate --tritonbench`; the run is plan/generate.h's.
#include "cli/generate_triton.h"

namespace kjudge {

void add_triton_generate_options(CLI::App* g, TritonGenArgs& t) {
  g->add_option("--tritonbench", t.tritonbench,
                "TritonBench data folder: ask for Triton operators instead of --problems; writes "
                "triton-solutions.jsonl");
  g->add_option("--channel", t.channel, "With --tritonbench: only channel G or T (default both)")
      ->check(CLI::IsMember({"G", "T"}));
  g->add_option("--instruction", t.instruction,
                "With --tritonbench: the simple or complex instruction (default simple)")
      ->check(CLI::IsMember({"simple", "complex"}));
  g->add_option("--one-shot", t.one_shot,
                "With --tritonbench: show the most similar example (BM25) from this corpus: a "
                "JSONL or JSON array of {instruction, output|code}, or a TritonBench folder");
  g->add_option("--one-shot-db", t.one_shot_db,
                "Keep the one-shot FTS5 index in this SQLite file (default in memory)");
}

}  // namespace kjudge
