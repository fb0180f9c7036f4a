#pragma once
// The one way kjudge replaces a file a reader may be looking at (run.json, summary.json, a
// journal's side files, the cost model, packs): the new text goes to a temporary file beside the
// target, named for this host, process and call (shards on several nodes may save one shared
// file), is flushed to disk, and is renamed over the target, so a reader, a kill or a crash
// sees the old file or the new one, never half of either. Descriptors are close-on-exec: the
// judge forks test programs from many threads (run/cloexec_file.h says why that matters).
#include <filesystem>
#include <nlohmann/json_fwd.hpp>
#include <string_view>

namespace kjudge {

// A file being replaced: write to temp() (or with write()), then commit(). Destroyed without
// commit(), it removes its temporary file and leaves the target as it was.
class AtomicFile {
 public:
  explicit AtomicFile(std::filesystem::path target);
  ~AtomicFile();
  AtomicFile(const AtomicFile&) = delete;
  AtomicFile& operator=(const AtomicFile&) = delete;

  // Where to write, for writers that open the file themselves (libarchive).
  const std::filesystem::path& temp() const { return temp_; }
  // Writes `text` as the whole new content; throws std::runtime_error naming the target.
  void write(std::string_view text);
  // Flushes the temporary file and renames it over the target; throws std::runtime_error naming
  // the target.
  void commit();

 private:
  std::filesystem::path target_;
  std::filesystem::path temp_;
  bool committed_ = false;
};

// The whole of `text` as `path`'s new content, atomically.
void write_file_atomically(const std::filesystem::path& path, std::string_view text);
// `j` as indented JSON and a newline (invalid UTF-8 replaced), atomically.
void write_json_atomically(const std::filesystem::path& path, const nlohmann::json& j);
void write_json_atomically(const std::filesystem::path& path, const nlohmann::ordered_json& j);

}  // namespace kjudge
