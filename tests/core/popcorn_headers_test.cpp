// popcorn-cli's directives in a submission file, which `kjudge submit` follows.
#include "core/popcorn_headers.h"

#include <gtest/gtest.h>

namespace kjudge {
namespace {

TEST(PopcornHeaders, PythonAndCudaForms) {
  PopcornHeaders h = read_popcorn_headers(
      "#!POPCORN leaderboard vectoradd_v2\n#!POPCORN gpu H100\nimport torch\n");
  EXPECT_EQ(h.leaderboard, "vectoradd_v2");
  EXPECT_EQ(h.gpus, std::vector<std::string>{"H100"});
  h = read_popcorn_headers("//!POPCORN leaderboard identity_cuda\n#include <array>\n");
  EXPECT_EQ(h.leaderboard, "identity_cuda");
  EXPECT_TRUE(h.gpus.empty());
}

TEST(PopcornHeaders, ListsCaseAndWhatIsNotADirective) {
  const PopcornHeaders h = read_popcorn_headers(
      "  #!popcorn gpus H100, A100 L4\n#!POPCORNleaderboard x\n# !POPCORN leaderboard y\n"
      "#!POPCORN deadline tomorrow\n");
  EXPECT_EQ(h.gpus, (std::vector<std::string>{"H100", "A100", "L4"}));
  EXPECT_EQ(h.leaderboard, "");  // neither glued nor spaced prefixes are directives
  ASSERT_EQ(h.unknown.size(), 1u);
  EXPECT_EQ(h.unknown[0], "#!POPCORN deadline tomorrow");
}

}  // namespace
}  // namespace kjudge
