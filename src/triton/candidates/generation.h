#pragma once
// The Triton side of `kjudge generate --tritonbench` (plan/generate.h runs the generation
// session): the task filter in the benchmark's own names, the one-shot examples given to each
// prompt, the fingerprint of a one-shot corpus that --resume checks, and the answers turned into
// Triton candidates and written as triton-solutions.jsonl. Plain inputs, no command-line types.
#include <filesystem>
#include <map>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <vector>

#include "core/problem.h"
#include "gen/generator.h"
#include "triton/candidates/llm_generated.h"
#include "triton/data/tritonbench.h"

namespace kjudge::triton {

// The operators asked for, by task id ("G/add_example.py").
using TritonTaskMap = std::map<std::string, const TritonOperator*>;

// `--task` accepts what `kjudge triton show` accepts (name or file) besides the task_id
// "G/add_example.py", so the filter speaks the benchmark's language: each as task ids. Throws
// InputError for a name that is no operator.
std::vector<std::string> resolve_triton_tasks(const std::vector<std::string>& tasks,
                                              const TritonBench& bench,
                                              std::optional<TritonChannel> channel);

// What identifies a one-shot corpus for --resume: "dir:PATH" for a folder, "file:SHA256" for a
// file, "" for none.
std::string triton_corpus_fingerprint(const std::string& path);

// Each problem's prompt rebuilt with its best example from `corpus` (never the operator
// itself), indexed in `db`; returns {task_id: the example's source, or null}. Chosen before any
// request, so a bad corpus costs no API call: throws InputError when it holds no example.
nlohmann::json add_oneshot_examples(std::vector<Problem>& problems, const TritonTaskMap& by_task,
                                    InstructionKind kind, const std::string& corpus,
                                    const std::string& db);

// The answers as candidates: the code of every answer to a problem asked, re-read from the raw
// text by the Triton rule (extract_triton_code), so generated and published (LLM_generated)
// answers are read alike; sorted by channel, file and sample.
struct TritonAnswers {
  std::vector<TritonCandidate> candidates;
  nlohmann::json unusable = nlohmann::json::array();  // {task_id, sample, reason}
  long in_tokens = 0, out_tokens = 0;
  int truncated = 0;  // answers cut at the token limit
};
TritonAnswers triton_answers(const std::vector<Problem>& problems, const TritonTaskMap& by_task,
                             InstructionKind kind, const std::vector<GenRecord>& records);

// triton-solutions.jsonl: one triton_solution_json line per candidate.
void write_triton_solutions(const std::filesystem::path& file,
                            const std::vector<TritonCandidate>& candidates);

}  // namespace kjudge::triton
