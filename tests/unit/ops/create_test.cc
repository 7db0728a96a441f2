// Creation ops (full, zeros, ones and the _like forms) and tril / triu.
#include "ops_test_common.h"

namespace relax::ops_test {
namespace {

class Create : public ::testing::TestWithParam<bool> {};

TEST_P(Create, FullZerosOnes) {
  bool sym = GetParam();
  OpRunner r;
  // n is defined by x's shape; the created tensors use it (a tir_var for zeros/ones).
  auto x = r.param("x", {sym ? PrimExpr(n) : int_imm(2), int_imm(3)}, kF32);
  auto v = r.param("v", std::vector<int64_t>{}, kF32);
  auto xa = random({2, 3}, kF32, 1);
  auto va = array_of({}, kF32, {2.5});
  std::vector<PrimExpr> shape = {sym ? PrimExpr(n) : int_imm(2), int_imm(3)};
  EXPECT_TRUE(tensor_close_to(r.run1(op::full(shape, v, kI32), {{x, xa}, {v, va}}), {2, 3},
                              std::vector<double>(6, 2)));
  OpRunner r2;
  auto x2 = r2.param("x", {sym ? PrimExpr(n) : int_imm(2), int_imm(3)}, kF32);
  auto v2 = r2.param("v", std::vector<int64_t>{}, kF32);
  EXPECT_TRUE(tensor_close_to(r2.run1(op::full_like(x2, v2), {{x2, xa}, {v2, va}}), {2, 3},
                              std::vector<double>(6, 2.5)));
  for (int one = 0; one < 2; ++one) {
    OpRunner r3;
    auto x3 = r3.param("x", {sym ? PrimExpr(n) : int_imm(2), int_imm(3)}, kF32);
    // zeros/ones read no tensor: n reaches the kernel as a scalar parameter.
    Expr made = one ? op::ones({int_imm(4), sym ? PrimExpr(n) : int_imm(2)}, kI64)
                    : op::zeros({int_imm(4), sym ? PrimExpr(n) : int_imm(2)}, kF32);
    EXPECT_TRUE(tensor_close_to(r3.run1(made, {{x3, xa}}), {4, 2}, std::vector<double>(8, one)));
    OpRunner r4;
    auto x4 = r4.param("x", {sym ? PrimExpr(n) : int_imm(2), int_imm(3)}, kF32);
    Expr like = one ? op::ones_like(x4, kBool) : op::zeros_like(x4);
    EXPECT_TRUE(tensor_close_to(r4.run1(like, {{x4, xa}}), {2, 3}, std::vector<double>(6, one)));
  }
}

TEST_P(Create, TrilTriu) {
  bool sym = GetParam();
  for (int k : {0, 1, -1}) {
    for (bool lower : {true, false}) {
      OpRunner r;
      auto x = r.param("x", {int_imm(2), sym ? PrimExpr(n) : int_imm(3), int_imm(4)}, kF32);
      auto xa = random({2, 3, 4}, kF32, 2);
      Host h = host_of(xa);
      std::vector<double> want;
      for (int b = 0; b < 2; ++b)
        for (int i = 0; i < 3; ++i)
          for (int j = 0; j < 4; ++j) {
            bool keep = lower ? j <= i + k : j >= i + k;
            want.push_back(keep ? h[size_t((b * 3 + i) * 4 + j)] : 0);
          }
      EXPECT_TRUE(tensor_close_to(r.run1(lower ? op::tril(x, k) : op::triu(x, k), {{x, xa}}),
                                  {2, 3, 4}, want));
    }
  }
}

INSTANTIATE_TEST_SUITE_P(Ops, Create, ::testing::Values(false, true), [](const auto& info) {
  return info.param ? std::string("Symbolic") : std::string("Static");
});

TEST(CreateInfer, ShapesAndErrors) {
  OpRunner r;
  auto x = r.param("x", {PrimExpr(n), int_imm(3)}, kF32);
  auto v = r.param("v", std::vector<int64_t>{}, kF32);
  auto vec = r.param("vec", std::vector<int64_t>{2}, kF32);
  EXPECT_EQ(r.infer(op::full({PrimExpr(n), int_imm(2)}, v)), "Tensor((n, 2), float32)");
  EXPECT_EQ(r.infer(op::zeros_like(x, kI32)), "Tensor((n, 3), int32)");
  EXPECT_ERROR_HAS(op::full({int_imm(2)}, vec),
                   "relax.full: 'fill_value' should be a scalar (rank 0) tensor, got rank 1");
  EXPECT_ERROR_HAS(op::zeros({int_imm(-2)}, kF32),
                   "relax.zeros: dimensions must be non-negative, got -2");
  EXPECT_ERROR_HAS(call_op("relax.ones", {make_shape({int_imm(2)})}),
                   "relax.ones: attribute 'dtype' is required");
  EXPECT_ERROR_HAS(op::tril(vec), "relax.tril: needs a tensor of rank at least 2, got rank 1");
}

}  // namespace
}  // namespace relax::ops_test
