// Integer literals at the edge of int64 and tensor dimensions the program could never
// allocate (issue 25): -9223372036854775808 parses (without negating INT64_MIN in C++) and
// prints back; 9223372036854775808 and beyond are errors at the literal; a negative constant
// tensor dimension or a tensor whose byte size overflows int64 is an error at the shape.
#include <limits>

#include "relax/ir/expr.h"
#include "text_test_util.h"

namespace relax {
namespace {

using testing::expect_fixed_point;
using testing::expect_parse_error;

constexpr int64_t kMin = std::numeric_limits<int64_t>::min();

/// A function binding `y = R.prim_value(<literal>)`.
std::string prim_value_module(const std::string& literal) {
  return "@R.function\ndef main(x: R.Tensor((4,), \"float32\")):\n    y = R.prim_value(" + literal +
         ")\n    return x\n";
}

/// The value bound to `y` in prim_value_module(literal).
int64_t bound_value(const IRModule& m) {
  auto* f = m.find("main").as<Function>();
  const Binding& b = f->body.as<SeqExpr>()->blocks.at(0)->bindings.at(0);
  auto* pv = b->value.as<PrimValue>();
  const int64_t* c = pv ? tir::as_const_int(pv->value) : nullptr;
  EXPECT_NE(c, nullptr);
  return c ? *c : 0;
}

TEST(ParserIntRange, Int64MinimumParsesAndRoundTrips) {
  EXPECT_EQ(bound_value(expect_fixed_point(prim_value_module("-9223372036854775808"))), kMin);
  EXPECT_EQ(bound_value(expect_fixed_point(prim_value_module("9223372036854775807"))),
            std::numeric_limits<int64_t>::max());
  EXPECT_EQ(bound_value(expect_fixed_point(prim_value_module("-0x8000000000000000"))), kMin);
}

TEST(ParserIntRange, LiteralsBeyondInt64AreErrors) {
  expect_parse_error(prim_value_module("9223372036854775808"),
                     "integer literal 9223372036854775808 is out of range: an int64 is at most "
                     "9223372036854775807",
                     3, 22);
  expect_parse_error(prim_value_module("-9223372036854775809"),
                     "integer literal 9223372036854775809 is out of range", 3, 23);
  expect_parse_error(prim_value_module("18446744073709551616"),
                     "integer literal 18446744073709551616 is out of range", 3, 22);
  expect_parse_error(prim_value_module("-(-9223372036854775808)"),
                     "negating -9223372036854775808 overflows int64", 3, 22);
  // In attributes and shapes too.
  expect_parse_error(
      "@R.function\ndef main(x: R.Tensor((4,), \"float32\")):\n"
      "    y = R.sum(x, axis=[9223372036854775808])\n    return y\n",
      "integer literal 9223372036854775808 is out of range", 3, 24);
  expect_parse_error(
      "@R.function\ndef main(x: R.Tensor((9223372036854775808,), \"float32\")):\n"
      "    return x\n",
      "integer literal 9223372036854775808 is out of range", 2, 23);
}

TEST(ParserIntRange, NegativeTensorDimensionIsAnErrorAtIt) {
  expect_parse_error("@R.function\ndef main(x: R.Tensor((-4, 3), \"float32\")):\n    return x\n",
                     "dimension 0 of R.Tensor is -4; a tensor dimension must be >= 0", 2, 23);
  expect_parse_error("@R.function\ndef main(x: R.Tensor((2, -1), \"float32\")):\n    return x\n",
                     "dimension 1 of R.Tensor is -1; a tensor dimension must be >= 0", 2, 26);
  expect_parse_error("@R.function\ndef main(x: R.Tensor[(3, -2), \"float32\"]):\n    return x\n",
                     "dimension 1 of R.Tensor is -2", 2, 26);
  // Symbolic dimensions and zero are fine.
  expect_fixed_point("@R.function\ndef main(x: R.Tensor((n, 0), \"float32\")):\n    return x\n");
}

TEST(ParserIntRange, TensorLargerThanInt64BytesIsAnError) {
  expect_parse_error(
      "@R.function\ndef main(x: R.Tensor((4611686018427387904, 2), \"float32\")):\n"
      "    return x\n",
      "R.Tensor((4611686018427387904, 2), \"float32\") is too large: its size in bytes does "
      "not fit in int64",
      2, 22);
  // The largest int8 tensor that fits is accepted.
  expect_fixed_point(
      "@R.function\ndef main(x: R.Tensor((9223372036854775807,), \"int8\")):\n    return x\n");
}

}  // namespace
}  // namespace relax
