#pragma once
// CodeBLEU (TritonBench's similarity metric, G channel only: T has no Triton reference) through
// the `codebleu` PyPI package, run by python/codebleu_score.py. Where the package (or its
// tree-sitter grammar) cannot be used, the score is reported unavailable with the reason: a
// similarity number the judge did not compute with the package is never made up.
#include <filesystem>
#include <optional>
#include <string>
#include <vector>

#include "triton/candidates/llm_generated.h"
#include "triton/data/tritonbench.h"

namespace kjudge::triton {

struct CodeBleuPair {
  std::string reference;
  std::string hypothesis;
};

struct CodeBleuOptions {
  std::string python = "python3";  // looked up in PATH
  // python/codebleu_score.py; empty: default_codebleu_script()
  std::filesystem::path script;
  double timeout_s = 600;
  bool per_pair = false;  // also a score for each pair (one package call each)
};

struct CodeBleuResult {
  bool available = false;
  std::string reason;  // why not, when unavailable
  // Corpus-level over all pairs, as upstream reports one score per model file.
  double codebleu = 0;
  double ngram_match = 0;
  double weighted_ngram_match = 0;
  double syntax_match = 0;
  double dataflow_match = 0;
  std::vector<double> per_pair;  // with options.per_pair
  std::string package_version;
  std::size_t pairs = 0;
};

// Where the helper script is: $KJUDGE_PYTHON_DIR/codebleu_score.py, else beside the running
// binary (python/, ../python/, ../share/kjudge/python/). Empty when none exists.
std::filesystem::path default_codebleu_script();

// Scores the pairs (lang "python", upstream's weights 0.25 each). Unavailable, never a guess,
// when there are no pairs, python or the script is missing, the package does not import, or
// the helper fails or times out.
CodeBleuResult codebleu_score(const std::vector<CodeBleuPair>& pairs,
                              const CodeBleuOptions& options = {});

// The G candidates paired with their operators' reference code (the operator file's code
// before the separator, which is the statistics' `output`); T candidates and candidates of
// operators not in `bench` are left out.
std::vector<CodeBleuPair> codebleu_pairs(const std::vector<TritonCandidate>& candidates,
                                         const TritonBench& bench);

}  // namespace kjudge::triton
