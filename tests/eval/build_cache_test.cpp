#include "eval/build_cache.h"

#include <gtest/gtest.h>
#include <sys/stat.h>

#include <thread>

#include "test_util.h"

namespace kjudge {
namespace {

TEST(BuildCache, KeyCoversCommandEnvironmentAndEveryFile) {
  testing::TempDir d;
  testing::write_text(d / "ws/solution.cu", "a");
  testing::write_text(d / "ws/test/t.cu", "b");
  auto h = hash_tree(d / "ws");
  ASSERT_EQ(h.size(), 2u);
  std::string k = BuildCache::key("nvcc x", "env", h);
  EXPECT_EQ(k, BuildCache::key("nvcc x", "env", hash_tree(d / "ws")));
  EXPECT_NE(k, BuildCache::key("nvcc y", "env", h));
  EXPECT_NE(k, BuildCache::key("nvcc x", "env2", h));
  testing::write_text(d / "ws/test/t.cu", "c");
  EXPECT_NE(k, BuildCache::key("nvcc x", "env", hash_tree(d / "ws")));
  // A renamed file with the same content is a different input.
  std::filesystem::rename(d / "ws/test/t.cu", d / "ws/test/u.cu");
  testing::write_text(d / "ws/test/t.cu", "b");
  std::filesystem::remove(d / "ws/test/u.cu");
  EXPECT_EQ(k, BuildCache::key("nvcc x", "env", hash_tree(d / "ws")));
}

TEST(BuildCache, StoresOutputsAndRestoresThemWithTheirMode) {
  testing::TempDir d;
  BuildCache cache(d / "cache");
  testing::write_text(d / "ws1/solution.cu", "src");
  auto before = hash_tree(d / "ws1");
  std::string key = BuildCache::key("build", "env", before);
  EXPECT_FALSE(cache.restore(key, d / "ws1"));
  testing::write_text(d / "ws1/test.out", "binary");
  chmod((d / "ws1/test.out").c_str(), 0755);
  cache.store(key, d / "ws1", before, {0, "compiled", false, 8, 1.5});

  testing::write_text(d / "ws2/solution.cu", "src");
  auto hit = cache.restore(key, d / "ws2");
  ASSERT_TRUE(hit);
  EXPECT_EQ(hit->exit_code, 0);
  EXPECT_EQ(hit->log, "compiled");
  EXPECT_DOUBLE_EQ(hit->seconds, 1.5);
  EXPECT_EQ(testing::read_text(d / "ws2/test.out"), "binary");
  struct stat st {};
  ASSERT_EQ(stat((d / "ws2/test.out").c_str(), &st), 0);
  EXPECT_TRUE(st.st_mode & S_IXUSR);
  // The unchanged input was not stored as an output.
  EXPECT_FALSE(std::filesystem::exists(d / "cache" / key.substr(0, 2) / key / "files/solution.cu"));
}

TEST(BuildCache, ConcurrentWritersLeaveOneCompleteEntry) {
  testing::TempDir d;
  BuildCache cache(d / "cache");
  testing::write_text(d / "ws/solution.cu", "src");
  auto before = hash_tree(d / "ws");
  testing::write_text(d / "ws/test.out", std::string(1 << 20, 'x'));
  std::string key = BuildCache::key("build", "env", before);
  std::vector<std::thread> ts;
  for (int i = 0; i < 8; ++i)
    ts.emplace_back([&] { cache.store(key, d / "ws", before, {0, "log", false, 3, 1}); });
  for (auto& t : ts) t.join();
  testing::write_text(d / "ws2/solution.cu", "src");
  auto hit = cache.restore(key, d / "ws2");
  ASSERT_TRUE(hit);
  EXPECT_EQ(std::filesystem::file_size(d / "ws2/test.out"), 1u << 20);
  EXPECT_TRUE(std::filesystem::is_empty(d / "cache/tmp")) << "no torn temporaries left";
}

TEST(BuildCache, DamagedEntryIsAMiss) {
  testing::TempDir d;
  BuildCache cache(d / "cache");
  std::string key(64, 'a');
  testing::write_text(d / "cache/aa" / key / "entry.json", "{not json");
  EXPECT_FALSE(cache.restore(key, d.path()));
}

}  // namespace
}  // namespace kjudge
