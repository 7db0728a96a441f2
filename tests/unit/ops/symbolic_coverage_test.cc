// The shape variants the per-area op tests leave out: each op here was run there with only
// static or only symbolic shapes (the audit: RELAX_OPS_COVERAGE in op_test_util.h), and runs
// here with the other, against plain loops.
#include <algorithm>
#include <numeric>

#include "op_test_util.h"

namespace relax::ops_test {
namespace {

/// Element `idx` of row-major `h`.
double at(const Host& h, const std::vector<int64_t>& idx) {
  int64_t off = 0;
  for (size_t k = 0; k < idx.size(); ++k) off = off * h.shape[k] + idx[k];
  return h[size_t(off)];
}

/// Row-major values of `shape` from `f(index)`.
template <class F>
std::vector<double> gen(const std::vector<int64_t>& shape, F f) {
  std::vector<double> v;
  for (int64_t i = 0; i < numel(shape); ++i) v.push_back(f(unravel(i, shape)));
  return v;
}

TEST(SymbolicCoverage, ArgsortSymbolicRowsIsStable) {
  OpRunner r;
  Ref<tir::Var> n = tir::var("n");
  auto x = r.param("x", {PrimExpr(n), int_imm(6)}, kI32);
  auto xa = random({3, 6}, kI32, 11, -2, 2);  // many ties
  Host h = host_of(xa);
  for (bool desc : {false, true}) {
    std::vector<double> want;
    for (int64_t i = 0; i < 3; ++i) {
      std::vector<int64_t> idx(6);
      std::iota(idx.begin(), idx.end(), 0);
      std::stable_sort(idx.begin(), idx.end(), [&](int64_t a, int64_t b) {
        double va = at(h, {i, a}), vb = at(h, {i, b});
        return desc ? va > vb : va < vb;
      });
      for (int64_t j : idx) want.push_back(double(j));
    }
    SCOPED_TRACE(desc ? "descending" : "ascending");
    EXPECT_TRUE(tensor_close_to(r.run1(op::argsort(x, -1, desc, kI64), {{x, xa}}), {3, 6}, want));
  }
}

TEST(SymbolicCoverage, CumprodStatic) {
  auto xa = random({3, 4}, kF32, 12, 0.5, 1.5);
  Host h = host_of(xa);
  for (bool exclusive : {false, true}) {
    SCOPED_TRACE(exclusive ? "exclusive" : "inclusive");
    OpRunner r;
    auto x = r.param("x", {3, 4}, kF32);
    auto want = gen({3, 4}, [&](const std::vector<int64_t>& i) {
      double p = 1;
      for (int64_t k = 0; k < i[1] + (exclusive ? 0 : 1); ++k) p *= at(h, {i[0], k});
      return p;
    });
    EXPECT_TRUE(tensor_close_to(r.run1(op::cumprod(x, 1, DataType::Void(), exclusive), {{x, xa}}),
                                {3, 4}, want));
    // No axis: over the flattened tensor.
    OpRunner r2;
    auto x2 = r2.param("x", {3, 4}, kF32);
    std::vector<double> flat;
    double p = 1;
    for (size_t k = 0; k < h.size(); ++k) {
      if (!exclusive) p *= h[k];
      flat.push_back(p);
      if (exclusive) p *= h[k];
    }
    EXPECT_TRUE(tensor_close_to(
        r2.run1(op::cumprod(x2, std::nullopt, DataType::Void(), exclusive), {{x2, xa}}), {12}, flat,
        1e-5, 1e-6));
  }
}

TEST(SymbolicCoverage, EyeSymbolicRows) {
  for (int64_t k : {0, 2, -1}) {
    OpRunner r;
    Ref<tir::Var> n = tir::var("n");
    // The row count n is bound from this parameter's shape.
    auto x = r.param("x", std::vector<PrimExpr>{n}, kF32);
    auto xa = random({5}, kF32, 13);
    auto want =
        gen({5, 4}, [&](const std::vector<int64_t>& i) { return i[1] - i[0] == k ? 1. : 0.; });
    SCOPED_TRACE("k " + std::to_string(k));
    EXPECT_TRUE(tensor_close_to(r.run1(op::eye(n, int_imm(4), k, kI32), {{x, xa}}), {5, 4}, want));
  }
}

TEST(SymbolicCoverage, FlipStatic) {
  auto xa = random({3, 4}, kF32, 14);
  Host h = host_of(xa);
  for (int64_t axis : {0, 1}) {
    OpRunner r;
    auto x = r.param("x", {3, 4}, kF32);
    auto want = gen({3, 4}, [&](const std::vector<int64_t>& i) {
      return axis == 0 ? at(h, {2 - i[0], i[1]}) : at(h, {i[0], 3 - i[1]});
    });
    EXPECT_TRUE(tensor_close_to(r.run1(op::flip(x, axis), {{x, xa}}), {3, 4}, want));
  }
}

TEST(SymbolicCoverage, GatherElementsStaticAxis0) {
  OpRunner r;
  auto x = r.param("x", {3, 4}, kF32);
  auto ind = r.param("ind", {2, 4}, kI32);
  auto xa = random({3, 4}, kF32, 15);
  auto ia = array_of({2, 4}, kI32, {0, 2, -1, 1, 2, -3, 0, 1});
  Host hx = host_of(xa), hi = host_of(ia);
  auto want = gen({2, 4}, [&](const std::vector<int64_t>& i) {
    auto k = int64_t(at(hi, i));
    return at(hx, {k < 0 ? k + 3 : k, i[1]});
  });
  EXPECT_TRUE(
      tensor_close_to(r.run1(op::gather_elements(x, ind, 0), {{x, xa}, {ind, ia}}), {2, 4}, want));
}

TEST(SymbolicCoverage, OneHotStatic) {
  auto ia = array_of({2, 3}, kI64, {0, 3, -1, 2, 1, 5});
  Host hi = host_of(ia);
  // Index k (negative counts from depth; out of range gives no hot entry).
  auto hot = [&](int64_t row, int64_t col, int64_t d) {
    auto k = int64_t(at(hi, {row, col}));
    if (k < 0) k += 4;
    return k == d ? 2.5 : -0.5;
  };
  OpRunner r;
  auto ind = r.param("ind", {2, 3}, kI64);
  auto last = gen({2, 3, 4}, [&](const std::vector<int64_t>& i) { return hot(i[0], i[1], i[2]); });
  EXPECT_TRUE(tensor_close_to(
      r.run1(op::one_hot(ind, tir::float_imm(2.5), tir::float_imm(-0.5), 4), {{ind, ia}}),
      {2, 3, 4}, last));
  OpRunner r2;
  auto ind2 = r2.param("ind", {2, 3}, kI64);
  auto mid = gen({2, 4, 3}, [&](const std::vector<int64_t>& i) { return hot(i[0], i[2], i[1]); });
  EXPECT_TRUE(tensor_close_to(
      r2.run1(op::one_hot(ind2, tir::float_imm(2.5), tir::float_imm(-0.5), 4, 1), {{ind2, ia}}),
      {2, 4, 3}, mid));
}

TEST(SymbolicCoverage, ScatterElementsSymbolic) {
  auto xa = random({4, 3}, kF32, 16);
  auto ua = random({2, 3}, kF32, 17);
  Host hx = host_of(xa), hu = host_of(ua);
  for (int64_t axis : {0, 1}) {
    for (std::string red : {"none", "add"}) {
      // Distinct targets for "none" (row -1 is row 3); "add" also gets a duplicate (row 1 twice
      // in column 0 along axis 0).
      std::vector<double> iv = axis == 0
                                   ? std::vector<double>{1, -1, 0, red == "add" ? 1. : 2., 0, 2}
                                   : std::vector<double>{2, 0, 1, 1, 2, 0};
      auto ia = array_of({2, 3}, kI64, iv);
      std::vector<double> want = hx.data;
      for (int64_t i = 0; i < 2; ++i)
        for (int64_t j = 0; j < 3; ++j) {
          auto k = int64_t(iv[size_t(i * 3 + j)]);
          if (k < 0) k += axis == 0 ? 4 : 3;
          size_t o = axis == 0 ? size_t(k * 3 + j) : size_t(i * 3 + k);
          double u = hu[size_t(i * 3 + j)];
          want[o] = red == "add" ? want[o] + u : u;
        }
      OpRunner r;
      Ref<tir::Var> n = tir::var("n");
      auto x = r.param("x", {PrimExpr(n), int_imm(3)}, kF32);
      auto ind = r.param("ind", {2, 3}, kI64);
      auto upd = r.param("upd", {2, 3}, kF32);
      SCOPED_TRACE(red + " axis " + std::to_string(axis));
      EXPECT_TRUE(tensor_close_to(
          r.run1(op::scatter_elements(x, ind, upd, axis, red), {{x, xa}, {ind, ia}, {upd, ua}}),
          {4, 3}, want));
    }
  }
}

TEST(SymbolicCoverage, ScatterNdSymbolic) {
  auto xa = random({4, 3}, kF32, 18);
  auto ua = random({2, 3}, kF32, 19, 0.5, 1.5);
  Host hx = host_of(xa), hu = host_of(ua);
  for (std::string red : {"none", "add", "mul"}) {
    std::vector<double> rows = {2, red == "none" ? 0. : 2.};  // "add"/"mul" hit row 2 twice
    std::vector<double> want = hx.data;
    for (size_t i = 0; i < 2; ++i)
      for (size_t j = 0; j < 3; ++j) {
        size_t o = size_t(rows[i]) * 3 + j;
        double u = hu[i * 3 + j];
        want[o] = red == "add" ? want[o] + u : red == "mul" ? want[o] * u : u;
      }
    OpRunner r;
    Ref<tir::Var> n = tir::var("n"), m = tir::var("m");
    auto x = r.param("x", {PrimExpr(n), int_imm(3)}, kF32);
    auto ind = r.param("ind", {PrimExpr(m), int_imm(1)}, kI64);
    auto upd = r.param("upd", {PrimExpr(m), int_imm(3)}, kF32);
    SCOPED_TRACE(red);
    EXPECT_TRUE(tensor_close_to(r.run1(op::scatter_nd(x, ind, upd, red),
                                       {{x, xa}, {ind, array_of({2, 1}, kI64, rows)}, {upd, ua}}),
                                {4, 3}, want));
  }
}

TEST(SymbolicCoverage, TileStatic) {
  OpRunner r;
  auto x = r.param("x", {2, 3}, kI32);
  auto xa = random({2, 3}, kI32, 20, -50, 50);
  Host h = host_of(xa);
  auto want = gen({2, 4, 3}, [&](const std::vector<int64_t>& i) {
    return at(h, {i[1] % 2, i[2]});
  });
  EXPECT_TRUE(tensor_close_to(r.run1(op::tile(x, {2, 2, 1}), {{x, xa}}), {2, 4, 3}, want));
}

}  // namespace
}  // namespace relax::ops_test
