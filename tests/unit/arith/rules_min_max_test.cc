// min / max rules, positive and negative cases.
#include "arith_test_util.h"

namespace relax::arith::testing {
namespace {

TEST(MinMax, DecidedByTheDifference) {
  auto n = var("n"), x = var("x");
  EXPECT_EQ(simplified(min(n, n + 1)), "n");
  EXPECT_EQ(simplified(min(x + 1, x)), "x");
  EXPECT_EQ(simplified(max(x - 1, x + 2)), "x + 2");
  EXPECT_EQ(simplified(max(x * 2, x * 2)), "x * 2");
}

TEST(MinMax, DecidedByBounds) {
  Analyzer an;
  auto x = var("x"), n = var("n");
  an.set_bound(x, 5, ConstIntBound::kPosInf);
  an.set_bound(n, 0, 3);
  EXPECT_EQ(simplified(an, max(x, 3)), "x");
  EXPECT_EQ(simplified(an, min(x, 3)), "3");
  EXPECT_EQ(simplified(an, min(n, 4)), "n");
  EXPECT_EQ(simplified(an, max(n * 4, x)), "max(x, n * 4)");
}

TEST(MinMax, UndecidedKeepsACanonicalOrder) {
  auto x = var("x"), y = var("y");
  EXPECT_EQ(simplified(max(x, 3)), "max(x, 3)");
  EXPECT_EQ(simplified(max(3, x)), "max(x, 3)");
  EXPECT_EQ(simplified(min(y, x)), "min(x, y)");
  EXPECT_EQ(simplified(min(x, y)), "min(x, y)");
}

TEST(MinMax, SharedTermsLeave) {
  auto x = var("x"), y = var("y"), z = var("z");
  EXPECT_EQ(simplified(min(x + y, z + x)), "x + min(y, z)");
  EXPECT_EQ(simplified(max(x * 4 + 1, y + 1)), "max(y, x * 4) + 1");
}

TEST(MinMax, Absorption) {
  auto x = var("x"), y = var("y");
  EXPECT_EQ(simplified(min(min(x, y), x)), "min(x, y)");
  EXPECT_EQ(simplified(max(y, max(x, y))), "max(x, y)");
  EXPECT_EQ(simplified(min(max(x, y), x)), "x");
  EXPECT_EQ(simplified(max(x, min(x, y))), "x");
  EXPECT_EQ(simplified(min(min(x, 4), 2)), "min(x, 2)");
  EXPECT_EQ(simplified(max(max(x, 4), 2)), "max(x, 4)");
}

TEST(MinMax, ProofsThroughMinMax) {
  Analyzer an;
  auto n = var("n"), m = var("m");
  EXPECT_TRUE(an.can_prove(le(min(n, 4), n)));
  EXPECT_TRUE(an.can_prove(le(min(n, 4), int_imm(4))));
  EXPECT_TRUE(an.can_prove(ge(max(n, 4), int_imm(4))));
  EXPECT_TRUE(an.can_prove(ge(max(n, m), m)));
  EXPECT_TRUE(an.can_prove(le(min(n, m) + max(n, m), n + max(n, m))));
  EXPECT_FALSE(an.can_prove(le(max(n, 4), n)));
  EXPECT_FALSE(an.can_prove(ge(min(n, m), m)));
}

}  // namespace
}  // namespace relax::arith::testing
