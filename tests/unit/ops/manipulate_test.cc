// Data movement: reshape, flatten, permute_dims, squeeze, expand_dims, broadcast_to, concat,
// split, strided_slice, take — against index arithmetic written out in the test.
#include "ops_test_common.h"

namespace relax::ops_test {
namespace {

/// A param of `shape`, with the first dim replaced by `n` when symbolic.
class Manipulate : public ::testing::TestWithParam<bool> {};

TEST_P(Manipulate, ReshapeAndFlattenKeepRowMajorOrder) {
  bool sym = GetParam();
  OpRunner r;
  auto x = param(r, "x", {3, 2, 4}, sym);
  auto xa = random({3, 2, 4}, kF32, 1);
  std::vector<double> want = host_of(xa).data;
  std::vector<PrimExpr> target = {int_imm(-1), int_imm(6)};
  EXPECT_TRUE(tensor_close_to(r.run1(op::reshape(x, target), {{x, xa}}), {4, 6}, want));
  OpRunner r2;
  auto x2 = param(r2, "x", {3, 2, 4}, sym);
  EXPECT_TRUE(tensor_close_to(r2.run1(op::flatten(x2), {{x2, xa}}), {24}, want));
}

TEST_P(Manipulate, PermuteDims) {
  bool sym = GetParam();
  OpRunner r;
  auto x = param(r, "x", {2, 3, 4}, sym);
  auto xa = random({2, 3, 4}, kF32, 2);
  Host h = host_of(xa);
  std::vector<double> want;
  for (int k = 0; k < 4; ++k)
    for (int i = 0; i < 2; ++i)
      for (int j = 0; j < 3; ++j) want.push_back(h[size_t((i * 3 + j) * 4 + k)]);
  EXPECT_TRUE(tensor_close_to(r.run1(op::permute_dims(x, std::vector<int64_t>{2, 0, 1}), {{x, xa}}),
                              {4, 2, 3}, want));
}

TEST_P(Manipulate, SqueezeExpandDimsBroadcastTo) {
  bool sym = GetParam();
  auto xa = random({3, 1, 4}, kF32, 3);
  std::vector<double> same = host_of(xa).data;
  OpRunner r;
  auto x = param(r, "x", {3, 1, 4}, sym);
  EXPECT_TRUE(
      tensor_close_to(r.run1(op::squeeze(x, std::vector<int64_t>{1}), {{x, xa}}), {3, 4}, same));
  OpRunner r2;
  auto x2 = param(r2, "x", {3, 1, 4}, sym);
  EXPECT_TRUE(
      tensor_close_to(r2.run1(op::expand_dims(x2, {0, -1}), {{x2, xa}}), {1, 3, 1, 4, 1}, same));
  OpRunner r3;
  auto x3 = param(r3, "x", {3, 1, 4}, sym);
  std::vector<PrimExpr> to = {int_imm(2), sym ? PrimExpr(n) : int_imm(3), int_imm(5), int_imm(4)};
  std::vector<double> want;
  for (int a = 0; a < 2; ++a)
    for (int i = 0; i < 3; ++i)
      for (int j = 0; j < 5; ++j)
        for (int k = 0; k < 4; ++k) want.push_back(same[size_t(i * 4 + k)]);
  EXPECT_TRUE(tensor_close_to(r3.run1(op::broadcast_to(x3, to), {{x3, xa}}), {2, 3, 5, 4}, want));
}

TEST_P(Manipulate, ConcatAndSplit) {
  bool sym = GetParam();
  OpRunner r;
  auto a = param(r, "a", {2, 3}, sym);
  auto b = param(r, "b", {2, 1}, sym);
  auto aa = random({2, 3}, kF32, 4), ba = random({2, 1}, kF32, 5);
  Host ha = host_of(aa), hb = host_of(ba);
  std::vector<double> want;
  for (int i = 0; i < 2; ++i) {
    for (int j = 0; j < 3; ++j) want.push_back(ha[size_t(i * 3 + j)]);
    want.push_back(hb[size_t(i)]);
  }
  EXPECT_TRUE(tensor_close_to(r.run1(op::concat({a, b}, 1), {{a, aa}, {b, ba}}), {2, 4}, want));

  OpRunner r2;
  auto x = param(r2, "x", {2, 7}, sym);
  auto xa = random({2, 7}, kF32, 6);
  Host hx = host_of(xa);
  auto outs = r2.run(op::split(x, std::vector<int64_t>{2, 5}, 1), {{x, xa}});
  ASSERT_EQ(outs.size(), 3u);
  int64_t bounds[] = {0, 2, 5, 7};
  for (int p = 0; p < 3; ++p) {
    std::vector<double> piece;
    for (int i = 0; i < 2; ++i)
      for (int64_t j = bounds[p]; j < bounds[p + 1]; ++j) piece.push_back(hx[size_t(i * 7 + j)]);
    EXPECT_TRUE(tensor_close_to(outs[size_t(p)], {2, bounds[p + 1] - bounds[p]}, piece));
  }
  OpRunner r3;
  auto x3 = param(r3, "x", {4, 6}, sym);
  auto x3a = random({4, 6}, kF32, 7);
  auto halves = r3.run(op::split(x3, int64_t(3), 1), {{x3, x3a}});
  ASSERT_EQ(halves.size(), 3u);
  Host h3 = host_of(x3a);
  std::vector<double> mid;
  for (int i = 0; i < 4; ++i)
    for (int j = 2; j < 4; ++j) mid.push_back(h3[size_t(i * 6 + j)]);
  EXPECT_TRUE(tensor_close_to(halves[1], {4, 2}, mid));
}

TEST_P(Manipulate, StridedSlice) {
  bool sym = GetParam();
  OpRunner r;
  auto x = param(r, "x", {5, 8}, sym);
  auto xa = random({5, 8}, kF32, 8);
  Host h = host_of(xa);
  // x[1:100, -1:0:-3]: clamped end, negative start and stride.
  std::vector<double> want;
  for (int i = 1; i < 5; ++i)
    for (int j = 7; j > 0; j -= 3) want.push_back(h[size_t(i * 8 + j)]);
  EXPECT_TRUE(tensor_close_to(
      r.run1(op::strided_slice(x, {0, 1}, {1, -1}, {100, 0}, std::vector<int64_t>{1, -3}),
             {{x, xa}}),
      {4, 3}, want));
}

TEST_P(Manipulate, Take) {
  bool sym = GetParam();
  OpRunner r;
  auto x = param(r, "x", {4, 3}, sym);
  auto idx = r.param("idx", std::vector<int64_t>{2, 2}, kI64);
  auto xa = random({4, 3}, kF32, 9);
  auto ia = array_of({2, 2}, kI64, {3, 0, -1, 1});
  Host h = host_of(xa);
  std::vector<double> want;
  for (int64_t k : {3, 0, 3, 1})
    for (int j = 0; j < 3; ++j) want.push_back(h[size_t(k * 3 + j)]);
  EXPECT_TRUE(tensor_close_to(r.run1(op::take(x, idx, 0), {{x, xa}, {idx, ia}}), {2, 2, 3}, want));
  OpRunner r2;
  auto x2 = param(r2, "x", {4, 3}, sym);
  auto idx2 = r2.param("idx", std::vector<int64_t>{3}, kI32);
  auto i2 = array_of({3}, kI32, {-5, 7, 2});
  std::vector<double> w2;
  for (int i = 0; i < 4; ++i)
    for (int64_t k : {0, 2, 2}) w2.push_back(h[size_t(i * 3 + k)]);
  EXPECT_TRUE(
      tensor_close_to(r2.run1(op::take(x2, idx2, 1, "clip"), {{x2, xa}, {idx2, i2}}), {4, 3}, w2));
}

INSTANTIATE_TEST_SUITE_P(Ops, Manipulate, ::testing::Values(false, true), [](const auto& info) {
  return info.param ? std::string("Symbolic") : std::string("Static");
});

TEST(ManipulateInfer, ShapesAndErrors) {
  OpRunner r;
  auto x = r.param("x", {PrimExpr(n), int_imm(1), int_imm(6)}, kF32);
  auto y = r.param("y", {PrimExpr(n), int_imm(2), int_imm(6)}, kF32);
  auto i = r.param("i", std::vector<int64_t>{5}, kF32);
  EXPECT_EQ(r.infer(op::concat({x, y}, 1)), "Tensor((n, 3, 6), float32)");
  EXPECT_EQ(r.infer(op::squeeze(x)), "Tensor((n, 6), float32)");
  EXPECT_EQ(
      r.infer(op::split(x, int64_t(3), 2)),
      "Tuple(Tensor((n, 1, 2), float32), Tensor((n, 1, 2), float32), Tensor((n, 1, 2), float32))");
  EXPECT_EQ(r.infer(op::strided_slice(x, {2}, {1}, {5}, std::vector<int64_t>{2})),
            "Tensor((n, 1, 2), float32)");
  EXPECT_ERROR_HAS(op::concat({x, y}, 0), "relax.concat: dimension 1 differs: 1 vs 2");
  EXPECT_ERROR_HAS(op::concat({x, i}, 0),
                   "relax.concat: element 1 has rank 1 but earlier ones have rank 3");
  EXPECT_ERROR_HAS(op::squeeze(y, std::vector<int64_t>{1}),
                   "relax.squeeze: axis 1 has size 2, not 1");
  EXPECT_ERROR_HAS(op::expand_dims(x, {4}),
                   "relax.expand_dims: axis 4 is out of range for a tensor of rank 4");
  EXPECT_ERROR_HAS(op::split(x, int64_t(4), 2),
                   "relax.split: axis of size 6 cannot be split into 4 equal sections");
  EXPECT_ERROR_HAS(op::strided_slice(x, {0}, {0}, {1}, std::vector<int64_t>{0}),
                   "relax.strided_slice: stride 0 on axis 0");
  EXPECT_ERROR_HAS(op::take(x, x, 0),
                   "relax.take: 'indices' should be an integer tensor, got float32");
  EXPECT_ERROR_HAS(op::broadcast_to(y, {int_imm(3), int_imm(6)}),
                   "cannot broadcast a tensor of rank 3 to rank 2");
}

}  // namespace
}  // namespace relax::ops_test
