// Reductions with axis / keepdims: legalised and run against loops, static and symbolic shapes.
#include <cmath>
#include <limits>

#include "op_test_util.h"

namespace relax::ops_test {
namespace {

enum class Kind { kSum, kMean, kMax, kMin, kProd, kVar, kStd, kArgmax, kArgmin };

/// Reference over axis 1 of a (d0, d1, d2) tensor, or all axes.
std::vector<double> reference(Kind k, const Host& x, bool all) {
  int64_t d0 = x.shape[0], d1 = x.shape[1], d2 = x.shape[2];
  std::vector<double> out;
  auto reduce = [&](const std::vector<double>& v) {
    double acc = 0;
    switch (k) {
      case Kind::kSum:
        for (double e : v) acc += e;
        return acc;
      case Kind::kMean:
        for (double e : v) acc += e;
        return acc / double(v.size());
      case Kind::kMax:
        acc = -INFINITY;
        for (double e : v) acc = std::max(acc, e);
        return acc;
      case Kind::kMin:
        acc = INFINITY;
        for (double e : v) acc = std::min(acc, e);
        return acc;
      case Kind::kProd:
        acc = 1;
        for (double e : v) acc *= e;
        return acc;
      case Kind::kVar:
      case Kind::kStd: {
        double m = 0;
        for (double e : v) m += e;
        m /= double(v.size());
        for (double e : v) acc += (e - m) * (e - m);
        acc /= double(v.size());
        return k == Kind::kStd ? std::sqrt(acc) : acc;
      }
      case Kind::kArgmax:
      case Kind::kArgmin: {
        size_t best = 0;
        for (size_t i = 1; i < v.size(); ++i)
          if (k == Kind::kArgmax ? v[i] > v[best] : v[i] < v[best]) best = i;
        return double(best);
      }
    }
    return acc;
  };
  if (all) return {reduce(x.data)};
  for (int64_t i = 0; i < d0; ++i)
    for (int64_t j = 0; j < d2; ++j) {
      std::vector<double> v;
      for (int64_t r = 0; r < d1; ++r) v.push_back(x[size_t((i * d1 + r) * d2 + j)]);
      out.push_back(reduce(v));
    }
  return out;
}

Expr build(Kind k, Expr x, bool all, bool keepdims) {
  std::optional<std::vector<int64_t>> axis;
  if (!all) axis = std::vector<int64_t>{-2};
  switch (k) {
    case Kind::kSum:
      return op::sum(x, axis, keepdims);
    case Kind::kMean:
      return op::mean(x, axis, keepdims);
    case Kind::kMax:
      return op::max(x, axis, keepdims);
    case Kind::kMin:
      return op::min(x, axis, keepdims);
    case Kind::kProd:
      return op::prod(x, axis, keepdims);
    case Kind::kVar:
      return op::variance(x, axis, keepdims);
    case Kind::kStd:
      return op::stddev(x, axis, keepdims);
    case Kind::kArgmax:
      return op::argmax(x, all ? std::nullopt : std::optional<int64_t>(1), keepdims);
    case Kind::kArgmin:
      return op::argmin(x, all ? std::nullopt : std::optional<int64_t>(1), keepdims);
  }
  return {};
}

struct Case {
  const char* name;
  Kind kind;
};
const Case kCases[] = {{"sum", Kind::kSum}, {"mean", Kind::kMean},     {"max", Kind::kMax},
                       {"min", Kind::kMin}, {"prod", Kind::kProd},     {"variance", Kind::kVar},
                       {"std", Kind::kStd}, {"argmax", Kind::kArgmax}, {"argmin", Kind::kArgmin}};

class Reduce : public ::testing::TestWithParam<Case> {};

void run(Kind k, bool symbolic, bool all, bool keepdims) {
  OpRunner r;
  Ref<tir::Var> n = tir::var("n");
  std::vector<int64_t> shape = {2, symbolic ? 5 : 3, 4};
  auto x = symbolic ? r.param("x", {int_imm(2), PrimExpr(n), int_imm(4)}, kF32)
                    : r.param("x", shape, kF32);
  auto xa = random(shape, kF32, 3, 0.5, 1.5);
  runtime::NDArray y = r.run1(build(k, x, all, keepdims), {{x, xa}});
  std::vector<int64_t> out_shape;
  if (all)
    out_shape = keepdims ? std::vector<int64_t>{1, 1, 1} : std::vector<int64_t>{};
  else
    out_shape = keepdims ? std::vector<int64_t>{2, 1, 4} : std::vector<int64_t>{2, 4};
  ASSERT_EQ(y.dtype(), (k == Kind::kArgmax || k == Kind::kArgmin) ? kI64 : kF32);
  EXPECT_TRUE(tensor_close_to(y, out_shape, reference(k, host_of(xa), all), 1e-5, 1e-6));
}

TEST_P(Reduce, StaticAxisKeepdims) { run(GetParam().kind, false, false, true); }
TEST_P(Reduce, StaticAllAxes) { run(GetParam().kind, false, true, false); }
TEST_P(Reduce, SymbolicAxis) { run(GetParam().kind, true, false, false); }
TEST_P(Reduce, SymbolicAllAxesKeepdims) { run(GetParam().kind, true, true, true); }

INSTANTIATE_TEST_SUITE_P(Ops, Reduce, ::testing::ValuesIn(kCases),
                         [](const auto& info) { return std::string(info.param.name); });

TEST(ReduceInfer, ShapesAndErrors) {
  OpRunner r;
  Ref<tir::Var> n = tir::var("n");
  auto x = r.param("x", {PrimExpr(n), int_imm(3), int_imm(4)}, kF32);
  auto i = r.param("i", std::vector<int64_t>{2, 3}, kI32);
  EXPECT_EQ(r.infer(op::sum(x, std::vector<int64_t>{0, 2})), "Tensor((3,), float32)");
  EXPECT_EQ(r.infer(op::max(x, std::vector<int64_t>{-1}, true)), "Tensor((n, 3, 1), float32)");
  EXPECT_EQ(r.infer(op::prod(x)), "Tensor((), float32)");
  EXPECT_EQ(r.infer(op::argmax(x, 0)), "Tensor((3, 4), int64)");
  EXPECT_ERROR_HAS(op::sum(x, std::vector<int64_t>{3}),
                   "relax.sum: axis 3 is out of range for a tensor of rank 3");
  EXPECT_ERROR_HAS(op::sum(x, std::vector<int64_t>{1, -2}), "relax.sum: axis -2 appears twice");
  EXPECT_ERROR_HAS(op::mean(i), "relax.mean: needs a floating-point tensor, got int32");
  EXPECT_ERROR_HAS(call_op("relax.sum", {x}, make_attrs({{"keepdims", std::string("yes")}})),
                   "attribute 'keepdims' should be a bool");
}

}  // namespace
}  // namespace relax::ops_test
