#pragma once
// Candidates for `kjudge triton eval --solutions FILE.jsonl`: one JSON object per line,
//   {"operator": "add_example" | "file": "add_example.py", "channel": "G", "code": "...",
//    "sample": 0}
// (channel and sample optional; other keys ignored). docs/triton.md describes the format.
#include <filesystem>
#include <string>
#include <vector>

#include "triton/data/tritonbench.h"

namespace kjudge::triton {

struct TritonSolution {
  const TritonOperator* op = nullptr;
  std::string code;
  int sample = 0;      // given, or the count of earlier lines for the same operator
  std::string origin;  // "FILE:LINE", for reports
};

// Every error is an InputError naming the file, the line and the field: an operator the data
// folder does not have, a name both channels have without a channel to choose, code that is not
// a string, a sample given twice for one operator.
std::vector<TritonSolution> read_triton_solutions(const std::filesystem::path& file,
                                                  const TritonBench& bench);

}  // namespace kjudge::triton
