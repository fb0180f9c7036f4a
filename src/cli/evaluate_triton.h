#pragma once
// `kjudge evaluate --problems TRITONBENCH_DIR --solutions TRITON_PACK`: the Triton judge behind
// the command that judges every other kind of solutions, with the same code as
// `kjudge triton eval DIR --solutions FILE` (docs/triton.md, "kjudge evaluate on a Triton
// solutions pack"). The evaluate command's own dispatch (cmd_run.cpp) asks is_triton_evaluation
// first and hands over its parsed options.
#include <CLI/CLI.hpp>
#include <filesystem>
#include <string>

namespace kjudge {

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

// Runs the Triton judge with the options given to `kjudge evaluate` (`cmd`, parsed). Options
// that have no meaning for Triton operators (pass@k, the build cache, Slurm, …) are refused by
// name rather than ignored. Returns the exit code.
int evaluate_triton_pack(const CLI::App& cmd);

}  // namespace kjudge
