// ComputeEval's option names for kjudge evaluate (cli/computeeval_options.h).
#include "cli/computeeval_options.h"

#include <fmt/format.h>

#include <exception>

#include "core/input_error.h"

namespace kjudge {

namespace {

// ComputeEval's k: an int or a tuple of ints, which Fire reads from --k=3, --k=1,3, --k='(1,3)',
// --k='(1,)' or --k='[1, 3]' (and a YAML config gives as a list).
std::vector<int> parse_ks(const std::vector<std::string>& given) {
  std::string all;
  for (const auto& g : given) all += g + ",";
  std::vector<int> ks;
  std::string item;
  for (char c : all) {
    if (c == '(' || c == ')' || c == '[' || c == ']' || c == ' ') continue;
    if (c != ',') {
      item += c;
      continue;
    }
    if (item.empty()) continue;
    std::size_t used = 0;
    int k = 0;
    try {
      k = std::stoi(item, &used);
    } catch (const std::exception&) {
      used = 0;
    }
    if (used != item.size() || k < 1 || k > 1000000)
      throw InputError("--k", 0, "",
                       "'" + item +
                           "' is no k: give whole numbers from 1, e.g. --k 1,3 or "
                           "--k '(1,3)'");
    ks.push_back(k);
    item.clear();
  }
  if (ks.empty()) throw InputError("--k", 0, "", "give at least one k, e.g. --k 1,3");
  return ks;
}

}  // namespace

void add_computeeval_aliases(CLI::App* e, plan::RunOptions& a, ComputeEvalArgs& ce) {
  // An empty group hides an option from --help.
  e->add_option("--solutions_datapack,--solutions-datapack", a.solutions,
                "ComputeEval's name of --solutions")
      ->group("");
  e->add_option("--problems_datapack_dir,--problems-datapack-dir", ce.problems_datapack_dir,
                "ComputeEval's name of --datasets")
      ->group("");
  e->add_option("--k", ce.k, "ComputeEval's name of -k (also its tuple form)")->group("");
  e->add_option("--n_workers,--n-workers", a.workers, "ComputeEval's name of --workers")
      ->check(CLI::Range(0, 4096))
      ->group("");
  e->add_option("--profile_mode,--profile-mode", ce.profile_mode,
                "ComputeEval's profiling: cupti is --benchmark")
      ->check(CLI::IsMember({"cupti", "ncu"}))
      ->group("");
  e->add_option("--mode", ce.mode, "ComputeEval's execution mode: kjudge always sandboxes")
      ->check(CLI::IsMember({"docker", "local"}))
      ->group("");
}

void apply_computeeval_aliases(const ComputeEvalArgs& ce, plan::RunOptions& a,
                               ReleaseArgs& release) {
  if (!ce.problems_datapack_dir.empty()) {
    if (!release.datasets.empty())
      throw InputError("--problems_datapack_dir", 0, "",
                       "is ComputeEval's name of --datasets: give one of the two");
    if (release.release.empty())
      throw InputError("--problems_datapack_dir", 0, "",
                       "goes with --release (kjudge has no default release: name it, e.g. "
                       "--release 2026-1)");
    release.datasets = ce.problems_datapack_dir;
  }
  if (!ce.k.empty()) {
    a.ks = parse_ks(ce.k);
    a.ks_given = true;
  }
  if (ce.profile_mode == "ncu")
    throw InputError("--profile_mode", 0, "",
                     "ncu has no equivalent in kjudge; --profile_mode cupti (or --benchmark) times "
                     "every passing solution against its baseline with kjudge's CUPTI profiler");
  if (ce.profile_mode == "cupti") a.benchmark = true;
  if (!ce.mode.empty() && !a.quiet)
    fmt::print(stderr,
               "kjudge: note: --mode {} is ComputeEval's; kjudge runs every build and test in its "
               "own sandbox (--sandbox, default bwrap) whatever the mode\n",
               ce.mode);
}

}  // namespace kjudge
