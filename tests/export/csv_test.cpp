// RFC 4180 fields: quoted exactly when they must be, quotes doubled, records ended by CRLF.
#include "export/csv.h"

#include <gtest/gtest.h>

namespace kjudge {
namespace {

TEST(Csv, PlainFieldsStayAsTheyAre) {
  EXPECT_EQ(csv::field(""), "");
  EXPECT_EQ(csv::field("example/saxpy"), "example/saxpy");
  EXPECT_EQ(csv::field("  spaced  "), "  spaced  ") << "RFC 4180: spaces are part of a field";
  EXPECT_EQ(csv::field("1.25"), "1.25");
}

TEST(Csv, QuotesFieldsWithCommasQuotesAndLineBreaks) {
  EXPECT_EQ(csv::field("a,b"), "\"a,b\"");
  EXPECT_EQ(csv::field("say \"hi\""), "\"say \"\"hi\"\"\"");
  EXPECT_EQ(csv::field("line\nbreak"), "\"line\nbreak\"");
  EXPECT_EQ(csv::field("cr\rhere"), "\"cr\rhere\"");
  EXPECT_EQ(csv::field("\""), "\"\"\"\"");
}

TEST(Csv, RecordsJoinWithCommasAndEndWithCrlf) {
  EXPECT_EQ(csv::record({"a", "b,c", ""}), "a,\"b,c\",\r\n");
  EXPECT_EQ(csv::record({}), "\r\n");
}

}  // namespace
}  // namespace kjudge
