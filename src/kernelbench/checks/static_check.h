#pragma once
// The static pass over a KernelBench solution: the reward hacks KernelBench's users have met,
// read in the solution's source before it runs. It covers what KernelBench's own checker
// (kernel_static_checker.py) covers, read properly (Python's comments and strings told apart from
// its code, so a `try` in a CUDA string or a comment never counts, and `#include` in a CUDA source
// is not taken for a comment), and goes beyond it: reaching the judge's runner (frames, gc,
// sys.modules, descriptors), rebinding torch's own functions (which the reference runs too),
// overriding ATen kernels, tensor subclasses and dispatch modes, ModelNew inheriting the
// reference, branches on guessed shapes, and ModelNew calling the very operators the reference
// calls. What the pass cannot see is left to the run (kernelbench/judge/evidence.h: outputs that
// alias an input or an earlier output, work left running on another stream, threads, torch
// patched at run time, the kernels CUPTI saw).
//
// A finding is a `hack` (by default the solution is not counted correct: its answer could come
// from the fallback, the patch or the cache) or a `warning` (for a person to read; KernelBench's
// optional checks). docs/kernelbench.md lists every check.
#include <nlohmann/json.hpp>
#include <string>
#include <string_view>
#include <vector>

namespace kjudge::kernelbench {

enum class Severity { hack, warning };
std::string_view severity_name(Severity s);

struct Finding {
  std::string check;  // "try_except", "reference_op", ...
  Severity severity = Severity::warning;
  int line = 0;  // 1-based line of the solution; 0 when the finding is about the whole file
  std::string detail;
  std::string source = "static";  // "static", or "runtime" for the run's evidence
};

nlohmann::ordered_json finding_json(const Finding& f);
// A findings list from finding_json objects (results.jsonl read back); throws
// std::runtime_error naming the field.
std::vector<Finding> findings_from_json(const nlohmann::ordered_json& j);

// Every finding of `solution` (a ModelNew's source), one per check (its first line), in the
// order of the checks. `reference` is the problem's source: its operators are what
// `reference_op` looks for.
std::vector<Finding> static_findings(const std::string& solution, const std::string& reference);

// Whether the source defines ModelNew at all (a class or an assignment), read in its code.
bool defines_model_new(const std::string& solution);

// The torch operators a source calls by name (torch.matmul, F.relu, nn.Conv2d, x.matmul on a
// tensor method is not counted), without the ones that compute nothing (creation, shapes,
// containers): what reference_op compares. Exposed for tests.
std::vector<std::string> torch_operators(const std::string& source);

}  // namespace kjudge::kernelbench
