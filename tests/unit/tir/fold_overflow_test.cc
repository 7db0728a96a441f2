// Constant folding at the edges of the integer range: the PrimExpr constructors fold with the
// IR's semantics (tir/expr.h: integer arithmetic wraps at the dtype's width), which is what the
// interpreter computes, and never overflow a C++ int64_t on the way (issue 25, huge_dim.rx).
#include <gtest/gtest.h>

#include <limits>

#include "relax/tir/expr.h"

namespace relax::tir {
namespace {

constexpr int64_t kMax = std::numeric_limits<int64_t>::max();
constexpr int64_t kMin = std::numeric_limits<int64_t>::min();
constexpr DataType kI64 = DataType::Int(64);
constexpr DataType kI32 = DataType::Int(32);
constexpr DataType kU8 = DataType::UInt(8);

/// The folded value of `e`, which must be a constant.
int64_t value_of(const PrimExpr& e) {
  const int64_t* c = as_const_int(e);
  EXPECT_NE(c, nullptr) << to_string(e) << " was not folded";
  return c ? *c : 0;
}

TEST(FoldOverflow, Int64ArithmeticWraps) {
  EXPECT_EQ(value_of(int_imm(kMax, kI64) + int_imm(1, kI64)), kMin);
  EXPECT_EQ(value_of(int_imm(kMin, kI64) - int_imm(1, kI64)), kMax);
  EXPECT_EQ(value_of(int_imm(kMax, kI64) * int_imm(kMax, kI64)), 1);
  EXPECT_EQ(value_of(int_imm(kMin, kI64) * int_imm(-1, kI64)), kMin);
  EXPECT_EQ(value_of(-int_imm(kMin, kI64)), kMin);
}

TEST(FoldOverflow, DivisionOfTheMinimumByMinusOne) {
  EXPECT_EQ(value_of(truncdiv(int_imm(kMin, kI64), int_imm(-1, kI64))), kMin);
  EXPECT_EQ(value_of(truncmod(int_imm(kMin, kI64), int_imm(-1, kI64))), 0);
  EXPECT_EQ(value_of(floordiv(int_imm(kMin, kI64), int_imm(-1, kI64))), kMin);
  EXPECT_EQ(value_of(floormod(int_imm(kMin, kI64), int_imm(-1, kI64))), 0);
  // floordiv(INT64_MIN, 3) * 3 is below INT64_MIN: the remainder is found without it.
  EXPECT_EQ(value_of(floordiv(int_imm(kMin, kI64), int_imm(3, kI64))), -3074457345618258603);
  EXPECT_EQ(value_of(floormod(int_imm(kMin, kI64), int_imm(3, kI64))), 1);
  EXPECT_EQ(value_of(floormod(int_imm(kMax, kI64), int_imm(-3, kI64))), -2);
  EXPECT_EQ(value_of(floormod(int_imm(-7, kI64), int_imm(3, kI64))), 2);
}

TEST(FoldOverflow, NarrowTypesWrapAtTheirWidth) {
  constexpr int64_t kMax32 = std::numeric_limits<int32_t>::max();
  EXPECT_EQ(value_of(int_imm(kMax32, kI32) + int_imm(1, kI32)), -kMax32 - 1);
  EXPECT_EQ(value_of(int_imm(65536, kI32) * int_imm(65536, kI32)), 0);
  EXPECT_EQ(value_of(int_imm(250, kU8) + int_imm(10, kU8)), 4);
  EXPECT_EQ(value_of(int_imm(3, kU8) - int_imm(4, kU8)), 255);
  EXPECT_EQ(value_of(cast(kI32, int_imm(kMax32 + 1, kI64))), -kMax32 - 1);
}

TEST(FoldOverflow, InRangeFoldsAreUnchanged) {
  EXPECT_EQ(value_of(int_imm(6, kI64) * int_imm(7, kI64)), 42);
  EXPECT_EQ(value_of(truncdiv(int_imm(-7, kI32), int_imm(2, kI32))), -3);
  EXPECT_EQ(value_of(floordiv(int_imm(-7, kI32), int_imm(2, kI32))), -4);
  EXPECT_EQ(value_of(min(int_imm(kMin, kI64), int_imm(kMax, kI64))), kMin);
}

}  // namespace
}  // namespace relax::tir
