#pragma once
// Writing files in a judge that forks from many threads. A descriptor open for writing that a
// forked child inherits keeps the file "busy": executing it then fails with ETXTBSY ("Text
// file busy") until every such child has exec'd or exited, and a sandboxed test lives long.
// std::ofstream and std::filesystem::copy_file do not open with O_CLOEXEC, so a test binary
// restored from the build cache on one thread could not be run on another. These do.
#include <filesystem>
#include <string>

namespace kjudge {

// Writes `data` to `path` (created or truncated, `mode` when created); throws
// std::runtime_error naming the file.
void write_file_cloexec(const std::filesystem::path& path, const std::string& data,
                        unsigned mode = 0644);

// Appends `line` (which should end in "\n") with O_APPEND in one write where the kernel allows:
// journals written this way lose at most a torn last line to a kill, which their readers skip.
// Throws std::runtime_error naming the file.
void append_line_cloexec(const std::filesystem::path& path, const std::string& line);

// Copies `from` to `to` (replacing it); throws std::runtime_error naming the file.
void copy_file_cloexec(const std::filesystem::path& from, const std::filesystem::path& to);

}  // namespace kjudge
