// Comparison rules and the proofs built on them, with negative cases.
#include "arith_test_util.h"

namespace relax::arith::testing {
namespace {

TEST(Compare, StructuralProofs) {
  Analyzer an;
  auto n = var("n"), m = var("m"), x = var("x");
  EXPECT_TRUE(an.can_prove(eq(n * m, m * n)));
  EXPECT_TRUE(an.prove_equal((n + 1) * (m + 1), n * m + n + m + 1));
  EXPECT_TRUE(an.can_prove(lt(x, x + 1)));
  EXPECT_TRUE(an.can_prove(ge(x * 2 + 1, x * 2)));
  EXPECT_TRUE(an.can_prove(ne(x * 2, x * 2 + 1)));
  EXPECT_TRUE(an.can_prove(ne(x * 2, int_imm(3))));  // an even number is never 3
  EXPECT_TRUE(an.can_prove(logical_not(eq(x * 4 + 2, x * 4))));
}

TEST(Compare, ProofsFromBounds) {
  Analyzer an;
  auto n = var("n"), i = var("i"), j = var("j");
  an.set_bound(n, 1, ConstIntBound::kPosInf);
  an.bind_range(i, int_imm(0), int_imm(8));
  an.bind_range(j, int_imm(0), n);
  EXPECT_TRUE(an.can_prove(gt(n * 4, int_imm(0))));
  EXPECT_TRUE(an.can_prove(ge(n - 1, int_imm(0))));
  EXPECT_TRUE(an.can_prove(lt(i, int_imm(8))));
  EXPECT_TRUE(an.can_prove(ge(i, int_imm(0))));
  EXPECT_TRUE(an.can_prove(lt(i * 4 + 3, int_imm(32))));
  EXPECT_TRUE(an.can_prove(lt(floormod(j, 8), int_imm(8))));
  EXPECT_TRUE(an.can_prove(logical_and(ge(i, int_imm(0)), lt(i, int_imm(8)))));
  EXPECT_TRUE(an.can_prove(logical_or(lt(i, int_imm(0)), lt(i, int_imm(8)))));
  EXPECT_FALSE(an.can_prove(lt(i, int_imm(7))));
  EXPECT_FALSE(an.can_prove(gt(n, int_imm(1))));
}

TEST(Compare, ProofsFromSymbolicRanges) {
  Analyzer an;
  auto n = var("n"), m = var("m"), i = var("i"), j = var("j");
  an.bind_range(i, int_imm(0), n);  // i in [0, n)
  an.bind_range(j, int_imm(0), m * 4);
  EXPECT_TRUE(an.can_prove(lt(i, n)));
  EXPECT_TRUE(an.can_prove(le(i + 1, n)));
  EXPECT_TRUE(an.can_prove(lt(i * 4 + 3, n * 4)));
  EXPECT_TRUE(an.can_prove(lt(j, m * 4)));
  EXPECT_FALSE(an.can_prove(lt(i, n - 1)));
  EXPECT_FALSE(an.can_prove(lt(i * 4 + 4, n * 4)));
  // Not handled: a symbolic end seen through a division (floordiv(j, 4) < m holds).
  EXPECT_FALSE(an.can_prove(lt(floordiv(j, 4), m)));
  EXPECT_EQ(simplified(an, min(i, n)), "i");
  EXPECT_EQ(simplified(an, select(lt(i, n), i, n)), "i");
}

TEST(Compare, NotProvenWithoutFacts) {
  Analyzer an;
  auto n = var("n"), m = var("m"), x = var("x");
  EXPECT_FALSE(an.can_prove(eq(n * m, n)));
  EXPECT_FALSE(an.can_prove(eq(floordiv(x, 4) * 4, x)));
  EXPECT_FALSE(an.can_prove(ge(n - 1, int_imm(0))));
  EXPECT_FALSE(an.can_prove(gt(n * 4, int_imm(0))));
  EXPECT_FALSE(an.can_prove(lt(x, x * 2)));
  // Nor is the negation proven: undecided is not false.
  EXPECT_FALSE(an.can_prove(ne(n * m, n)));
  EXPECT_FALSE(an.can_prove(logical_not(ge(n - 1, int_imm(0)))));
}

TEST(Compare, NonNegativeIsNotPositive) {
  Analyzer an;
  auto n = var("n");
  an.assume_nonnegative(n);
  EXPECT_TRUE(an.can_prove(ge(n, int_imm(0))));
  EXPECT_FALSE(an.can_prove(ge(n - 1, int_imm(0))));
  Analyzer shapes(AnalyzerOptions{.int64_vars_nonnegative = true});
  EXPECT_TRUE(shapes.can_prove(ge(n * n + n, int_imm(0))));
  EXPECT_FALSE(shapes.can_prove(gt(n, int_imm(0))));
}

TEST(Compare, FoldedToConstants) {
  auto x = var("x");
  EXPECT_EQ(simplified(eq(x * 2, int_imm(3))), "False");
  EXPECT_EQ(simplified(le(x, x)), "True");
  EXPECT_EQ(simplified(gt(x + 1, x)), "True");
  EXPECT_EQ(simplified(lt(x + 1, x)), "False");
}

TEST(Compare, UndecidedForms) {
  auto x = var("x"), y = var("y"), i = var("i"), n = var("n");
  EXPECT_EQ(simplified(lt(i, int_imm(8))), "i < 8");
  EXPECT_EQ(simplified(gt(x, int_imm(3))), "x > 3");
  EXPECT_EQ(simplified(lt(int_imm(0), n)), "n > 0");
  EXPECT_EQ(simplified(gt(n * 4, int_imm(0))), "n > 0");
  EXPECT_EQ(simplified(lt(x * 4, int_imm(10))), "x < 3");
  EXPECT_EQ(simplified(le(x * 4, int_imm(10))), "x <= 2");
  EXPECT_EQ(simplified(eq(y, x)), simplified(eq(x, y)));
  EXPECT_EQ(simplified(eq(y, x)), "x == y");
  EXPECT_EQ(simplified(le(x + 1, y)), "x <= y - 1");
  EXPECT_EQ(simplified(eq(floordiv(x, 4) * 4, x)), "x % 4 == 0");
}

TEST(Compare, NegationFoldsIntoTheComparison) {
  auto x = var("x"), y = var("y");
  EXPECT_EQ(simplified(logical_not(lt(x, int_imm(3)))), "x >= 3");
  EXPECT_EQ(simplified(logical_not(eq(x, y))), "x != y");
  EXPECT_EQ(simplified(logical_not(logical_not(lt(x, y)))), "x < y");
}

TEST(Compare, Logic) {
  auto x = var("x"), y = var("y");
  PrimExpr c = lt(x, y);
  EXPECT_EQ(simplified(logical_and(c, c)), "x < y");
  EXPECT_EQ(simplified(logical_and(c, logical_not(c))), "False");
  EXPECT_EQ(simplified(logical_or(c, logical_not(c))), "True");
  EXPECT_EQ(simplified(logical_and(c, lt(x, x + 1))), "x < y");
  EXPECT_EQ(simplified(logical_or(c, lt(x + 1, x))), "x < y");
}

}  // namespace
}  // namespace relax::arith::testing
