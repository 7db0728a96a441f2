// pad, arange, eye, stack, tile, repeat, flip, one_hot: inference (static and symbolic shapes,
// errors) and kernels against index arithmetic written out with plain loops.
#include "ops_test_common.h"

namespace relax::ops_test {
namespace {

/// Shape `s` with dim 0 replaced by the symbolic `n`.
/// Value of `h` at multi-index `idx`.
double at(const Host& h, const std::vector<int64_t>& idx) {
  return h[size_t(offset(idx, h.shape))];
}

/// For every multi-index of `shape`, `f(idx)`, in row-major order.
std::vector<double> gen(const std::vector<int64_t>& shape,
                        const std::function<double(const std::vector<int64_t>&)>& f) {
  std::vector<double> out;
  for (int64_t i = 0; i < numel(shape); ++i) out.push_back(f(unravel(i, shape)));
  return out;
}

TEST(Pad, Inference) {
  OpRunner r;
  auto x = r.param("x", sym0({3, 4}), kF32);
  EXPECT_EQ(r.infer(op::pad(x, {1, 0, 2, 3})), "Tensor((n + 3, 7), float32)");
  EXPECT_ERROR_HAS(op::pad(x, {1, 2}), "relax.nn.pad: pad_width needs 2 * ndim = 4");
  auto y = r.param("y", {2, 4}, kF32);
  EXPECT_ERROR_HAS(op::pad(y, {2, 0, 0, 0}, "reflect"), "reflect padding of axis 0 (size 2)");
  EXPECT_ERROR_HAS(op::pad(y, {0, 0, 0, 0}, "wrap"), "pad_mode 'wrap' is not one of");
}

TEST(Pad, ConstantReflectEdge) {
  std::vector<int64_t> xs = {3, 4};
  auto xa = random(xs, kF32, 1);
  Host h = host_of(xa);
  std::vector<int64_t> pw = {1, 2, 2, 1};  // before 1, 2; after 2, 1
  std::vector<int64_t> os = {6, 7};
  for (std::string mode : {"constant", "reflect", "edge"}) {
    for (bool sym : {false, true}) {
      OpRunner r;
      auto x = sym ? r.param("x", sym0(xs), kF32) : r.param("x", xs, kF32);
      auto want = gen(os, [&](const std::vector<int64_t>& i) {
        std::vector<int64_t> j = {i[0] - 1, i[1] - 2};
        for (size_t k = 0; k < 2; ++k) {
          int64_t d = xs[k];
          if (mode == "constant" && (j[k] < 0 || j[k] >= d)) return 1.5;
          if (mode == "edge") j[k] = std::clamp<int64_t>(j[k], 0, d - 1);
          if (mode == "reflect") j[k] = j[k] < 0 ? -j[k] : (j[k] >= d ? 2 * (d - 1) - j[k] : j[k]);
        }
        return at(h, j);
      });
      SCOPED_TRACE(mode);
      EXPECT_TRUE(tensor_close_to(r.run1(op::pad(x, pw, mode, 1.5), {{x, xa}}), os, want));
    }
  }
}

TEST(Pad, Int8) {
  OpRunner r;
  auto x = r.param("x", {2, 2}, DataType::Int(8));
  auto xa = array_of({2, 2}, DataType::Int(8), {1, -2, 3, -4});
  std::vector<double> want = {0, 0, 1, -2, 3, -4, 0, 0};
  EXPECT_TRUE(tensor_close_to(r.run1(op::pad(x, {1, 0, 1, 0}), {{x, xa}}), {4, 2}, want));
}

TEST(Arange, Inference) {
  OpRunner r;
  EXPECT_EQ(r.infer(op::arange(int_imm(1), int_imm(10), int_imm(3))),
            "Tensor((3,), int64)");
  EXPECT_EQ(r.infer(op::arange(tir::float_imm(0), tir::float_imm(1), tir::float_imm(0.25))),
            "Tensor((4,), float32)");
  EXPECT_EQ(r.infer(op::arange(int_imm(5), int_imm(1))), "Tensor((0,), int64)");
  EXPECT_EQ(r.infer(op::arange(int_imm(0), n, int_imm(1), kI32)), "Tensor((n,), int32)");
  EXPECT_ERROR_HAS(op::arange(int_imm(0), int_imm(4), int_imm(0)),
                   "relax.arange: 'step' must not be zero");
  EXPECT_ERROR_HAS(op::arange(int_imm(0), n, n), "relax.arange: a symbolic range needs a constant step");
}

TEST(Arange, StaticFloatAndSymbolicInt) {
  OpRunner r;
  std::vector<double> want = {0.5, 0.25, 0, -0.25, -0.5};
  EXPECT_TRUE(tensor_close_to(
      r.run1(op::arange(tir::float_imm(0.5), tir::float_imm(-0.6), tir::float_imm(-0.25)), {}), {5},
      want));
  // Symbolic end: the length n comes from a parameter's shape.
  OpRunner r2;
  auto x = r2.param("x", std::vector<PrimExpr>{n}, kF32);
  (void)x;
  auto xa = random({7}, kF32, 2);
  want.clear();
  for (int i = 0; i < 3; ++i) want.push_back(2 + 2 * i);
  EXPECT_TRUE(
      tensor_close_to(r2.run1(op::arange(int_imm(2), n, int_imm(2), kI32), {{x, xa}}), {3}, want));
}

TEST(Eye, InferenceAndRun) {
  OpRunner r;
  EXPECT_EQ(r.infer(op::eye(n, int_imm(4))), "Tensor((n, 4), float32)");
  EXPECT_ERROR_HAS(op::eye(tir::float_imm(2), int_imm(4)), "relax.eye: 'n' and 'm' should be integers");
  for (int64_t k : {0, 1, -2}) {
    OpRunner r2;
    auto want = gen({3, 4}, [&](const std::vector<int64_t>& i) { return i[1] - i[0] == k ? 1. : 0.; });
    EXPECT_TRUE(
        tensor_close_to(r2.run1(op::eye(int_imm(3), int_imm(4), k, kI32), {}), {3, 4}, want));
  }
}

TEST(Stack, InferenceAndRun) {
  for (bool sym : {false, true}) {
    OpRunner r;
    std::vector<int64_t> s = {2, 3};
    auto a = sym ? r.param("a", sym0(s), kF32) : r.param("a", s, kF32);
    auto b = sym ? r.param("b", sym0(s), kF32) : r.param("b", s, kF32);
    EXPECT_EQ(r.infer(op::stack({a, b}, -1)),
              sym ? "Tensor((n, 3, 2), float32)" : "Tensor((2, 3, 2), float32)");
    auto aa = random(s, kF32, 3), ba = random(s, kF32, 4);
    Host ha = host_of(aa), hb = host_of(ba);
    auto want = gen({2, 2, 3}, [&](const std::vector<int64_t>& i) {
      return at(i[1] == 0 ? ha : hb, {i[0], i[2]});
    });
    EXPECT_TRUE(tensor_close_to(r.run1(op::stack({a, b}, 1), {{a, aa}, {b, ba}}), {2, 2, 3}, want));
  }
  OpRunner r;
  auto a = r.param("a", {2, 3}, kF32);
  auto c = r.param("c", {2, 4}, kF32);
  EXPECT_ERROR_HAS(op::stack({a, c}), "relax.stack: element 1 has shape");
  EXPECT_ERROR_HAS(op::stack({a, a}, 3), "relax.stack: axis 3 is out of range");
}

TEST(Tile, InferenceAndRun) {
  OpRunner r;
  auto x = r.param("x", sym0({2, 3}), kI32);
  EXPECT_EQ(r.infer(op::tile(x, {2, 1, 2})), "Tensor((2, n, 6), int32)");
  EXPECT_EQ(r.infer(op::tile(x, {3})), "Tensor((n, 9), int32)");
  EXPECT_ERROR_HAS(op::tile(x, {-1}), "relax.tile: repeats must be non-negative");
  auto xa = random({2, 3}, kI32, 5, -50, 50);
  Host h = host_of(xa);
  auto want = gen({2, 2, 6}, [&](const std::vector<int64_t>& i) { return at(h, {i[1] % 2, i[2] % 3}); });
  EXPECT_TRUE(tensor_close_to(r.run1(op::tile(x, {2, 1, 2}), {{x, xa}}), {2, 2, 6}, want));
}

TEST(Repeat, InferenceAndRun) {
  OpRunner r;
  auto x = r.param("x", sym0({2, 3}), kF32);
  EXPECT_EQ(r.infer(op::repeat(x, 2, -1)), "Tensor((n, 6), float32)");
  EXPECT_EQ(r.infer(op::repeat(x, 2)), "Tensor((n * 6,), float32)");
  EXPECT_ERROR_HAS(op::repeat(x, 2, 2), "relax.repeat: axis 2 is out of range");
  auto xa = random({2, 3}, kF32, 6);
  Host h = host_of(xa);
  auto want = gen({2, 6}, [&](const std::vector<int64_t>& i) { return at(h, {i[0], i[1] / 2}); });
  EXPECT_TRUE(tensor_close_to(r.run1(op::repeat(x, 2, -1), {{x, xa}}), {2, 6}, want));
  OpRunner r2;
  auto x2 = r2.param("x", {2, 3}, kF32);
  auto want2 = gen({18}, [&](const std::vector<int64_t>& i) { return h[size_t(i[0] / 3)]; });
  EXPECT_TRUE(tensor_close_to(r2.run1(op::repeat(x2, 3), {{x2, xa}}), {18}, want2));
}

TEST(Flip, InferenceAndRun) {
  OpRunner r;
  auto x = r.param("x", sym0({3, 4}), DataType::Int(64));
  EXPECT_EQ(r.infer(op::flip(x, -2)), "Tensor((n, 4), int64)");
  EXPECT_ERROR_HAS(op::flip(x, 2), "relax.flip: axis 2 is out of range for a tensor of rank 2");
  auto xa = random({3, 4}, kI64, 7, -100, 100);
  Host h = host_of(xa);
  auto want = gen({3, 4}, [&](const std::vector<int64_t>& i) { return at(h, {2 - i[0], i[1]}); });
  EXPECT_TRUE(tensor_close_to(r.run1(op::flip(x, -2), {{x, xa}}), {3, 4}, want));
}

TEST(OneHot, InferenceAndRun) {
  OpRunner r;
  auto ind = r.param("ind", sym0({3}), kI32);
  EXPECT_EQ(r.infer(op::one_hot(ind, tir::float_imm(1), tir::float_imm(0), 4, 0)),
            "Tensor((4, n), float32)");
  EXPECT_ERROR_HAS(op::one_hot(ind, int_imm(1), int_imm(0), 0), "relax.one_hot: depth must be positive");
  EXPECT_ERROR_HAS(op::one_hot(ind, int_imm(1), tir::float_imm(0), 3),
                   "relax.one_hot: 'on_value' (int64) and 'off_value' (float32)");
  auto ia = array_of({3}, kI32, {0, -1, 2});
  auto want = gen({4, 3}, [&](const std::vector<int64_t>& i) {
    int64_t k = std::vector<int64_t>{0, 3, 2}[size_t(i[1])];
    return k == i[0] ? 5. : -1.;
  });
  EXPECT_TRUE(tensor_close_to(
      r.run1(op::one_hot(ind, int_imm(5, kI32), int_imm(-1, kI32), 4, 0), {{ind, ia}}), {4, 3},
      want));
}


TEST(LayoutTransform, InferenceAndErrors) {
  OpRunner r;
  auto x = r.param("x", sym0({10, 3}), kF32);
  Ref<tir::Var> i = tir::var("i"), j = tir::var("j");
  EXPECT_EQ(r.infer(op::layout_transform(x, {i, j}, {tir::floordiv(i, 4), j, tir::floormod(i, 4)})),
            "Tensor(((n + 3) // 4, 3, 4), float32)");
  EXPECT_ERROR_HAS(op::layout_transform(x, {i}, {i}),
                   "relax.layout_transform: the index map lambda i: (i) takes 1 indices but the "
                   "tensor has rank 2");
  EXPECT_ERROR_HAS(op::layout_transform(x, {i, j}, {j - i, i}), "may be negative");
}

TEST(LayoutTransform, PermuteAndPaddedTiling) {
  auto xa = random({10, 3}, kF32, 12);
  Host h = host_of(xa);
  Ref<tir::Var> i = tir::var("i"), j = tir::var("j");
  // (i, j) -> (j, i // 4, i % 4): 10 rows tile into 3 x 4 with two padded positions.
  for (bool sym : {false, true}) {
    OpRunner r;
    auto x = sym ? r.param("x", sym0({10, 3}), kF32) : r.param("x", {10, 3}, kF32);
    auto want = gen({3, 3, 4}, [&](const std::vector<int64_t>& o) {
      int64_t row = o[1] * 4 + o[2];
      return row < 10 ? at(h, {row, o[0]}) : -7.0;
    });
    EXPECT_TRUE(tensor_close_to(
        r.run1(op::layout_transform(x, {i, j}, {j, tir::floordiv(i, 4), tir::floormod(i, 4)}, -7.0),
               {{x, xa}}),
        {3, 3, 4}, want));
  }
  // A map that is not a rearrangement (two indices summed) infers, but legalisation names it.
  OpRunner r;
  auto x = r.param("x", {10, 3}, kF32);
  EXPECT_EQ(r.infer(op::layout_transform(x, {i, j}, {i + j})), "Tensor((12,), float32)");
  BlockBuilder bb;
  bb.begin_function("main", {x});
  Expr norm = bb.normalize(op::layout_transform(x, {i, j}, {i + j}));
  std::string err =
      test::error_of([&] { norm.as<Call>()->op.as<Op>()->info->legalize(bb, *norm.as<Call>()); });
  EXPECT_NE(err.find("relax.layout_transform: cannot invert the index map"), std::string::npos)
      << err;
}

}  // namespace
}  // namespace relax::ops_test
