// The SQLite database holds password hashes and session tokens: it and its -wal/-shm files
// are created readable by their owner only, whatever the umask.
#include <gtest/gtest.h>
#include <sys/stat.h>

#include <filesystem>

#include "board/db.h"
#include "board/store.h"
#include "test_util.h"

namespace kjudge::board {
namespace {

namespace fs = std::filesystem;
using kjudge::testing::TempDir;

mode_t mode_of(const fs::path& p) {
  struct stat st {};
  EXPECT_EQ(stat(p.c_str(), &st), 0) << p;
  return st.st_mode & 07777;
}

TEST(SqliteDb, TheDatabaseAndItsWalFilesAreOwnerOnly) {
  TempDir dir;
  const fs::path db = dir / "board.db";
  // The usual umask: without the fix, SQLite creates these 0644.
  const mode_t old = umask(022);
  {
    Store store(open_db("sqlite:" + db.string()));  // migrations write, so WAL files exist
    EXPECT_GT(store.schema_version(), 0);
    for (const char* suffix : {"", "-wal", "-shm"}) {
      const fs::path f = db.string() + suffix;
      ASSERT_TRUE(fs::exists(f)) << f;
      EXPECT_EQ(mode_of(f), 0600u) << f;
    }
  }
  umask(old);
  EXPECT_EQ(mode_of(db), 0600u);
}

TEST(SqliteDb, AnExistingDatabaseKeepsItsMode) {
  TempDir dir;
  const fs::path db = dir / "board.db";
  { Store store(open_db("sqlite:" + db.string())); }
  ASSERT_EQ(chmod(db.c_str(), 0640), 0);
  { Store store(open_db("sqlite:" + db.string())); }
  EXPECT_EQ(mode_of(db), 0640u) << "its owner chose that mode";
}

}  // namespace
}  // namespace kjudge::board
