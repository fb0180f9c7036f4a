// The options of `kjudge generate|run --kernelbench`; the runs are plan/'s.
#include "cli/generate_kernelbench.h"

namespace kjudge {

void add_kernelbench_generate_options(CLI::App* g, KernelBenchGenArgs& k, const char* writes) {
  g->add_option("--kernelbench", k.dir,
                std::string("KernelBench data folder: ask for ModelNew solutions (KernelBench's "
                            "prompt, one-shot) instead of --problems; ") +
                    writes);
  g->add_option("--level", k.level, "With --kernelbench: only this level")
      ->check(CLI::Range(1, 999));
}

}  // namespace kjudge
