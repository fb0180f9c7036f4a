#pragma once
// A folder of solution packs, as ComputeEval 2026.1 evaluates several models at once
// (`--solutions_datapack DIR`: every *-solutions.tar.gz in it), and the name ComputeEval gives a
// pack: its file name without "-solutions.tar.gz" (what its graded file is named after).
#include <filesystem>
#include <string>
#include <vector>

namespace kjudge {

struct SolutionPackRef {
  std::string name;  // "gpt-4.1" for gpt-4.1-solutions.tar.gz
  std::filesystem::path path;
};

// ComputeEval's name of a solutions source: NAME for NAME-solutions.tar.gz or
// NAME-solutions.jsonl; otherwise the file name without .tar.gz, .tgz or .jsonl, or a folder's own
// name. Never empty ("solutions" when nothing is left).
std::string solutions_pack_name(const std::filesystem::path& path);

// The packs of a folder: each regular file at its top level named NAME-solutions.tar.gz or
// NAME-solutions.jsonl (other entries are not looked at), sorted by name. Empty when `folder`
// is no folder or holds no such file (a tree of solution directories, say). Throws InputError
// naming the folder for two packs of one name, or a name that cannot name a run directory
// (empty, "." or "..").
std::vector<SolutionPackRef> list_solution_packs(const std::filesystem::path& folder);

}  // namespace kjudge
