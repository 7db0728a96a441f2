// floordiv / floormod rules, positive and negative cases.
#include "arith_test_util.h"

namespace relax::arith::testing {
namespace {

TEST(DivMod, MultiplesLeaveTheDivision) {
  auto n = var("n"), x = var("x"), y = var("y"), h = var("h");
  EXPECT_EQ(simplified(floordiv(n * 4, 4)), "n");
  EXPECT_EQ(simplified(floordiv(x * 8 + y, 8)), "x + y // 8");
  EXPECT_EQ(simplified(floordiv(h + 2, 2)), "h // 2 + 1");
  EXPECT_EQ(simplified(floordiv(x * 6 + 4, 3)), "x * 2 + 1");
}

TEST(DivMod, RemainderInRangeVanishes) {
  Analyzer an;
  auto x = var("x"), y = var("y"), i = var("i");
  an.set_bound(y, 0, 7);
  an.bind_range(i, int_imm(0), int_imm(8));
  EXPECT_EQ(simplified(an, floordiv(x * 8 + y, 8)), "x");
  EXPECT_EQ(simplified(an, floormod(x * 8 + y, 8)), "y");
  EXPECT_EQ(simplified(an, floordiv(i, 8)), "0");
  EXPECT_EQ(simplified(an, floormod(i, 8)), "i");
  EXPECT_EQ(simplified(an, floordiv(i + 8, 8)), "1");
  EXPECT_EQ(simplified(an, floormod(i + 16, 8)), "i");
}

TEST(DivMod, SmallRemainderBelowACommonFactorVanishes) {
  // A head split: (x * 64 + i * 16 + j) // 768 with i * 16 + j in [0, 64) is x // 12.
  Analyzer an;
  auto x = var("x"), i = var("i"), j = var("j");
  an.bind_range(i, int_imm(0), int_imm(4));
  an.bind_range(j, int_imm(0), int_imm(16));
  EXPECT_EQ(simplified(an, floordiv(x * 64 + i * 16 + j, 768)), "x // 12");
  EXPECT_EQ(simplified(an, floormod(x * 64 + i * 16 + j, 768)), "i * 16 + j + x % 12 * 64");
  // A symbolic divisor with a constant factor: (i0 * 12 + k) // (n * 12), k in [0, 12).
  auto i0 = var("i0"), n = var("n"), k = var("k"), z = var("z");
  an.bind_range(k, int_imm(0), int_imm(12));
  an.assume_nonnegative(n);
  // z may be negative: (i0 * 12 + k) // (z * 12) is not i0 // z (z = -1, k = 1).
  EXPECT_EQ(simplified(an, floordiv(i0 * 12 + k, z * 12)), "(i0 * 12 + k) // (z * 12)");
  EXPECT_EQ(simplified(an, floordiv(i0 * 12 + k, n * 12)), "i0 // n");
  EXPECT_EQ(simplified(an, floormod(i0 * 12 + k, n * 12)), "k + i0 % n * 12");
  // Bounded terms split the same way: (i * 16 + j) // 64 is i // 4 for j in [0, 16).
  EXPECT_EQ(simplified(an, floordiv(i * 16 + j, 64)), "0");
  an.bind_range(x, int_imm(0), int_imm(48));
  EXPECT_EQ(simplified(an, floordiv(x * 16 + j, 64)), "x // 4");
  EXPECT_EQ(simplified(an, floormod(x * 16 + j, 64)), "j + x % 4 * 16");
  // The rest may reach 64: kept.
  EXPECT_EQ(simplified(an, floordiv(x * 64 + i * 16 + j + 16, 768)),
            "(i * 16 + j + x * 64 + 16) // 768");
}

TEST(DivMod, ModuloOfMultiples) {
  auto x = var("x"), y = var("y");
  EXPECT_EQ(simplified(floormod(x * 4 + 2, 2)), "0");
  EXPECT_EQ(simplified(floormod(x * 4 + y * 8, 4)), "0");
  EXPECT_EQ(simplified(floormod(x * 4 + 6, 8)), "(x * 2 + 3) % 4 * 2");
  EXPECT_EQ(simplified(floormod(x + 9, 4)), "(x + 1) % 4");
}

TEST(DivMod, CommonFactor) {
  auto x = var("x");
  // 2 is below the common factor 4 of x * 4 and 8: it leaves.
  EXPECT_EQ(simplified(floordiv(x * 4 + 2, 8)), "x // 2");
  EXPECT_EQ(simplified(floormod(x * 4 + 2, 8)), "x % 2 * 4 + 2");
  EXPECT_EQ(simplified(floordiv(x * 4 + 6, 8)), "(x * 2 + 3) // 4");
}

TEST(DivMod, DivModRecombine) {
  auto x = var("x"), y = var("y");
  EXPECT_EQ(simplified(floordiv(x, 4) * 4 + floormod(x, 4)), "x");
  EXPECT_EQ(simplified(floormod(x, 4) + floordiv(x, 4) * 4), "x");
  EXPECT_EQ(simplified(x - floordiv(x, 4) * 4), "x % 4");
  EXPECT_EQ(simplified(x - floormod(x, 4)), "x // 4 * 4");
  EXPECT_EQ(simplified(floordiv(x + y, 8) * 16 + floormod(x + y, 8) * 2), "x * 2 + y * 2");
}

TEST(DivMod, Nested) {
  auto x = var("x");
  EXPECT_EQ(simplified(floordiv(floordiv(x, 2), 3)), "x // 6");
  EXPECT_EQ(simplified(floordiv(floordiv(x, 2) + 1, 3)), "(x + 2) // 6");
  EXPECT_EQ(simplified(floormod(floormod(x, 8), 4)), "x % 4");
  EXPECT_EQ(simplified(floormod(floormod(x, 4), 8)), "x % 4");  // [0, 3] is below 8
}

TEST(DivMod, NegativeDivisor) {
  auto x = var("x");
  // floordiv(x, -2) == floordiv(-x, 2); floormod(x, -2) == -floormod(-x, 2).
  EXPECT_EQ(simplified(floordiv(x, -1)), "0 - x");
  EXPECT_EQ(simplified(floordiv(x * 4, -2)), "0 - x * 2");
  EXPECT_EQ(simplified(floormod(x * 4, -2)), "0");
}

TEST(DivMod, SymbolicDivisor) {
  auto n = var("n"), m = var("m"), k = var("k");
  EXPECT_EQ(simplified(floordiv(n * m, m)), "n");
  EXPECT_EQ(simplified(floordiv(n * m * 4 + m * k * 2, m * 2)), "k + n * 2");
  EXPECT_EQ(simplified(floormod(n * m, m)), "0");
  EXPECT_EQ(simplified(floordiv(n, n)), "1");
  EXPECT_EQ(simplified(floordiv(n + 1, m)), "(n + 1) // m");
  // The multiples of a symbolic divisor leave the division; the rest stays inside.
  EXPECT_EQ(simplified(floordiv(m * n + k, m)), "n + k // m");
  EXPECT_EQ(simplified(floormod(m * n + k + 3, m)), "(k + 3) % m");
  EXPECT_EQ(simplified(floordiv(m * n * 2 + k * m + 5, m)), "k + n * 2 + 5 // m");
}

TEST(DivMod, TruncatingDivisionOfNonNegatives) {
  Analyzer an;
  auto i = var("i"), x = var("x");
  an.assume_nonnegative(i);
  EXPECT_EQ(simplified(an, truncdiv(i * 4 + 3, int_imm(4))), "i");
  EXPECT_EQ(simplified(an, truncmod(i * 4 + 3, int_imm(4))), "3");
  // x may be negative: truncation and flooring differ, nothing is rewritten.
  EXPECT_EQ(simplified(an, truncdiv(x, int_imm(4))), "truncdiv(x, 4)");
}

TEST(DivMod, NotProven) {
  Analyzer an;
  auto x = var("x"), y = var("y");
  EXPECT_FALSE(an.prove_equal(floordiv(x, 4) * 4, x));
  EXPECT_FALSE(an.prove_equal(floordiv(x * 8 + y, 8), x));  // y unbounded
  EXPECT_FALSE(an.prove_equal(floormod(x * 4 + 1, 2), int_imm(0)));
  EXPECT_FALSE(an.prove_equal(floordiv(floordiv(x, 2), 3), floordiv(x, 5)));
}

}  // namespace
}  // namespace relax::arith::testing

namespace relax::arith::testing {
namespace {

// A divisor or a comparison constant of INT64_MIN has no negation: the rules that negate leave
// the expression as it is (UBSan found the negations; the results must stay sound).
TEST(DivMod, Int64MinIsNeverNegated) {
  constexpr int64_t kMin = std::numeric_limits<int64_t>::min();
  auto x = var("x");
  EXPECT_EQ(simplified(floordiv(x, int_imm(kMin))), "x // -9223372036854775808");
  EXPECT_EQ(simplified(floormod(x, int_imm(kMin))), "x % -9223372036854775808");
  EXPECT_EQ(simplified(floordiv(x, int_imm(kMin + 1))), "(0 - x) // 9223372036854775807");
  Analyzer an;
  EXPECT_FALSE(an.can_prove(lt(x, int_imm(kMin))));
  EXPECT_FALSE(an.can_prove(le(x * int_imm(kMin), int_imm(-5))));  // 0 when x is even
  EXPECT_FALSE(an.can_prove(eq(x * 2 + int_imm(kMin), int_imm(0))));
}

}  // namespace
}  // namespace relax::arith::testing
