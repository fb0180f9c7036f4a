#include "core/byte_size.h"

#include <gtest/gtest.h>

namespace kjudge {
namespace {

TEST(ByteSize, ParsesWhatPeopleWrite) {
  EXPECT_EQ(parse_byte_size("1048576"), 1048576u);
  EXPECT_EQ(parse_byte_size("8G"), 8ull << 30);
  EXPECT_EQ(parse_byte_size("8GiB"), 8ull << 30);
  EXPECT_EQ(parse_byte_size("8 gb"), 8ull << 30);
  EXPECT_EQ(parse_byte_size("512M"), 512ull << 20);
  EXPECT_EQ(parse_byte_size(" 64 KiB "), 64ull << 10);
  EXPECT_EQ(parse_byte_size("1.5G"), 3ull << 29);
  EXPECT_EQ(parse_byte_size("2T"), 2ull << 40);
  EXPECT_EQ(parse_byte_size("0"), 0u);
  EXPECT_EQ(parse_byte_size("12 B"), 12u);
}

TEST(ByteSize, RejectsTheRest) {
  for (const char* bad : {"", "G", "-1G", "8X", "8 G B", "1.2.3M", "eight", "1e3", "99999999T"})
    EXPECT_FALSE(parse_byte_size(bad).has_value()) << bad;
}

TEST(ByteSize, FormatsWithTheLargestUnit) {
  EXPECT_EQ(format_byte_size(512), "512 B");
  EXPECT_EQ(format_byte_size(8ull << 30), "8 GiB");
  EXPECT_EQ(format_byte_size(3ull << 29), "1.5 GiB");
  EXPECT_EQ(format_byte_size(64ull << 20), "64 MiB");
}

}  // namespace
}  // namespace kjudge
