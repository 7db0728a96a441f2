// cumsum, cumprod, sort, argsort, topk and einsum: inference and kernels against plain loops
// (std::stable_sort for the sorts).
#include <algorithm>
#include <numeric>

#include "ops_test_common.h"

namespace relax::ops_test {
namespace {

TEST(Cumulative, Inference) {
  OpRunner r;
  auto x = r.param("x", sym0({3, 4}), kI32);
  EXPECT_EQ(r.infer(op::cumsum(x, -1)), "Tensor((n, 4), int32)");
  EXPECT_EQ(r.infer(op::cumprod(x, std::nullopt, kF32)), "Tensor((n * 4,), float32)");
  EXPECT_ERROR_HAS(op::cumsum(x, 2), "relax.cumsum: axis 2 is out of range");
  auto b = r.param("b", std::vector<int64_t>{3}, kBool);
  EXPECT_ERROR_HAS(op::cumsum(b), "relax.cumsum: cannot accumulate in bool");
}

TEST(Cumulative, RunAlongAxisFlatAndExclusive) {
  auto xa = random({3, 4}, kI32, 1, -3, 3);
  Host h = host_of(xa);
  for (bool is_sum : {true, false}) {
    for (bool exclusive : {false, true}) {
      OpRunner r;
      auto x = r.param("x", sym0({3, 4}), kI32);
      std::vector<double> want(12);
      for (int i = 0; i < 3; ++i) {
        double acc = is_sum ? 0 : 1;
        for (int j = 0; j < 4; ++j) {
          double v = h[size_t(i * 4 + j)];
          if (!exclusive) acc = is_sum ? acc + v : acc * v;
          want[size_t(i * 4 + j)] = acc;
          if (exclusive) acc = is_sum ? acc + v : acc * v;
        }
      }
      auto call = is_sum ? op::cumsum(x, 1, DataType::Int(64), exclusive)
                         : op::cumprod(x, 1, DataType::Int(64), exclusive);
      SCOPED_TRACE(std::string(is_sum ? "cumsum" : "cumprod") + (exclusive ? " exclusive" : ""));
      runtime::NDArray got = r.run1(call, {{x, xa}});
      EXPECT_EQ(got.dtype(), kI64);
      EXPECT_TRUE(tensor_close_to(got, {3, 4}, want));
    }
  }
  OpRunner r;
  auto x = r.param("x", {3, 4}, kF32);
  auto fa = random({3, 4}, kF32, 2);
  Host hf = host_of(fa);
  std::vector<double> want;
  double acc = 0;
  for (double v : hf.data) want.push_back(acc += v);
  EXPECT_TRUE(tensor_close_to(r.run1(op::cumsum(x), {{x, fa}}), {12}, want, 1e-5, 1e-5));
}

/// The stable argsort of each row of a [rows, cols] matrix.
std::vector<std::vector<int64_t>> row_order(const Host& h, bool descending) {
  int64_t rows = h.shape[0], cols = h.shape[1];
  std::vector<std::vector<int64_t>> out;
  for (int64_t i = 0; i < rows; ++i) {
    std::vector<int64_t> idx(static_cast<size_t>(cols), 0);
    std::iota(idx.begin(), idx.end(), 0);
    std::stable_sort(idx.begin(), idx.end(), [&](int64_t a, int64_t b) {
      double x = h[size_t(i * cols + a)], y = h[size_t(i * cols + b)];
      return descending ? x > y : x < y;
    });
    out.push_back(idx);
  }
  return out;
}

TEST(Sort, InferenceAndErrors) {
  OpRunner r;
  auto x = r.param("x", sym0({3, 5}), kF32);
  EXPECT_EQ(r.infer(op::sort(x)), "Tensor((n, 5), float32)");
  EXPECT_EQ(r.infer(op::argsort(x, 0, true, kI64)), "Tensor((n, 5), int64)");
  EXPECT_EQ(r.infer(op::topk(x, 2)),
            "Tuple(Tensor((n, 2), float32), Tensor((n, 2), int32))");
  EXPECT_EQ(r.infer(op::topk(x, 2, 0, "indices")), "Tensor((2, 5), int32)");
  EXPECT_ERROR_HAS(op::topk(x, 6), "relax.topk: k = 6 exceeds the axis size 5");
  EXPECT_ERROR_HAS(op::topk(x, 1, -1, "all"), "relax.topk: ret_type 'all' is not one of");
  EXPECT_ERROR_HAS(op::argsort(x, -1, false, kF32),
                   "relax.argsort: the index dtype should be an integer type");
  EXPECT_ERROR_HAS(op::sort(x, 2), "relax.sort: axis 2 is out of range");
}

TEST(Sort, SortAndArgsortAreStable) {
  // Integers with many ties exercise the tie-break.
  auto xa = random({3, 6}, kI32, 3, -2, 2);
  Host h = host_of(xa);
  for (bool desc : {false, true}) {
    auto order = row_order(h, desc);
    std::vector<double> vals, idxs;
    for (int i = 0; i < 3; ++i)
      for (int64_t j : order[size_t(i)]) {
        vals.push_back(h[size_t(i * 6 + j)]);
        idxs.push_back(double(j));
      }
    OpRunner r;
    auto x = r.param("x", sym0({3, 6}), kI32);
    SCOPED_TRACE(desc ? "descending" : "ascending");
    EXPECT_TRUE(tensor_close_to(r.run1(op::sort(x, -1, desc), {{x, xa}}), {3, 6}, vals));
    OpRunner r2;
    auto x2 = r2.param("x", {3, 6}, kI32);
    EXPECT_TRUE(tensor_close_to(r2.run1(op::argsort(x2, 1, desc, kI64), {{x2, xa}}), {3, 6}, idxs));
  }
  // Along axis 0 of a float tensor.
  auto fa = random({4, 2}, kF32, 4);
  Host hf = host_of(fa);
  std::vector<double> want(8);
  for (int c = 0; c < 2; ++c) {
    std::vector<double> col = {hf[size_t(c)], hf[size_t(2 + c)], hf[size_t(4 + c)], hf[size_t(6 + c)]};
    std::sort(col.begin(), col.end());
    for (int i = 0; i < 4; ++i) want[size_t(i * 2 + c)] = col[size_t(i)];
  }
  OpRunner r;
  auto x = r.param("x", {4, 2}, kF32);
  EXPECT_TRUE(tensor_close_to(r.run1(op::sort(x, 0), {{x, fa}}), {4, 2}, want));
}

TEST(TopK, BothValuesAndIndices) {
  auto xa = random({2, 7}, kF32, 5);
  Host h = host_of(xa);
  for (bool largest : {true, false}) {
    auto order = row_order(h, largest);
    std::vector<double> vals, idxs;
    for (int i = 0; i < 2; ++i)
      for (int k = 0; k < 3; ++k) {
        int64_t j = order[size_t(i)][size_t(k)];
        vals.push_back(h[size_t(i * 7 + j)]);
        idxs.push_back(double(j));
      }
    OpRunner r;
    auto x = r.param("x", sym0({2, 7}), kF32);
    auto outs = r.run(op::topk(x, 3, -1, "both", largest), {{x, xa}});
    ASSERT_EQ(outs.size(), 2u);
    SCOPED_TRACE(largest ? "largest" : "smallest");
    EXPECT_TRUE(tensor_close_to(outs[0], {2, 3}, vals));
    EXPECT_EQ(outs[1].dtype(), kI32);
    EXPECT_TRUE(tensor_close_to(outs[1], {2, 3}, idxs));
    OpRunner r2;
    auto x2 = r2.param("x", {2, 7}, kF32);
    EXPECT_TRUE(
        tensor_close_to(r2.run1(op::topk(x2, 3, 1, "values", largest), {{x2, xa}}), {2, 3}, vals));
  }
}

TEST(Einsum, Inference) {
  OpRunner r;
  auto a = r.param("a", sym0({3, 4}), kF32);
  auto b = r.param("b", {4, 5}, kF32);
  auto sq = r.param("sq", {4, 4}, kF32);
  EXPECT_EQ(r.infer(op::einsum({a, b}, "ij,jk->ik")), "Tensor((n, 5), float32)");
  EXPECT_EQ(r.infer(op::einsum({a, b}, "ij,jk")), "Tensor((n, 5), float32)");
  EXPECT_EQ(r.infer(op::einsum({sq}, "ii")), "Tensor((), float32)");
  EXPECT_EQ(r.infer(op::einsum({a}, "...j->j...")), "Tensor((4, n), float32)");
  EXPECT_ERROR_HAS(op::einsum({a, b}, "ij,jk->ii"),
                   "relax.einsum: subscripts 'ij,jk->ii': output label 'i' appears twice");
  EXPECT_ERROR_HAS(op::einsum({b, sq}, "ij,ij->i"), "label 'j' has size 5 in one place and 4");
  EXPECT_ERROR_HAS(op::einsum({a, b}, "ij->i"), "1 operand terms for 2 operands");
  EXPECT_ERROR_HAS(op::einsum({a}, "ij->ix"), "output label 'x' appears in no operand");
  auto i = r.param("i", {4, 5}, kI32);
  EXPECT_ERROR_HAS(op::einsum({a, i}, "ij,jk->ik"), "operand dtypes differ");
}

TEST(Einsum, MatmulTraceDiagonalBatchedAndOuter) {
  auto aa = random({3, 4}, kF32, 6), ba = random({4, 5}, kF32, 7), sa = random({4, 4}, kF32, 8);
  Host ha = host_of(aa), hb = host_of(ba), hs = host_of(sa);
  {
    OpRunner r;
    auto a = r.param("a", sym0({3, 4}), kF32);
    auto b = r.param("b", {4, 5}, kF32);
    std::vector<double> want(15, 0);
    for (int i = 0; i < 3; ++i)
      for (int k = 0; k < 5; ++k)
        for (int j = 0; j < 4; ++j) want[size_t(i * 5 + k)] += ha[size_t(i * 4 + j)] * hb[size_t(j * 5 + k)];
    EXPECT_TRUE(
        tensor_close_to(r.run1(op::einsum({a, b}, "ij,jk->ik"), {{a, aa}, {b, ba}}), {3, 5}, want));
  }
  {
    OpRunner r;
    auto s = r.param("s", {4, 4}, kF32);
    double tr = 0;
    for (int i = 0; i < 4; ++i) tr += hs[size_t(i * 5)];
    EXPECT_TRUE(tensor_close_to(r.run1(op::einsum({s}, "ii"), {{s, sa}}), {}, {tr}));
    OpRunner r2;
    auto s2 = r2.param("s", {4, 4}, kF32);
    std::vector<double> diag;
    for (int i = 0; i < 4; ++i) diag.push_back(hs[size_t(i * 5)]);
    EXPECT_TRUE(tensor_close_to(r2.run1(op::einsum({s2}, "ii->i"), {{s2, sa}}), {4}, diag));
  }
  {
    // Batched with a broadcast "..." (batch 2 against batch 1) in int32.
    auto xa = random({2, 2, 3}, kI32, 9, -5, 5), ya = random({1, 3, 2}, kI32, 10, -5, 5);
    Host hx = host_of(xa), hy = host_of(ya);
    OpRunner r;
    auto x = r.param("x", {2, 2, 3}, kI32);
    auto y = r.param("y", {1, 3, 2}, kI32);
    std::vector<double> want(8, 0);
    for (int b = 0; b < 2; ++b)
      for (int i = 0; i < 2; ++i)
        for (int k = 0; k < 2; ++k)
          for (int j = 0; j < 3; ++j)
            want[size_t(b * 4 + i * 2 + k)] += hx[size_t(b * 6 + i * 3 + j)] * hy[size_t(j * 2 + k)];
    EXPECT_TRUE(tensor_close_to(
        r.run1(op::einsum({x, y}, "...ij,...jk->...ik"), {{x, xa}, {y, ya}}), {2, 2, 2}, want));
  }
  {
    OpRunner r;
    auto a = r.param("a", {3, 4}, kF32);
    auto v = r.param("v", std::vector<int64_t>{4}, kF32);
    auto va = random({4}, kF32, 11);
    Host hv = host_of(va);
    std::vector<double> want;
    for (int i = 0; i < 3; ++i)
      for (int j = 0; j < 4; ++j)
        for (int k = 0; k < 4; ++k) want.push_back(ha[size_t(i * 4 + j)] * hv[size_t(k)]);
    EXPECT_TRUE(tensor_close_to(r.run1(op::einsum({a, v}, "ij,k->ijk"), {{a, aa}, {v, va}}),
                                {3, 4, 4}, want));
  }
}

}  // namespace
}  // namespace relax::ops_test
