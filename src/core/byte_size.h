#pragma once
// Sizes as people write them in flags and config files: "8G", "512 MiB", "3.5GiB", "1048576".
#include <cstdint>
#include <optional>
#include <string>

namespace kjudge {

// Suffixes K/KB/KiB, M/MB/MiB, G/GB/GiB, T/TB/TiB (all binary: a memory limit in "GB" means
// what `free -g` shows), case-insensitive, optional space; none means bytes. nullopt for
// anything else, negative or overflowing.
std::optional<std::uint64_t> parse_byte_size(const std::string& text);

// "8 GiB", "1.5 MiB", "512 B": the largest unit that keeps the number at least 1.
std::string format_byte_size(std::uint64_t bytes);

}  // namespace kjudge
