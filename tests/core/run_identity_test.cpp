// The one run fingerprint and --resume check (issue 33): the fingerprint of a set of jobs does not
// depend on their order and keeps the values earlier run files recorded; a refused resume names
// the field that differs by the option it comes from.
#include "core/run_identity.h"

#include <gtest/gtest.h>

#include "core/input_error.h"
#include "core/sha256.h"

namespace kjudge {
namespace {

using oj = nlohmann::ordered_json;

TEST(ItemFingerprint, IsOrderIndependentAndSeesEveryItem) {
  ItemFingerprint a(":"), b(":"), c(":");
  a.add("t#0", "h1").add("t#1", "h2");
  b.add("t#1", "h2").add("t#0", "h1");
  c.add("t#0", "h1").add("t#1", "h3");
  EXPECT_EQ(a.hex(), b.hex());
  EXPECT_NE(a.hex(), c.hex());
  EXPECT_EQ(a.size(), 2u);
}

TEST(ItemFingerprint, KeepsTheValueRunFilesRecorded) {
  // validate|evaluate before issue 33: the sorted "key:hash" lines, each with a newline.
  ItemFingerprint f(":");
  f.add("t#10", "b").add("t#1", "a");
  EXPECT_EQ(f.hex(), Sha256().update("t#10:b\n").update("t#1:a\n").hex());
  // triton eval: "key\nhashes\n" in key order.
  ItemFingerprint t("\n");
  t.add("G/op#1", "x y z").add("G/op#0", "u v w");
  EXPECT_EQ(t.hex(), Sha256().update("G/op#0\nu v w\n").update("G/op#1\nx y z\n").hex());
}

constexpr IdentityField kFields[] = {{"seed", "--seed"}, {"jobs_fingerprint", "the jobs", true}};

TEST(RunIdentity, TheSameIdentityResumes) {
  const oj now = {{"seed", 7}, {"jobs_fingerprint", "abc"}};
  EXPECT_NO_THROW(check_run_identity("run/run.json", "run", now, now, kFields));
  EXPECT_TRUE(identity_differences(now, now, kFields).empty());
}

TEST(RunIdentity, ARefusalNamesTheFieldAndItsOption) {
  const oj was = {{"seed", 7}, {"jobs_fingerprint", "abc"}};
  const oj now = {{"seed", 8}, {"jobs_fingerprint", "abc"}};
  try {
    check_run_identity("run/run.json", "run", was, now, kFields);
    FAIL() << "resumed another run";
  } catch (const InputError& e) {
    EXPECT_EQ(e.file(), "run/run.json");
    EXPECT_EQ(e.field(), "seed");
    EXPECT_NE(std::string(e.what()).find("--seed (was 7, now 8)"), std::string::npos) << e.what();
    EXPECT_NE(std::string(e.what()).find("differ from the run being resumed"), std::string::npos);
  }
  // A hash is named by its option alone; a field only one side has differs too.
  const auto d = identity_differences({{"jobs_fingerprint", "abc"}, {"old", 1}},
                                      {{"jobs_fingerprint", "abd"}}, kFields);
  ASSERT_EQ(d.size(), 2u);
  EXPECT_EQ(d[0].text, "the jobs");
  EXPECT_EQ(d[1].text, "old (was 1, now null)");
}

TEST(RunIdentity, ThePartOfARunFileThatIsItsIdentity) {
  const oj file = {{"started_at", "x"}, {"jobs_fingerprint", "abc"}};
  const oj now = {{"jobs_fingerprint", "abc"}};
  EXPECT_EQ(identity_part(file, now), now);
  EXPECT_EQ(identity_part(oj::object(), now), oj::object());
  EXPECT_THROW(
      check_run_identity("r.json", "r", identity_part(oj::object(), now), now, kFields, "x"),
      InputError);
}

}  // namespace
}  // namespace kjudge
