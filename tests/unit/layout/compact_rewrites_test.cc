// The compact layout rewrites: arith::IndexMap inversion and composition (checked by walking
// every index of small shapes), and relax.layout_transform / relax.pad / relax.crop legalised
// and run in the interpreter against plain-loop references.
#include "../ops/ops_test_common.h"
#include "relax/arith/index_map.h"

#include <set>

namespace relax::ops_test {
namespace {

using arith::IndexMap;
using tir::floordiv;
using tir::floormod;

Ref<tir::Var> V(const char* name) { return tir::var(name); }

double at(const Host& h, const std::vector<int64_t>& idx) { return h[size_t(offset(idx, h.shape))]; }

/// f(idx) for every multi-index of `shape`, row-major.
std::vector<double> gen(const std::vector<int64_t>& shape,
                        const std::function<double(const std::vector<int64_t>&)>& f) {
  std::vector<double> out;
  for (int64_t i = 0; i < numel(shape); ++i) out.push_back(f(unravel(i, shape)));
  return out;
}

/// The integer values of `exprs` with `vars` bound to `values`.
std::vector<int64_t> eval(const std::vector<Ref<tir::Var>>& vars, const std::vector<PrimExpr>& exprs,
                          const std::vector<int64_t>& values) {
  std::vector<PrimExpr> imms;
  for (int64_t v : values) imms.push_back(int_imm(v));
  std::vector<int64_t> out;
  for (const PrimExpr& e : IndexMap{vars, exprs}.apply(imms)) {
    PrimExpr s = arith::simplify(e);
    const int64_t* c = tir::as_const_int(s);
    EXPECT_NE(c, nullptr) << tir::to_string(s);
    out.push_back(c ? *c : -1);
  }
  return out;
}

/// Every index of `shape` maps into the result shape and back to itself, and distinct
/// indices land on distinct positions.
void expect_round_trip(const IndexMap& m, const std::vector<int64_t>& shape) {
  auto inv = arith::inverse_map(m, const_shape(shape));
  ASSERT_TRUE(inv.has_value()) << m.to_string();
  auto oshape = arith::mapped_shape(m, const_shape(shape));
  ASSERT_TRUE(oshape.has_value());
  std::set<std::vector<int64_t>> seen;
  for (int64_t f = 0; f < numel(shape); ++f) {
    std::vector<int64_t> idx = unravel(f, shape);
    std::vector<int64_t> o = eval(m.vars, m.results, idx);
    for (size_t k = 0; k < o.size(); ++k) {
      const int64_t* e = tir::as_const_int((*oshape)[k]);
      ASSERT_NE(e, nullptr);
      EXPECT_TRUE(o[k] >= 0 && o[k] < *e) << m.to_string();
    }
    EXPECT_TRUE(seen.insert(o).second) << m.to_string();
    EXPECT_EQ(eval(inv->vars, inv->results, o), idx) << m.to_string() << " inverse "
                                                     << inv->to_string();
  }
}

TEST(IndexMap, InvertsRearrangements) {
  auto n = V("n"), c = V("c"), h = V("h"), w = V("w"), a = V("a"), b = V("b"), e = V("e");
  // Tiling NCHW -> NCHW4c, and with a channel count that does not divide (padded).
  IndexMap tile{{n, c, h, w}, {n, floordiv(c, 4), h, w, floormod(c, 4)}};
  expect_round_trip(tile, {2, 8, 2, 3});
  bool padded = true;
  ASSERT_TRUE(arith::inverse_map(tile, const_shape({2, 8, 2, 3}), &padded));
  EXPECT_FALSE(padded);
  expect_round_trip(tile, {1, 6, 2, 2});
  ASSERT_TRUE(arith::inverse_map(tile, const_shape({1, 6, 2, 2}), &padded));
  EXPECT_TRUE(padded);
  // Untiling [a * 4 + c, b]: the inverse needs floordiv / floormod.
  IndexMap untile{{a, b, e}, {a * 4 + e, b}};
  expect_round_trip(untile, {3, 5, 4});
  EXPECT_EQ(arith::inverse_map(untile, const_shape({3, 5, 4}))->to_string(),
            "lambda ax0, ax1: (ax0 // 4, ax1, ax0 % 4)");
  // Permutation, fusing two axes, splitting one axis three ways.
  expect_round_trip(IndexMap{{n, c, h}, {h, n, c}}, {2, 3, 4});
  expect_round_trip(IndexMap{{a, b}, {a * 3 + b}}, {4, 3});
  expect_round_trip(IndexMap{{a}, {floordiv(a, 8), floormod(floordiv(a, 2), 4), floormod(a, 2)}},
                    {24});
  // A unit axis may disappear, a constant 0 result is a unit axis (the bias of the design).
  expect_round_trip(IndexMap{{a, b, e}, {floordiv(a, 4), int_imm(0), int_imm(0), floormod(a, 4)}},
                    {8, 1, 1});
}

TEST(IndexMap, RejectsNonRearrangements) {
  auto a = V("a"), b = V("b");
  std::vector<PrimExpr> shape = const_shape({4, 4});
  EXPECT_FALSE(arith::inverse_map(IndexMap{{a, b}, {a + b}}, shape));       // overlap
  EXPECT_FALSE(arith::inverse_map(IndexMap{{a, b}, {a + 1, b}}, shape));    // offset
  EXPECT_FALSE(arith::inverse_map(IndexMap{{a, b}, {a}}, shape));           // b dropped
  EXPECT_FALSE(arith::inverse_map(IndexMap{{a, b}, {a, a}}, shape));        // a twice
  EXPECT_FALSE(arith::inverse_map(IndexMap{{a, b}, {a * 2 + b}}, shape));   // not dense
  EXPECT_FALSE(arith::inverse_map(IndexMap{{a}, {a, b}}, const_shape({4})));  // foreign var
}

TEST(IndexMap, ComposesAndCancels) {
  auto n = V("n"), c = V("c"), h = V("h"), w = V("w");
  std::vector<PrimExpr> nchw = const_shape({1, 8, 3, 3});
  IndexMap tile{{n, c, h, w}, {n, floordiv(c, 4), h, w, floormod(c, 4)}};
  auto inv = arith::inverse_map(tile, nchw);
  ASSERT_TRUE(inv);
  EXPECT_TRUE(arith::is_identity_map(arith::compose_maps(tile, *inv, nchw), nchw));
  auto tiled = arith::mapped_shape(tile, nchw);
  EXPECT_TRUE(arith::is_identity_map(arith::compose_maps(*inv, tile, *tiled), *tiled));
  // Two permutations compose into one; NCHW -> NHWC -> NCHW cancels.
  IndexMap to_nhwc{{n, c, h, w}, {n, h, w, c}};
  auto back = arith::inverse_map(to_nhwc, nchw);
  EXPECT_TRUE(arith::is_identity_map(arith::compose_maps(to_nhwc, *back, nchw), nchw));
  IndexMap swap{{n, c, h, w}, {n, c, w, h}};
  IndexMap both = arith::compose_maps(to_nhwc, swap, nchw);
  EXPECT_EQ(*arith::as_permutation(both), (std::vector<int64_t>{0, 2, 1, 3}));
  EXPECT_FALSE(arith::is_identity_map(both, nchw));
  // Tiling by 4 then untiling by 2 is not the identity.
  auto a = V("a"), b = V("b"), x = V("x"), y = V("y"), z = V("z");
  IndexMap t4{{a, b}, {floordiv(a, 4), b, floormod(a, 4)}};
  IndexMap u2{{x, y, z}, {x * 2 + z, y}};
  EXPECT_FALSE(arith::is_identity_map(arith::compose_maps(t4, u2, const_shape({8, 2})),
                                      const_shape({8, 2})));
}

TEST(LayoutTransformOp, UntileFuseAndSplit) {
  Ref<tir::Var> a = V("a"), b = V("b"), e = V("e");
  auto xa = random({3, 5, 4}, kF32, 7);
  Host h = host_of(xa);
  OpRunner r;
  auto x = r.param("x", {3, 5, 4}, kF32);
  // out[a * 4 + e, b] = x[a, b, e]
  auto want = gen({12, 5}, [&](const std::vector<int64_t>& o) {
    return at(h, {o[0] / 4, o[1], o[0] % 4});
  });
  EXPECT_TRUE(tensor_close_to(r.run1(op::layout_transform(x, {a, b, e}, {a * 4 + e, b}), {{x, xa}}),
                              {12, 5}, want));
  // Fusing all three axes into one, in another order: out[b * 12 + a * 4 + e].
  auto want2 = gen({60}, [&](const std::vector<int64_t>& o) {
    return at(h, {(o[0] % 12) / 4, o[0] / 12, o[0] % 4});
  });
  EXPECT_TRUE(tensor_close_to(
      r.run1(op::layout_transform(x, {a, b, e}, {b * 12 + a * 4 + e}), {{x, xa}}), {60}, want2));
  // A map that is not a rearrangement infers but cannot legalise: the error names the map.
  BlockBuilder bb;
  bb.begin_function("main", {x});
  Expr norm = bb.normalize(op::layout_transform(x, {a, b, e}, {a + b, e}));
  std::string err =
      test::error_of([&] { norm.as<Call>()->op.as<Op>()->info->legalize(bb, *norm.as<Call>()); });
  EXPECT_NE(err.find("relax.layout_transform: cannot invert the index map lambda a, b, e: "
                     "(a + b, e)"),
            std::string::npos)
      << err;
}

TEST(PadCropOps, InferRunAndErrors) {
  auto xa = random({3, 4}, kF32, 3);
  Host h = host_of(xa);
  OpRunner r;
  auto x = r.param("x", {3, 4}, kF32);
  EXPECT_EQ(r.infer(op::rx_pad(x, {1, 0, 2, 3}, 5.0)), "Tensor((4, 9), float32)");
  auto want = gen({4, 9}, [&](const std::vector<int64_t>& o) {
    int64_t i = o[0] - 1, j = o[1] - 2;
    return (i >= 0 && j >= 0 && j < 4) ? at(h, {i, j}) : 5.0;
  });
  EXPECT_TRUE(tensor_close_to(r.run1(op::rx_pad(x, {1, 0, 2, 3}, 5.0), {{x, xa}}), {4, 9}, want));
  EXPECT_EQ(r.infer(op::crop(x, {1, 1}, {2, 3}, 0.0)), "Tensor((2, 3), float32)");
  auto want2 = gen({2, 3}, [&](const std::vector<int64_t>& o) { return at(h, {o[0] + 1, o[1] + 1}); });
  EXPECT_TRUE(tensor_close_to(r.run1(op::crop(x, {1, 1}, {2, 3}), {{x, xa}}), {2, 3}, want2));
  EXPECT_ERROR_HAS(op::rx_pad(x, {1, 0}), "relax.pad: pad_width needs 2 * ndim = 4");
  EXPECT_ERROR_HAS(op::rx_pad(x, {1, 0, -1, 0}), "relax.pad: pad_width values must be non-negative");
  EXPECT_ERROR_HAS(op::crop(x, {0}, {1, 2}), "relax.crop: start_indices has 1 values but slice_sizes has 2");
  EXPECT_ERROR_HAS(op::crop(x, {2, 0}, {2, 4}), "relax.crop: axis 0 ends at 4, past the axis's size 3");
  EXPECT_ERROR_HAS(op::crop(x, {0}, {1}), "relax.crop: start_indices and slice_sizes need one value per axis (2)");
}

}  // namespace
}  // namespace relax::ops_test
