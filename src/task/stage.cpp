#include "task/stage.h"

#include "core/input_error.h"
#include "core/read_file.h"
#include "run/cloexec_file.h"

namespace kjudge::task {

namespace fs = std::filesystem;

void stage_task_files(const TaskSpec& task, const std::string& submission_text, const fs::path& dir,
                      const std::set<std::string>& reserved) {
  fs::create_directories(dir);
  for (std::size_t i = 0; i < task.files.size(); ++i) {
    const TaskFile& f = task.files[i];
    if (reserved.count(f.name) || f.name.rfind("cases-", 0) == 0)
      throw InputError(task.yml.string(), 0, "files[" + std::to_string(i) + "].name",
                       "'" + f.name + "' is a name the judge writes itself; rename the file");
    fs::create_directories((dir / f.name).parent_path());
    write_file_cloexec(dir / f.name, f.submission ? submission_text : read_input_file(f.source));
  }
}

}  // namespace kjudge::task
