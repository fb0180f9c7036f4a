#pragma once
// Reading a file the user named (a pack member, a task file, a submission): the whole content,
// or an InputError naming the file.
#include <filesystem>
#include <string>

namespace kjudge {

std::string read_input_file(const std::filesystem::path& path);

}  // namespace kjudge
