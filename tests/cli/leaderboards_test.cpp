// kjudge leaderboards (issue 38): a competition's boards made, read and removed from the command
// line against a real `kjudge serve`, with the service's refusals as clear errors and exit codes.
#include <gtest/gtest.h>

#include <nlohmann/json.hpp>
#include <string>

#include "serve_fixture.h"

namespace kjudge {
namespace {

class Leaderboards : public testing::ServeFixture {
 protected:
  testing::CmdResult kj(const std::string& args, const std::string& token) {
    return testing::run_capture(std::string(KJUDGE_BINARY) + " leaderboards " + args +
                                " --server http://127.0.0.1:" + std::to_string(port_) +
                                " --token " + token);
  }
  void SetUp() override {
    ServeFixture::SetUp();
    port_ = serve({"--no-judge", "--gpu-type", "H100"});
    ASSERT_GT(port_, 0);
  }
  int port_ = 0;
};

TEST_F(Leaderboards, AnAdminCreatesListsShowsAndDeletesABoard) {
  auto made =
      kj("create softmax-cup --task softmax --gpu-type H100 --gpu-type H200 "
         "--deadline 2031-01-01T00:00:00Z --description 'row softmax'",
         admin);
  ASSERT_EQ(made.rc, 0) << made.out;
  EXPECT_EQ(made.out, "created leaderboard softmax-cup\n");
  auto list = kj("list --json", alice);
  ASSERT_EQ(list.rc, 0) << list.out;
  const auto j = nlohmann::json::parse(list.out);
  ASSERT_EQ(j["leaderboards"].size(), 1u);
  EXPECT_EQ(j["leaderboards"][0]["name"], "softmax-cup");
  EXPECT_EQ(j["leaderboards"][0]["gpu_types"], nlohmann::json({"H100", "H200"}));
  EXPECT_EQ(j["leaderboards"][0]["description"], "row softmax");
  auto text = kj("list", alice);
  EXPECT_NE(text.out.find("softmax-cup"), std::string::npos) << text.out;
  auto shown = kj("show softmax-cup", bob);
  ASSERT_EQ(shown.rc, 0) << shown.out;
  EXPECT_NE(shown.out.find("softmax-cup: task softmax"), std::string::npos) << shown.out;
  EXPECT_NE(shown.out.find("H200 (0 ranked)"), std::string::npos) << shown.out;
  auto gone = kj("delete softmax-cup", admin);
  ASSERT_EQ(gone.rc, 0) << gone.out;
  auto missing = kj("show softmax-cup", bob);
  EXPECT_EQ(missing.rc, 1) << missing.out;
  EXPECT_NE(missing.out.find("HTTP 404: no such leaderboard"), std::string::npos) << missing.out;
}

TEST_F(Leaderboards, RefusalsAreNamedWithTheirExitCodes) {
  auto user = kj("create mine --task softmax", alice);
  EXPECT_EQ(user.rc, 2) << user.out;  // a token without the right: usage
  EXPECT_NE(user.out.find("HTTP 403: only an admin creates leaderboards"), std::string::npos)
      << user.out;
  auto unknown = kj("create b --task no-such-task", admin);
  EXPECT_EQ(unknown.rc, 1) << unknown.out;
  EXPECT_NE(unknown.out.find("no task named 'no-such-task' is loaded"), std::string::npos)
      << unknown.out;
  auto both = kj("create b --task softmax --problem pack:example#x", admin);
  EXPECT_EQ(both.rc, 2) << both.out;
  auto when = kj("create b --task softmax --deadline next-week", admin);
  EXPECT_EQ(when.rc, 2) << when.out;
  EXPECT_NE(when.out.find("--deadline"), std::string::npos) << when.out;
  auto name = kj("show '../users'", admin);
  EXPECT_EQ(name.rc, 2) << name.out;
  auto again = kj("create b --task softmax", admin);
  ASSERT_EQ(again.rc, 0) << again.out;
  auto twice = kj("create b --task softmax", admin);
  EXPECT_EQ(twice.rc, 1) << twice.out;
  EXPECT_NE(twice.out.find("HTTP 409"), std::string::npos) << twice.out;
  auto none = testing::run_capture(std::string(KJUDGE_BINARY) +
                                   " leaderboards list --server http://127.0.0.1:1 --token x");
  EXPECT_EQ(none.rc, 3) << none.out;  // no answer: the environment
}

}  // namespace
}  // namespace kjudge
