// kjudge users (issue 38): a name is added once, further tokens are asked for by name, and
// tokens can be listed (never shown again) and taken back.
#include <gtest/gtest.h>

#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "board/store.h"
#include "cli/app.h"
#include "core/exit_codes.h"
#include "test_util.h"

namespace kjudge {
namespace {

struct Ran {
  int rc;
  std::string out, err;
};

Ran run(std::vector<std::string> args) {
  args.insert(args.begin(), "kjudge");
  std::vector<char*> argv;
  for (auto& a : args) argv.push_back(a.data());
  ::testing::internal::CaptureStdout();
  ::testing::internal::CaptureStderr();
  const int rc = run_cli(static_cast<int>(argv.size()), argv.data());
  std::string out = ::testing::internal::GetCapturedStdout();
  return {rc, out, ::testing::internal::GetCapturedStderr()};
}

std::string first_line(const std::string& s) { return s.substr(0, s.find('\n')); }

TEST(Users, ANameIsAddedOnceAndAnotherTokenIsAskedForByName) {
  testing::TempDir dir;
  const std::string db = (dir.path() / "b.db").string();
  const Ran first = run({"users", "add", "alice", "--db", db});
  ASSERT_EQ(first.rc, exit_code::ok) << first.err;
  const Ran again = run({"users", "add", "alice", "--db", db});
  EXPECT_EQ(again.rc, exit_code::usage);
  EXPECT_NE(again.err.find("user 'alice' exists; `kjudge users token alice`"), std::string::npos)
      << again.err;
  EXPECT_TRUE(again.out.empty()) << "no token is printed: " << again.out;
  const Ran second = run({"users", "token", "alice", "--label", "ci", "--db", db});
  ASSERT_EQ(second.rc, exit_code::ok) << second.err;
  EXPECT_NE(first_line(second.out), first_line(first.out));

  board::Store store(board::open_db(db));
  ASSERT_TRUE(store.user_by_token(first_line(first.out)));
  ASSERT_TRUE(store.user_by_token(first_line(second.out)));
  const auto users = store.users();
  ASSERT_EQ(users.size(), 1u);
  ASSERT_EQ(users[0].tokens.size(), 2u);
  EXPECT_EQ(users[0].tokens[1].label, "ci");
}

TEST(Users, ListShowsTokensByIdAndRevokeTakesThemBack) {
  testing::TempDir dir;
  const std::string db = (dir.path() / "b.db").string();
  const std::string t1 = first_line(run({"users", "add", "bob", "--admin", "--db", db}).out);
  const std::string t2 = first_line(run({"users", "token", "bob", "--db", db}).out);
  run({"users", "add", "carol", "--db", db});
  const Ran list = run({"users", "list", "--json", "--db", db});
  ASSERT_EQ(list.rc, exit_code::ok) << list.err;
  const auto j = nlohmann::json::parse(list.out);
  EXPECT_EQ(j["schema_version"], 1);
  ASSERT_EQ(j["users"].size(), 2u);
  EXPECT_EQ(j["users"][0]["name"], "bob");
  EXPECT_EQ(j["users"][0]["role"], "admin");
  ASSERT_EQ(j["users"][0]["tokens"].size(), 2u);
  EXPECT_EQ(list.out.find(t1), std::string::npos) << "a token is never shown again";
  const Ran text = run({"users", "list", "--db", db});
  EXPECT_NE(text.out.find("carol"), std::string::npos) << text.out;

  const std::string id = j["users"][0]["tokens"][0]["id"].dump();
  const Ran one = run({"users", "revoke", "bob", "--token", id, "--db", db});
  ASSERT_EQ(one.rc, exit_code::ok) << one.err;
  EXPECT_EQ(one.out, "revoked 1 token of bob\n");
  board::Store store(board::open_db(db));
  EXPECT_FALSE(store.user_by_token(t1));
  EXPECT_TRUE(store.user_by_token(t2));
  EXPECT_EQ(run({"users", "revoke", "bob", "--token", id, "--db", db}).rc, exit_code::usage)
      << "a token already gone is named as such";
  EXPECT_EQ(run({"users", "revoke", "bob", "--db", db}).out, "revoked 1 token of bob\n");
  EXPECT_FALSE(store.user_by_token(t2));
}

TEST(Users, ListingAMissingDatabaseOrUserIsAnErrorNotAnEmptyAnswer) {
  testing::TempDir dir;
  const std::string db = (dir.path() / "typo.db").string();
  const Ran r = run({"users", "list", "--db", db});
  EXPECT_EQ(r.rc, exit_code::usage);
  EXPECT_NE(r.err.find("no such database"), std::string::npos) << r.err;
  EXPECT_FALSE(std::filesystem::exists(db)) << "nothing is created by a look";
  run({"users", "add", "dave", "--db", db});
  const Ran t = run({"users", "token", "erin", "--db", db});
  EXPECT_EQ(t.rc, exit_code::usage);
  EXPECT_NE(t.err.find("no user 'erin'"), std::string::npos) << t.err;
}

}  // namespace
}  // namespace kjudge
