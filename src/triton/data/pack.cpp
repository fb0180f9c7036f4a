// What a TritonBench folder and a Triton solutions pack look like on disk.
// Declared, and explained, in triton/data/pack.h.
#include "triton/data/pack.h"

#include <fstream>
#include <nlohmann/json.hpp>

#include "core/input_error.h"

namespace kjudge::triton {
namespace fs = std::filesystem;

namespace {

constexpr const char* kPackFile = "triton-solutions.jsonl";

bool is_gzip(const fs::path& path) {
  std::ifstream in(path, std::ios::binary);
  unsigned char magic[2] = {0, 0};
  in.read(reinterpret_cast<char*>(magic), 2);
  return in.gcount() == 2 && magic[0] == 0x1f && magic[1] == 0x8b;
}

// The first non-blank line of a text file, at most 16 MiB in (a solution's code can be long).
std::string first_record(const fs::path& path) {
  std::ifstream in(path, std::ios::binary);
  std::string line;
  std::size_t read = 0;
  while (read < (16u << 20) && std::getline(in, line)) {
    read += line.size() + 1;
    if (line.find_first_not_of(" \t\r") != std::string::npos) return line;
  }
  return "";
}

}  // namespace

bool is_tritonbench_folder(const fs::path& path) {
  std::error_code ec;
  return fs::is_directory(path, ec) &&
         fs::is_regular_file(path / "TritonBench_operator_files.jsonl", ec);
}

bool is_triton_solutions(const fs::path& path) {
  std::error_code ec;
  if (fs::is_directory(path, ec)) return fs::is_regular_file(path / kPackFile, ec);
  if (!fs::is_regular_file(path, ec) || is_gzip(path)) return false;
  if (path.filename().string().ends_with(kPackFile)) return true;
  const auto j = nlohmann::json::parse(first_record(path), nullptr, false);
  return j.is_object() && j.contains("code") && (j.contains("operator") || j.contains("file")) &&
         !j.contains("task_id");
}

fs::path triton_solutions_file(const fs::path& path) {
  std::error_code ec;
  if (!fs::exists(path, ec)) throw InputError(path.string(), 0, "--solutions", "does not exist");
  if (fs::is_directory(path, ec)) {
    if (!fs::is_regular_file(path / kPackFile, ec))
      throw InputError(path.string(), 0, "--solutions",
                       std::string("a folder without ") + kPackFile +
                           " (what kjudge generate --tritonbench writes)");
    return path / kPackFile;
  }
  // Before is_gzip opens it: opening a FIFO would block.
  if (!fs::is_regular_file(path, ec))
    throw InputError(path.string(), 0, "--solutions", "not a regular file (a FIFO or device)");
  if (is_gzip(path))
    throw InputError(path.string(), 0, "--solutions",
                     "a .tar.gz is a ComputeEval solutions pack; a TritonBench folder is judged "
                     "against Triton solutions: a JSON lines file ({operator|file, code}) or the "
                     "folder kjudge generate --tritonbench wrote");
  return path;
}

bool is_triton_evaluation(const std::string& problems, const std::string& solutions) {
  if (is_tritonbench_folder(problems)) return true;
  if (!solutions.empty() && is_triton_solutions(solutions))
    throw InputError(solutions, 0, "--solutions",
                     "a Triton solutions pack: --problems must be the TritonBench data folder "
                     "it answers (TritonBench_operator_files.jsonl), not " +
                         problems);
  return false;
}

}  // namespace kjudge::triton
