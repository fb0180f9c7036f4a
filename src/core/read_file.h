#pragma once
// Reading a file the user named (a pack member, a task file, a submission): the whole content,
// or an InputError naming the file. Only regular files are read, and only up to a size cap: a
// FIFO would block the judge forever and /dev/zero would fill its memory.
#include <cstdint>
#include <filesystem>
#include <string>

namespace kjudge {

// The cap when a caller names none: far above any real input (the largest datasets are a few
// MiB), far below what would hurt the machine.
inline constexpr std::uintmax_t kMaxInputFileBytes = std::uintmax_t{256} << 20;

enum class Links {
  follow,  // the user named the path: a link to a regular file is fine
  refuse,  // the path was found by walking a folder: a link may point anywhere (/etc/shadow)
};

std::string read_input_file(const std::filesystem::path& path,
                            std::uintmax_t max_bytes = kMaxInputFileBytes,
                            Links links = Links::follow);

}  // namespace kjudge
