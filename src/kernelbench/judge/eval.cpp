// A whole `kjudge kernelbench eval` run.
// Declared, and explained, in kernelbench/judge/eval.h.
#include "kernelbench/judge/eval.h"

#include <fmt/format.h>

#include <cstdlib>

#include "core/input_error.h"
#include "core/run_identity.h"
#include "core/sha256.h"
#include "kernelbench/judge/eval_stream.h"

namespace kjudge::kernelbench {
namespace fs = std::filesystem;

namespace {

// What the solutions are: their code and their problems' code, by key.
std::string solutions_fingerprint(const std::vector<Solution>& sols) {
  ItemFingerprint items("\n");
  for (const Solution& s : sols)
    items.add(s.key(), sha256_hex(s.code) + " " + sha256_hex(s.problem->code));
  return items.hex();
}

std::string absolute_label(const std::string& p) {
  std::error_code ec;
  fs::path abs = fs::weakly_canonical(fs::absolute(p), ec);
  return ec ? fs::absolute(p).lexically_normal().string() : abs.string();
}

std::vector<Solution> select(const EvalOptions& a, const Dataset& d) {
  std::vector<Solution> sols = a.self ? self_solutions(d) : read_solutions(a.solutions, d, a.level);
  if (!a.problems.empty()) {
    std::vector<const Problem*> wanted;
    for (const std::string& text : a.problems) {
      const Problem* p = nullptr;
      if (auto ref = parse_problem_ref(text)) {
        p = ref->file.empty() ? d.find(ref->level, ref->id) : d.find_file(ref->level, ref->file);
      } else if (a.level > 0 && !text.empty() &&
                 text.find_first_not_of("0123456789") == std::string::npos && text.size() < 7) {
        p = d.find(a.level, std::stoi(text));
      } else if (a.level > 0) {
        p = d.find_file(a.level, text);
      }
      if (!p)
        throw InputError("--problem", 0, text,
                         "names no problem of the data folder (give L1/19, level1/19_ReLU.py, or a "
                         "number with --level)");
      wanted.push_back(p);
    }
    std::erase_if(sols, [&](const Solution& s) {
      return std::find(wanted.begin(), wanted.end(), s.problem) == wanted.end();
    });
  }
  if (a.level > 0)
    std::erase_if(sols, [&](const Solution& s) { return s.problem->level != a.level; });
  if (a.limit > 0 && sols.size() > static_cast<std::size_t>(a.limit))
    sols.resize(static_cast<std::size_t>(a.limit));
  if (sols.empty())
    throw InputError(a.self ? a.dir : a.solutions, 0, "",
                     "no solution to judge (after --level, --problem and --limit)");
  return sols;
}

}  // namespace

std::filesystem::path hf_cache(const std::string& given, std::string* why) {
  std::string dir = given;
  if (dir.empty())
    if (const char* e = std::getenv("HF_HOME"); e && *e) dir = e;
  std::error_code ec;
  if (dir.empty()) {
    if (why)
      *why =
          "level 4 builds Hugging Face models with from_pretrained, which needs a local model "
          "cache: set HF_HOME (or --hf-home) to one (it runs in offline mode; no hub is "
          "reached)";
    return {};
  }
  if (!fs::is_directory(dir, ec)) {
    if (why)
      *why = "level 4 needs a local Hugging Face cache, and HF_HOME=" + dir + " is no folder";
    return {};
  }
  return fs::absolute(dir);
}

std::uint64_t trial_seed(std::uint64_t run_seed, const std::string& problem_key, int i) {
  const std::string h =
      sha256_hex(fmt::format("{:016x}/kjudge-kernelbench/{}/trial/{}", run_seed, problem_key, i));
  return std::strtoull(h.substr(0, 15).c_str(), nullptr, 16);
}

EvalDone run_eval(const EvalOptions& a, const EvalSandbox& sandbox, const Note& note,
                  EvalStop* stop) {
  const Dataset dataset = load_kernelbench(a.dir, a.level);
  const std::vector<Solution> sols = select(a, dataset);
  StreamJobs jobs;
  jobs.label = a.self ? "self" : absolute_label(a.solutions);
  for (const Solution& s : sols) {
    jobs.keys.insert(s.key());
    jobs.needs_hf = jobs.needs_hf || s.problem->needs_hf();
  }
  jobs.fingerprint = solutions_fingerprint(sols);
  EvalStream stream(a, sandbox, dataset, std::move(jobs), note);
  if (!stream.open(stop)) {
    EvalDone done;
    done.run_dir = stream.run_dir();
    done.results = done.run_dir / "results.jsonl";
    return done;
  }
  for (const Solution& s : sols)
    if (!stream.judged(s.key())) stream.add(s);
  return stream.finish();
}

}  // namespace kjudge::kernelbench
