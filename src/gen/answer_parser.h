#pragma once
// Turns a model's answer into solution files. Models do not follow the output format exactly:
// they add prose, language tags, `~~~` fences, reasoning, unnamed blocks, or stop mid-block at
// max_tokens. What can be read safely is taken, with a warning for each liberty; paths that
// would leave the workspace are never taken.
#include <string>
#include <vector>

#include "core/problem.h"

namespace kjudge {

struct ParsedAnswer {
  // In answer order; a later block for the same path replaces the earlier one in place.
  std::vector<SourceFile> files;
  std::vector<std::string> warnings;  // what was tolerated, one line each
  // Non-empty when no usable file came out: the answer then counts as a failed sample, for this
  // reason.
  std::string error;
};

// Fenced blocks (``` or ~~~) whose path is named by the first line (`// file: x.cu`, `# x.py`,
// `/* file: x */`, `; file: x`) or the info string (```cuda file=x.cu, ```cuda x.cu). A leading
// <think>…</think> is dropped first. `expected_path` (expected_solution_path()) names a single
// block that names no file, or an answer that is bare code without fences.
ParsedAnswer parse_answer(const std::string& text, const std::string& expected_path);

}  // namespace kjudge
