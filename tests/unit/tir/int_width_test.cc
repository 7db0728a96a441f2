// Integer operands of different widths: an int32 variable beside int64 constants (hand-written
// TVMScript declares `n = T.int32()` while buffer shapes and literals are int64) is widened to
// int64, as TVM matches them; other mismatches (signedness, float with int) stay internal
// errors of the caller.
#include <gtest/gtest.h>

#include "relax/support/diagnostic.h"
#include "relax/tir/expr.h"

namespace relax::tir {
namespace {

TEST(IntWidth, TheNarrowerOperandIsWidened) {
  Ref<Var> n = var("n", DataType::Int(32));
  PrimExpr e = PrimExpr(n) * int_imm(20, DataType::Int(64));
  EXPECT_EQ(e->dtype, DataType::Int(64));
  EXPECT_EQ(to_string(e), to_string(cast(DataType::Int(64), n) * int_imm(20, DataType::Int(64))));
  EXPECT_EQ((int_imm(3, DataType::Int(64)) + PrimExpr(n))->dtype, DataType::Int(64));
  EXPECT_EQ(lt(PrimExpr(n), int_imm(7, DataType::Int(64)))->dtype, DataType::Bool());
  EXPECT_EQ(floordiv(int_imm(9, DataType::Int(16)), int_imm(2, DataType::Int(64))).as<IntImm>()->value,
            4);
  EXPECT_EQ(max(PrimExpr(n), int_imm(1, DataType::Int(8)))->dtype, DataType::Int(32));
}

TEST(IntWidth, OtherMismatchesAreInternalErrors) {
  Ref<Var> n = var("n", DataType::Int(32));
  EXPECT_THROW(PrimExpr(n) + int_imm(1, DataType::UInt(64)), InternalError);
  EXPECT_THROW(PrimExpr(n) + float_imm(1.0, DataType::Float(32)), InternalError);
}

}  // namespace
}  // namespace relax::tir
