#pragma once
// A static pass over a solution's sources: constructs that cheat a timed judge more often than
// they serve a kernel (streams, threads and timers outside the harness, dlsym and preload
// tricks, reads of /proc and the judge's environment, seeded generators, persisting L2, forged
// result records, library calls a task forbids). It *flags*, it never fails: every flag carries
// a code, the file and line, and a reason, and goes into the run's records for a person (or a
// leaderboard's review step) to judge. docs/cheats.md lists the rules and why each one is shaped
// the way it is; tests/cheats/ is the corpus it must catch.
//
// Comments never flag. String literals flag only where a string is the attack itself (a /proc
// path, an environment variable's name, a result-channel marker, a timed range's name).
#include <nlohmann/json.hpp>
#include <set>
#include <string>
#include <vector>

#include "core/problem.h"
#include "core/task_spec.h"

namespace kjudge {

struct StaticFlag {
  std::string code;  // the rule, e.g. "stream_creation"
  std::string file;  // the solution file, as the solution names it
  int line = 0;      // 1-based
  std::string reason;
};

// Which timed path the solution runs under: the rules' weight depends on who owns the streams
// and the clock.
enum class TimedPath {
  computeeval,  // the problem's own test program, timed by kjudge's CUPTI profiler (all streams)
  task,         // kjudge's task harness: CUDA events on the default stream around custom_kernel
  triton,       // a Python/Triton operator timed by its harness
};

struct StaticContext {
  TimedPath path = TimedPath::computeeval;
  // task.yml `forbidden`: names a solution may not call (docs/tasks.md says how they match).
  std::vector<std::string> forbidden;
  // The problem's own words (prompt, context files, task description). An API the problem names
  // is one it asked for: rules marked so in static_flags.cpp do not flag it.
  std::string problem_text;
  // Seeds the public tests use (decimal), so a seeding call with one of them says so.
  std::set<std::string> public_seeds;
  // Names of the NVTX ranges the judge times by (ComputeEval timing_mode include, the harness's
  // "custom_kernel"): a solution that names one can move the timed region.
  std::vector<std::string> timed_ranges;
};

// Every flag of every source file (C, C++, CUDA by extension; .py as Python; other files are
// not read), in file order, then line order. One flag per (code, file, line).
std::vector<StaticFlag> static_flags(const std::vector<SourceFile>& files,
                                     const StaticContext& ctx);

// The context of a ComputeEval problem: its prompt and context files, the seeds its test files
// use, its timed NVTX ranges.
StaticContext computeeval_context(const Problem& problem);
// The context of a kernel task: task.yml's forbidden list, description and public seeds.
StaticContext task_context(const TaskSpec& task);
// The seeds the public tests' generators use in `text` (literal arguments of the seeding calls),
// added to `seeds`. For a family's own context (triton/judge/eval.h: triton_context).
void collect_seeds(const std::string& text, std::set<std::string>& seeds);

// {check, detail, file, line, source: "static"}: the object form of `cheat_flags` in
// results.jsonl and the task stages (docs/json-schemas.md).
nlohmann::json to_json(const StaticFlag& flag);
nlohmann::json flags_json(const std::vector<StaticFlag>& flags);

// For tests and the rules: the source with comments removed and the contents of string and
// character literals blanked (quotes, newlines and so line numbers kept; a Python f-string's
// replacement fields are code, and stay), and the literals themselves with their lines.
struct StringLiteral {
  int line = 0;
  std::string text;
};
struct StrippedSource {
  std::string code;
  std::vector<StringLiteral> literals;
};
StrippedSource strip_c_like(const std::string& text);
StrippedSource strip_python(const std::string& text);

}  // namespace kjudge
