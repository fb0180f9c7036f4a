#pragma once
// One way to put a word into a shell command (the Slurm batch script, a task's build script,
// the environment check's probes): left as it is when it holds only [A-Za-z0-9_./=:,+@%-],
// single-quoted otherwise.
#include <string>
#include <string_view>

namespace kjudge {

std::string shell_quote(std::string_view s);

}  // namespace kjudge
