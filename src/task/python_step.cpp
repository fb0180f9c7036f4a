#include "task/python_step.h"

#include <algorithm>
#include <thread>

namespace kjudge::task {

void add_python_task_env(kjudge::StepExtras& extras, const std::string& python,
                         const std::filesystem::path& workspace) {
  // The interpreter's folder as named, not resolved: a venv's bin/python is a link to the
  // system's, and its ninja is in the venv's bin/.
  const std::filesystem::path bin = std::filesystem::path(python).parent_path();
  if (!bin.empty()) extras.path_dirs.push_back(bin);
  const unsigned cores = std::max(1u, std::thread::hardware_concurrency());
  extras.env.push_back("TORCH_EXTENSIONS_DIR=" + (workspace / ".torch_extensions").string());
  extras.env.push_back("MAX_JOBS=" + std::to_string(std::min(cores, 8u)));
}

}  // namespace kjudge::task
