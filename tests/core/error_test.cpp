// The one error type (issue 33): every error carries the exit code kjudge ends with, an
// InputError is a usage error, and any other exception is one too.
#include "core/error.h"

#include <gtest/gtest.h>

#include "core/input_error.h"

namespace kjudge {
namespace {

TEST(Error, CarriesItsExitCodeAndMessage) {
  const Error e(exit_code::environment, "no GPU here");
  EXPECT_EQ(e.code(), exit_code::environment);
  EXPECT_STREQ(e.what(), "no GPU here");
  EXPECT_EQ(exit_code_of(e), exit_code::environment);
}

TEST(Error, InputErrorIsAUsageErrorNamingWhere) {
  const InputError e("pack.jsonl", 3, "task_id", "missing");
  EXPECT_EQ(e.code(), exit_code::usage);
  EXPECT_EQ(exit_code_of(e), exit_code::usage);
  EXPECT_STREQ(e.what(), "pack.jsonl:3: field 'task_id': missing");
  const Error& as_error = e;
  EXPECT_EQ(as_error.code(), exit_code::usage);
}

TEST(Error, AnyOtherExceptionIsUsage) {
  EXPECT_EQ(exit_code_of(std::runtime_error("cannot read x")), exit_code::usage);
  EXPECT_EQ(exit_code_of(std::logic_error("odd")), exit_code::usage);
}

}  // namespace
}  // namespace kjudge
