// The one reader of user-named files: regular files only, bounded, links refused where asked.
// FIFOs and devices are real ones; each read runs in a bounded child, so a regression that
// blocks or reads forever fails instead of hanging the suite.
#include "core/read_file.h"

#include <gtest/gtest.h>
#include <sys/stat.h>

#include <filesystem>

#include "bounded_child.h"
#include "test_util.h"

namespace kjudge {
namespace {

namespace fs = std::filesystem;
using testing::BoundedResult;
using testing::run_bounded;
using testing::TempDir;

constexpr std::size_t kOneGiB = std::size_t{1} << 30;

BoundedResult read_bounded(const fs::path& p, std::uintmax_t max = kMaxInputFileBytes,
                           Links links = Links::follow) {
  return run_bounded([&] { read_input_file(p, max, links); }, kOneGiB, 10);
}

TEST(ReadInputFile, ReadsARegularFile) {
  TempDir tmp;
  testing::write_text(tmp / "a.txt", "hello\n");
  EXPECT_EQ(read_input_file(tmp / "a.txt"), "hello\n");
  fs::create_symlink(tmp / "a.txt", tmp / "link");
  EXPECT_EQ(read_input_file(tmp / "link"), "hello\n") << "a link the user named is followed";
}

TEST(ReadInputFile, AFifoIsRefusedNotWaitedOn) {
  TempDir tmp;
  ASSERT_EQ(mkfifo((tmp / "fifo").c_str(), 0600), 0);
  const BoundedResult r = read_bounded(tmp / "fifo");
  ASSERT_EQ(r.outcome, BoundedResult::Outcome::input_error) << r.message;
  EXPECT_NE(r.message.find((tmp / "fifo").string()), std::string::npos) << r.message;
  EXPECT_NE(r.message.find("not a regular file"), std::string::npos) << r.message;
}

TEST(ReadInputFile, ALinkToDevZeroIsRefusedNotReadForever) {
  TempDir tmp;
  fs::create_symlink("/dev/zero", tmp / "zero.json");
  const BoundedResult r = read_bounded(tmp / "zero.json");
  ASSERT_EQ(r.outcome, BoundedResult::Outcome::input_error) << r.message;
  EXPECT_NE(r.message.find("zero.json"), std::string::npos) << r.message;
  // Refused for what it is, not only stopped by the size cap.
  EXPECT_NE(r.message.find("not a regular file"), std::string::npos) << r.message;
}

TEST(ReadInputFile, AFileOverTheCapIsRefused) {
  TempDir tmp;
  testing::write_text(tmp / "big", std::string(4097, 'x'));
  auto e = testing::expect_input_error([&] { read_input_file(tmp / "big", 4096); });
  EXPECT_EQ(e.file(), (tmp / "big").string());
  EXPECT_NE(e.reason().find("4096"), std::string::npos) << e.reason();
  EXPECT_EQ(read_input_file(tmp / "big", 4097).size(), 4097u);
}

TEST(ReadInputFile, LinksAreRefusedWhereNoneIsExpected) {
  TempDir tmp;
  testing::write_text(tmp / "secret", "root:x\n");
  fs::create_symlink(tmp / "secret", tmp / "found.h");
  auto e = testing::expect_input_error(
      [&] { read_input_file(tmp / "found.h", kMaxInputFileBytes, Links::refuse); });
  EXPECT_EQ(e.file(), (tmp / "found.h").string());
  EXPECT_NE(e.reason().find("symbolic link"), std::string::npos) << e.reason();
}

TEST(ReadInputFile, ADirectoryIsRefused) {
  TempDir tmp;
  auto e = testing::expect_input_error([&] { read_input_file(tmp.path()); });
  EXPECT_NE(e.reason().find("not a regular file"), std::string::npos) << e.reason();
}

}  // namespace
}  // namespace kjudge
