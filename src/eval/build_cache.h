#pragma once
// A content-addressed cache of whole builds, in the spirit of ccache but at the level of one
// build command. The key covers every input the build can read from the workspace (all files
// present before it runs), the command, the compiler's version line and the target GPU
// architecture; the entry holds the build's exit code, its log and the files it created or
// changed. Storage is a plain directory tree; entries are published by rename, so concurrent
// writers (threads, processes, nodes on shared storage) never expose a torn entry.
#include <filesystem>
#include <optional>
#include <string>
#include <vector>

namespace kjudge {

struct CachedBuild {
  int exit_code = 0;
  std::string log;
  bool log_truncated = false;
  std::size_t log_bytes = 0;
  double seconds = 0;  // how long the original build took
};

// Snapshot of a workspace: relative path -> sha256 of content, sorted.
using FileHashes = std::vector<std::pair<std::string, std::string>>;
FileHashes hash_tree(const std::filesystem::path& dir);

class BuildCache {
 public:
  explicit BuildCache(std::filesystem::path root) : root_(std::move(root)) {}

  // `environment` is everything outside the workspace that decides the output: compiler
  // version, GPU architecture, relevant environment variables.
  static std::string key(const std::string& command, const std::string& environment,
                         const FileHashes& inputs);

  // Restores the entry's files into `workspace` and returns its record; nullopt on a miss (or
  // an unreadable entry, which is then treated as a miss).
  std::optional<CachedBuild> restore(const std::string& key,
                                     const std::filesystem::path& workspace) const;

  // Stores the files of `workspace` that are new or changed relative to `before`. Failures are
  // swallowed: a cache that cannot write only costs speed.
  void store(const std::string& key, const std::filesystem::path& workspace,
             const FileHashes& before, const CachedBuild& record) const;

  const std::filesystem::path& root() const { return root_; }

 private:
  std::filesystem::path entry_dir(const std::string& key) const;
  std::filesystem::path root_;
};

std::filesystem::path default_cache_dir();

}  // namespace kjudge
