#include "eval/build_cache.h"

#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <cstdlib>
#include <fstream>
#include <map>
#include <nlohmann/json.hpp>
#include <sstream>

#include "core/random_secret.h"
#include "core/sha256.h"
#include "run/cloexec_file.h"

namespace kjudge {
namespace fs = std::filesystem;

namespace {

std::string read_all(const fs::path& p) {
  std::ifstream in(p, std::ios::binary);
  std::ostringstream ss;
  ss << in.rdbuf();
  if (!in && !in.eof()) throw std::runtime_error("cannot read " + p.string());
  return ss.str();
}

// Names a writer's temp entry. On a cache shared by several nodes pids repeat, so the host
// name is part of it too (and a random number, for containers sharing one host name).
std::string unique_suffix() {
  static std::atomic<unsigned> counter{0};
  char host[256] = "";
  gethostname(host, sizeof host - 1);
  return std::string(host) + "-" + std::to_string(getpid()) + "-" + std::to_string(counter++) +
         "-" + std::to_string(random_u32());
}

}  // namespace

FileHashes hash_tree(const fs::path& dir) {
  FileHashes out;
  for (auto it = fs::recursive_directory_iterator(dir); it != fs::recursive_directory_iterator();
       ++it) {
    if (it->is_symlink()) {
      // A link's target is what a build would read; hash the link text so a changed target
      // changes the key without following it outside the workspace.
      out.emplace_back(fs::relative(it->path(), dir).string(),
                       "link:" + fs::read_symlink(it->path()).string());
      continue;
    }
    if (!it->is_regular_file()) continue;
    Sha256 h;
    h.update(read_all(it->path()));
    out.emplace_back(fs::relative(it->path(), dir).string(), h.hex());
  }
  std::sort(out.begin(), out.end());
  return out;
}

std::string BuildCache::key(const std::string& command, const std::string& environment,
                            const FileHashes& inputs) {
  Sha256 h;
  // Length-prefixed fields: no two different inputs can serialise to the same bytes.
  auto field = [&h](const std::string& s) {
    h.update(std::to_string(s.size()) + ":");
    h.update(s);
  };
  field("kjudge-build-cache-v1");
  field(command);
  field(environment);
  for (const auto& [path, hash] : inputs) {
    field(path);
    field(hash);
  }
  return h.hex();
}

fs::path BuildCache::entry_dir(const std::string& key) const {
  return root_ / key.substr(0, 2) / key;
}

std::optional<CachedBuild> BuildCache::restore(const std::string& key,
                                               const fs::path& workspace) const {
  fs::path dir = entry_dir(key);
  std::error_code ec;
  if (!fs::exists(dir / "entry.json", ec)) return std::nullopt;
  try {
    auto j = nlohmann::json::parse(read_all(dir / "entry.json"));
    CachedBuild rec;
    rec.exit_code = j.at("exit_code").get<int>();
    rec.log = j.at("log").get<std::string>();
    rec.log_truncated = j.value("log_truncated", false);
    rec.log_bytes = j.value("log_bytes", rec.log.size());
    rec.seconds = j.value("seconds", 0.0);
    for (const auto& f : j.at("files")) {
      std::string rel = f.at("path").get<std::string>();
      fs::path src = dir / "files" / rel;
      fs::path dst = workspace / rel;
      fs::create_directories(dst.parent_path());
      copy_file_cloexec(src, dst);
      fs::permissions(dst, static_cast<fs::perms>(f.value("mode", 0644)));
    }
    return rec;
  } catch (const std::exception&) {
    return std::nullopt;
  }
}

void BuildCache::store(const std::string& key, const fs::path& workspace, const FileHashes& before,
                       const CachedBuild& record) const {
  try {
    fs::path final_dir = entry_dir(key);
    if (fs::exists(final_dir)) return;
    std::map<std::string, std::string> old(before.begin(), before.end());
    fs::path tmp = root_ / "tmp" / (key + "." + unique_suffix());
    fs::create_directories(tmp / "files");
    nlohmann::json files = nlohmann::json::array();
    for (const auto& [rel, hash] : hash_tree(workspace)) {
      auto it = old.find(rel);
      if (it != old.end() && it->second == hash) continue;
      if (hash.rfind("link:", 0) == 0) continue;
      fs::path dst = tmp / "files" / rel;
      fs::create_directories(dst.parent_path());
      copy_file_cloexec(workspace / rel, dst);
      auto mode = static_cast<int>(fs::status(workspace / rel).permissions() & fs::perms::mask);
      files.push_back({{"path", rel}, {"mode", mode}});
    }
    nlohmann::json j = {{"exit_code", record.exit_code},
                        {"log", record.log},
                        {"log_truncated", record.log_truncated},
                        {"log_bytes", record.log_bytes},
                        {"seconds", record.seconds},
                        {"files", files}};
    {
      std::ofstream out(tmp / "entry.json", std::ios::binary);
      out << j.dump(-1, ' ', false, nlohmann::json::error_handler_t::replace);
      if (!out) throw std::runtime_error("write failed");
    }
    fs::create_directories(final_dir.parent_path());
    std::error_code ec;
    fs::rename(tmp, final_dir, ec);  // fails harmlessly if another writer won the race
    if (ec) fs::remove_all(tmp, ec);
  } catch (const std::exception&) {
    // Swallowed on purpose: see the header.
  }
}

fs::path default_cache_dir() {
  if (const char* x = std::getenv("KJUDGE_CACHE_DIR"); x && *x) return fs::path(x);
  if (const char* x = std::getenv("XDG_CACHE_HOME"); x && *x) return fs::path(x) / "kjudge";
  if (const char* h = std::getenv("HOME"); h && *h) return fs::path(h) / ".cache" / "kjudge";
  return fs::temp_directory_path() / "kjudge-cache";
}

}  // namespace kjudge
