#include "eval/pass_at_k.h"

#include <gtest/gtest.h>

#include <stdexcept>

namespace kjudge {
namespace {

// C(n, k) by the multiplicative formula in long double: for n <= 200 it stays far inside the
// range, and each step adds only ~1e-19 of relative error, well under the tolerance below.
long double binomial(int n, int k) {
  if (k < 0 || k > n) return 0;
  long double r = 1;
  for (int i = 1; i <= k; ++i) r = r * (n - k + i) / i;
  return r;
}

TEST(PassAtK, KnownValues) {
  EXPECT_NEAR(pass_at_k(10, 3, 1), 0.3, 1e-12);
  EXPECT_NEAR(pass_at_k(10, 3, 5), 1.0 - 21.0 / 252.0, 1e-12);
  EXPECT_EQ(pass_at_k(5, 0, 1), 0.0);
  EXPECT_EQ(pass_at_k(5, 0, 5), 0.0);
  EXPECT_EQ(pass_at_k(5, 5, 1), 1.0);
  EXPECT_EQ(pass_at_k(5, 5, 5), 1.0);
  EXPECT_EQ(pass_at_k(1, 1, 1), 1.0);
  EXPECT_EQ(pass_at_k(1, 0, 1), 0.0);
  // n - c < k: every draw holds a pass.
  EXPECT_EQ(pass_at_k(10, 8, 3), 1.0);
  EXPECT_NEAR(pass_at_k(10, 7, 3), 1.0 - 1.0 / 120.0, 1e-12);
  // k = 1 is the plain pass rate.
  EXPECT_NEAR(pass_at_k(200, 37, 1), 37.0 / 200.0, 1e-12);
}

TEST(PassAtK, MatchesExactBinomials) {
  for (int n : {1, 2, 7, 20, 64, 100, 157, 200}) {
    for (int c = 0; c <= n; c += (n > 20 ? 7 : 1)) {
      for (int k : {1, 2, 5, 10, 50, 100, 200}) {
        if (k > n) continue;
        long double exact = 1.0L - binomial(n - c, k) / binomial(n, k);
        EXPECT_NEAR(pass_at_k(n, c, k), static_cast<double>(exact), 1e-9)
            << "n=" << n << " c=" << c << " k=" << k;
      }
    }
  }
}

TEST(PassAtK, RejectsImpossibleCounts) {
  EXPECT_THROW(pass_at_k(0, 0, 1), std::invalid_argument);
  EXPECT_THROW(pass_at_k(5, 6, 1), std::invalid_argument);
  EXPECT_THROW(pass_at_k(5, -1, 1), std::invalid_argument);
  EXPECT_THROW(pass_at_k(5, 2, 0), std::invalid_argument);
  EXPECT_THROW(pass_at_k(5, 2, 6), std::invalid_argument);
}

TEST(MeanPassAtK, AveragesOverProblems) {
  auto m = mean_pass_at_k({{10, 3}, {10, 0}, {5, 5}}, 1);
  ASSERT_TRUE(m.has_value());
  EXPECT_NEAR(*m, (0.3 + 0.0 + 1.0) / 3.0, 1e-12);

  m = mean_pass_at_k({{10, 3}, {20, 1}}, 5);
  ASSERT_TRUE(m.has_value());
  EXPECT_NEAR(*m, (pass_at_k(10, 3, 5) + pass_at_k(20, 1, 5)) / 2.0, 1e-12);
}

TEST(MeanPassAtK, UndefinedWhenAnyProblemHasTooFewSamples) {
  EXPECT_FALSE(mean_pass_at_k({{10, 3}, {4, 4}}, 5).has_value());
  EXPECT_TRUE(mean_pass_at_k({{10, 3}, {5, 4}}, 5).has_value());
  EXPECT_FALSE(mean_pass_at_k({}, 1).has_value());
}

}  // namespace
}  // namespace kjudge
