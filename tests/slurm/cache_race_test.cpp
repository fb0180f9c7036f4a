// The build cache shared by the nodes of a Slurm run: several processes storing the same keys
// at once, while another restores them, must never expose a torn entry (a record of one writer
// with files of another, or a file cut short) nor leave temp entries behind.
#include <gtest/gtest.h>
#include <sys/wait.h>
#include <unistd.h>

#include <filesystem>
#include <string>

#include "eval/build_cache.h"
#include "test_util.h"

namespace kjudge {
namespace {

namespace fs = std::filesystem;

constexpr int kKeys = 40;
constexpr std::size_t kBytes = 256 * 1024;  // big enough that a copy takes several writes

std::string key_of(int i) { return BuildCache::key("nvcc " + std::to_string(i), "env", {}); }

// A child process storing every key with its own content: out.bin full of `fill`, log `fill`.
pid_t writer(const fs::path& root, const fs::path& scratch, char fill) {
  pid_t pid = fork();
  if (pid != 0) return pid;
  BuildCache cache(root);
  fs::path ws = scratch / std::string(1, fill);
  fs::create_directories(ws);
  testing::write_text(ws / "bin" / "out.bin", std::string(kBytes, fill));
  CachedBuild rec;
  rec.log = std::string(1, fill);
  for (int i = 0; i < kKeys; ++i) cache.store(key_of(i), ws, {}, rec);
  _exit(0);
}

// 0 when every restore it saw was whole and of one writer; 1 otherwise.
pid_t reader(const fs::path& root, const fs::path& scratch) {
  pid_t pid = fork();
  if (pid != 0) return pid;
  BuildCache cache(root);
  int bad = 0;
  for (int round = 0; round < 200; ++round)
    for (int i = 0; i < kKeys; ++i) {
      fs::path ws = scratch / ("r" + std::to_string(round % 4));
      fs::remove_all(ws);
      fs::create_directories(ws);
      auto rec = cache.restore(key_of(i), ws);
      if (!rec) continue;  // not stored yet: a miss is fine, a torn hit is not
      std::string got = testing::read_text(ws / "bin" / "out.bin");
      if (rec->log.size() != 1 || got != std::string(kBytes, rec->log[0])) ++bad;
    }
  _exit(bad ? 1 : 0);
}

TEST(SharedBuildCache, RacingWritersNeverExposeATornEntry) {
  testing::TempDir d;
  const fs::path root = d / "cache";
  pid_t pids[] = {writer(root, d / "w", 'A'), writer(root, d / "w", 'B'), reader(root, d / "r")};
  for (pid_t p : pids) {
    int status = 0;
    ASSERT_EQ(waitpid(p, &status, 0), p);
    EXPECT_TRUE(WIFEXITED(status) && WEXITSTATUS(status) == 0) << "child " << p << " " << status;
  }
  // Every key ends up with exactly one writer's whole entry.
  BuildCache cache(root);
  for (int i = 0; i < kKeys; ++i) {
    fs::path ws = d / ("final" + std::to_string(i));
    fs::create_directories(ws);
    auto rec = cache.restore(key_of(i), ws);
    ASSERT_TRUE(rec) << i;
    ASSERT_EQ(rec->log.size(), 1u);
    EXPECT_EQ(testing::read_text(ws / "bin" / "out.bin"), std::string(kBytes, rec->log[0])) << i;
  }
  // The loser of each race removed its temp entry.
  std::size_t left = 0;
  if (fs::exists(root / "tmp"))
    for ([[maybe_unused]] const auto& e : fs::directory_iterator(root / "tmp")) ++left;
  EXPECT_EQ(left, 0u);
}

}  // namespace
}  // namespace kjudge
