#pragma once
// A task's files staged into a fresh workspace as GPU MODE's runner lays them out: every entry
// of task.yml's `files:` under its `name`, its text from `source` (relative to task.yml, so
// `../eval.py` is the competition's shared harness), the submission's text under the name of
// the entry whose source is `@SUBMISSION@`. The Python harnesses and the task's own eval.cu run
// from such a workspace; kjudge's CUDA harness adds its own files (task/build.h).
#include <filesystem>
#include <set>
#include <string>

#include "core/task_spec.h"

namespace kjudge::task {

// Writes the files into `dir` (created). Throws InputError naming task.yml when an entry's name
// is one of `reserved` (files the judge puts there itself) or starts with "cases-" (where the
// judge writes the cases a mode runs).
void stage_task_files(const TaskSpec& task, const std::string& submission_text,
                      const std::filesystem::path& dir, const std::set<std::string>& reserved = {});

}  // namespace kjudge::task
