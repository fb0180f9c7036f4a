#pragma once
// Telling a Triton run from a ComputeEval one by its inputs: a TritonBench data folder, and a
// Triton solutions pack (what `kjudge generate --tritonbench` writes). `kjudge evaluate` judges
// both kinds, and asks these first (cli/evaluate_triton.h, docs/triton.md, "kjudge evaluate on
// a Triton solutions pack").
#include <filesystem>
#include <string>

namespace kjudge::triton {

// A TritonBench data folder: a directory holding TritonBench_operator_files.jsonl.
bool is_tritonbench_folder(const std::filesystem::path& path);

// Whether a solutions path is a Triton solutions pack: a folder holding triton-solutions.jsonl
// (what `kjudge generate --tritonbench` writes), a file of that name, or a JSON lines file whose
// first record has "code" and "operator" or "file" and no "task_id".
bool is_triton_solutions(const std::filesystem::path& path);

// The JSON lines file of a Triton solutions pack. Throws InputError naming --solutions for a
// path that does not exist, a folder without triton-solutions.jsonl, or a .tar.gz (a ComputeEval
// solutions pack, which holds no Triton candidates).
std::filesystem::path triton_solutions_file(const std::filesystem::path& path);

// True when --problems is a TritonBench folder. Throws InputError when only one side is
// Triton's (a Triton pack against a ComputeEval pack): judging one with the other cannot work.
bool is_triton_evaluation(const std::string& problems, const std::string& solutions);

}  // namespace kjudge::triton
