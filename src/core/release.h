#pragma once
// ComputeEval names its data by release (`--release 2026-1`; data/releases/2026-1-problems.tar.gz
// in its repository); kjudge resolves the same names from a datasets folder, so a user coming
// from ComputeEval types what they typed there.
#include <filesystem>
#include <string>
#include <vector>

namespace kjudge {

// The folders a release is looked for in: `given` when not empty, else $KJUDGE_DATASETS, else
// ~/.local/share/kjudge/datasets and /opt/kjudge/datasets; each also with a compute-eval/
// subfolder (the layout of a datasets folder holding several benchmarks).
std::vector<std::filesystem::path> release_folders(const std::string& given);

// The problems pack of `release` ("2026-1"): <folder>/<release>-problems.tar.gz in the first
// folder that has it. Throws InputError naming `option`, the release and every place looked in
// (with the releases found there) when none has it, or when the name is no release name.
std::filesystem::path resolve_release(const std::string& release, const std::string& given,
                                      const std::string& option = "--release");

}  // namespace kjudge
