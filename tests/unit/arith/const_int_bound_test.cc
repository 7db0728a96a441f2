// Constant bounds of expressions.
#include "arith_test_util.h"

namespace relax::arith::testing {
namespace {

constexpr int64_t kInf = ConstIntBound::kPosInf;
constexpr int64_t kNegInf = ConstIntBound::kNegInf;

TEST(ConstIntBound, Basics) {
  Analyzer an;
  auto x = var("x"), n = var("n");
  an.set_bound(x, 0, 7);
  EXPECT_EQ(an.const_int_bound(int_imm(5)), ConstIntBound::single(5));
  EXPECT_EQ(an.const_int_bound(x), (ConstIntBound{0, 7}));
  EXPECT_EQ(an.const_int_bound(x * 4 + 1), (ConstIntBound{1, 29}));
  EXPECT_EQ(an.const_int_bound(x - x), ConstIntBound::single(0));
  EXPECT_EQ(an.const_int_bound(n), ConstIntBound::everything());
  EXPECT_EQ(an.const_int_bound(n * n), (ConstIntBound{0, kInf}));
  EXPECT_EQ(an.const_int_bound(floormod(n, 8)), (ConstIntBound{0, 7}));
  EXPECT_EQ(an.const_int_bound(floordiv(x, 2)), (ConstIntBound{0, 3}));
  EXPECT_EQ(an.const_int_bound(min(x, n)), (ConstIntBound{kNegInf, 7}));
  EXPECT_EQ(an.const_int_bound(max(x, 3)), (ConstIntBound{3, 7}));
  EXPECT_EQ(an.const_int_bound(select(lt(n, x), x, int_imm(10))), (ConstIntBound{0, 10}));
  EXPECT_EQ(an.const_int_bound(lt(n, x)), (ConstIntBound{0, 1}));
  EXPECT_EQ(an.const_int_bound(0 - x), (ConstIntBound{-7, 0}));
}

TEST(ConstIntBound, DtypeRanges) {
  Analyzer an;
  auto i = var("i", DataType::Int(32)), u = var("u", DataType::UInt(8));
  EXPECT_EQ(an.const_int_bound(i), (ConstIntBound{INT32_MIN, INT32_MAX}));
  EXPECT_EQ(an.const_int_bound(u), (ConstIntBound{0, 255}));
  EXPECT_EQ(an.const_int_bound(cast(DataType::Int(64), u)), (ConstIntBound{0, 255}));
  EXPECT_EQ(an.const_int_bound(float_imm(1.0)), ConstIntBound::everything());
}

TEST(ConstIntBound, Saturation) {
  Analyzer an;
  auto n = var("n");
  an.set_bound(n, 1, kInf);
  EXPECT_EQ(an.const_int_bound(n * 4), (ConstIntBound{4, kInf}));
  EXPECT_EQ(an.const_int_bound(0 - n), (ConstIntBound{kNegInf, -1}));
  EXPECT_EQ(an.const_int_bound(n * int_imm(INT64_MAX / 2)), (ConstIntBound{INT64_MAX / 2, kInf}));
  EXPECT_EQ(an.const_int_bound(floordiv(n, 4)), (ConstIntBound{0, kInf}));
}

TEST(ConstIntBound, Facts) {
  Analyzer an;
  auto n = var("n"), k = var("k"), i = var("i");
  an.assume_nonnegative(n);
  EXPECT_EQ(an.const_int_bound(n), (ConstIntBound{0, kInf}));
  an.set_bound(n, -5, 10);  // intersects
  EXPECT_EQ(an.const_int_bound(n), (ConstIntBound{0, 10}));
  an.bind(k, n + 2);
  EXPECT_EQ(an.const_int_bound(k), (ConstIntBound{2, 12}));
  an.bind_range(i, int_imm(1), n);  // [1, 1 + n)
  EXPECT_EQ(an.const_int_bound(i), (ConstIntBound{1, 10}));
  EXPECT_EQ(ConstIntBound({0, kInf}).to_string(), "[0, +inf]");
  Analyzer shapes(AnalyzerOptions{.int64_vars_nonnegative = true});
  EXPECT_EQ(shapes.const_int_bound(var("m")), (ConstIntBound{0, kInf}));
  EXPECT_EQ(shapes.const_int_bound(var("j", DataType::Int(32))).min_value, INT32_MIN);
}

}  // namespace
}  // namespace relax::arith::testing
