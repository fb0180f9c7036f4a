#pragma once
// The judging half of a KernelBench run, fed while it runs: `kjudge kernelbench eval` adds every
// selected solution at once, `kjudge run --kernelbench` adds each model answer as it arrives,
// so the runs start while the model is still answering. Opening the stream does what a run
// needs before its first solution (--resume and its identity check, the interpreter, runner,
// profiler and bytecode cache, run.json, the journal); `workers` threads then judge what is
// added, one sandboxed runner process per solution (kernelbench/judge/eval.h has the rest), and
// finish() waits for them and writes summary.json.
#include <atomic>
#include <memory>
#include <set>
#include <string>

#include "kernelbench/judge/eval.h"

namespace kjudge::kernelbench {

// Which solutions a run is of, for its identity (run.json, --resume) and its journal.
struct StreamJobs {
  std::string label;           // identity's "solutions": a path, "self", "generated: MODEL"
  std::set<std::string> keys;  // every solution the run may be given ("L1/19#0")
  std::string fingerprint;     // what they are: their code, or the prompts they answer
  bool needs_hf = false;       // some are level 4's: transformers' bytecode is prepared too
};

class EvalStream {
 public:
  // `stop` (may be null): once set, queued solutions are left unjudged (Ctrl-C).
  EvalStream(const EvalOptions& a, const EvalSandbox& sandbox, const Dataset& dataset,
             StreamJobs jobs, Note note, const std::atomic<bool>* stop = nullptr);
  ~EvalStream();
  EvalStream(const EvalStream&) = delete;
  EvalStream& operator=(const EvalStream&) = delete;

  // Opens the run and starts the workers. Throws InputError for bad input (an earlier run's
  // results without --resume, another run's identity); false, with `why` set, where the run
  // cannot start (no interpreter, no runner): nothing was judged.
  bool open(EvalStop* why);

  // Judged by the run being resumed: not to be added again.
  bool judged(const std::string& key) const;
  // Queued for the next free worker. `s.problem` must live in the dataset given.
  void add(Solution s);
  // No more solutions: waits until every queued one is judged (or stop is set), then writes
  // summary.json. Call once, after open() returned true.
  EvalDone finish();

  const std::filesystem::path& run_dir() const;

 private:
  struct State;
  std::unique_ptr<State> st_;
};

}  // namespace kjudge::kernelbench
