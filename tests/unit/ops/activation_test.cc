// More activations (selu, elu, softplus, hardsigmoid, hardswish, prelu) against direct
// formulas, with static and symbolic (batch) shapes, in float32 and float16.
#include <cmath>

#include "ops_test_common.h"

namespace relax::ops_test {
namespace {

constexpr DataType kF16 = DataType::Float(16);

/// A float16 array holding `values` (rounded to nearest even).
runtime::NDArray f16_array(const std::vector<int64_t>& shape, const std::vector<double>& values) {
  runtime::NDArray a = runtime::NDArray::empty(shape, kF16);
  auto* p = static_cast<uint16_t*>(a.data());
  for (size_t i = 0; i < values.size(); ++i) p[i] = tir::float_to_half(float(values[i]));
  return a;
}

std::vector<double> f16_values(const runtime::NDArray& a) {
  std::vector<double> v(size_t(a.numel()));
  auto* p = static_cast<const uint16_t*>(a.data());
  for (size_t i = 0; i < v.size(); ++i) v[i] = tir::half_to_float(p[i]);
  return v;
}

struct Act {
  const char* name;
  Expr (*build)(Expr);
  double (*ref)(double);
};

const double kAlpha = 1.6732632423543772848170429916717, kScale = 1.0507009873554804934193349852946;

const Act kActs[] = {
    {"selu", op::selu, [](double x) { return kScale * (x > 0 ? x : kAlpha * (std::exp(x) - 1)); }},
    {"elu", [](Expr x) { return op::elu(x, 0.7); },
     [](double x) { return x > 0 ? x : 0.7 * (std::exp(x) - 1); }},
    {"softplus", [](Expr x) { return op::softplus(x); },
     [](double x) { return x > 20 ? x : std::log1p(std::exp(x)); }},
    // beta 2, threshold 3: beta * x > 3 (x > 1.5) returns x itself.
    {"softplus_beta", [](Expr x) { return op::softplus(x, 2.0, 3.0); },
     [](double x) { return 2 * x > 3 ? x : std::log1p(std::exp(2 * x)) / 2; }},
    {"hardsigmoid", [](Expr x) { return op::hardsigmoid(x, 0.25, 0.4); },
     [](double x) { return std::min(1.0, std::max(0.0, 0.25 * x + 0.4)); }},
    {"hardswish", op::hardswish,
     [](double x) { return x * std::min(1.0, std::max(0.0, x / 6 + 0.5)); }},
};

class Activation : public ::testing::TestWithParam<bool> {};

TEST_P(Activation, Float32) {
  auto xa = random({4, 6}, kF32, 1, -5, 5);
  Host h = host_of(xa);
  for (const auto& a : kActs) {
    SCOPED_TRACE(a.name);
    OpRunner r;
    auto x = param(r, "x", {4, 6}, GetParam());
    std::vector<double> want;
    for (double v : h.data) want.push_back(a.ref(v));
    EXPECT_TRUE(tensor_close_to(r.run1(a.build(x), {{x, xa}}), {4, 6}, want, 1e-5, 1e-6));
  }
}

TEST_P(Activation, Float16) {
  std::vector<double> in;
  for (int i = 0; i < 24; ++i) in.push_back(-4.0 + i * 0.37);
  runtime::NDArray xa = f16_array({4, 6}, in);
  std::vector<double> xs = f16_values(xa);  // the float16-rounded inputs
  for (const auto& a : kActs) {
    SCOPED_TRACE(a.name);
    OpRunner r;
    auto x = param(r, "x", {4, 6}, GetParam(), kF16);
    auto out = r.run1(a.build(x), {{x, xa}});
    ASSERT_EQ(out.dtype(), kF16);
    std::vector<double> got = f16_values(out);
    ASSERT_EQ(got.size(), xs.size());
    for (size_t i = 0; i < xs.size(); ++i) {
      double want = a.ref(xs[i]);
      EXPECT_NEAR(got[i], want, 4e-3 + 4e-3 * std::abs(want)) << "element " << i;
    }
  }
}

TEST_P(Activation, PreluPerChannelAndShared) {
  for (int64_t axis : {1, -1}) {
    OpRunner r;
    auto x = param(r, "x", {2, 3, 4}, GetParam());
    int64_t c = axis == 1 ? 3 : 4;
    auto al = r.param("alpha", std::vector<int64_t>{c}, kF32);
    auto xa = random({2, 3, 4}, kF32, 2, -2, 2), aa = random({c}, kF32, 3, 0, 1);
    Host h = host_of(xa), ha = host_of(aa);
    std::vector<double> want;
    for (size_t i = 0; i < h.size(); ++i) {
      size_t ch = axis == 1 ? (i / 4) % 3 : i % 4;
      want.push_back(h[i] > 0 ? h[i] : ha[ch] * h[i]);
    }
    EXPECT_TRUE(
        tensor_close_to(r.run1(op::prelu(x, al, axis), {{x, xa}, {al, aa}}), {2, 3, 4}, want));
  }
  OpRunner r;  // one shared slope
  auto x = param(r, "x", {2, 3}, GetParam());
  auto al = r.param("alpha", std::vector<int64_t>{1}, kF32);
  auto xa = random({2, 3}, kF32, 4, -2, 2);
  Host h = host_of(xa);
  std::vector<double> want;
  for (double v : h.data) want.push_back(v > 0 ? v : 0.3 * v);
  EXPECT_TRUE(tensor_close_to(r.run1(op::prelu(x, al), {{x, xa}, {al, array_of({1}, kF32, {0.3})}}),
                              {2, 3}, want));
}

INSTANTIATE_TEST_SUITE_P(Ops, Activation, ::testing::Values(false, true), [](const auto& info) {
  return info.param ? std::string("Symbolic") : std::string("Static");
});

TEST(ActivationInfer, ShapesAndErrors) {
  OpRunner r;
  auto x = r.param("x", {PrimExpr(n), int_imm(3), int_imm(5)}, kF32);
  auto i = r.param("i", std::vector<int64_t>{4}, kI32);
  auto a3 = r.param("a3", std::vector<int64_t>{3}, kF32);
  auto a4 = r.param("a4", std::vector<int64_t>{4}, kF32);
  auto a2d = r.param("a2d", std::vector<int64_t>{3, 1}, kF32);
  EXPECT_EQ(r.infer(op::selu(x)), "Tensor((n, 3, 5), float32)");
  EXPECT_EQ(r.infer(op::softplus(x, 2, 10)), "Tensor((n, 3, 5), float32)");
  EXPECT_EQ(r.infer(op::prelu(x, a3)), "Tensor((n, 3, 5), float32)");
  EXPECT_ERROR_HAS(op::elu(i), "relax.nn.elu: 'x' needs a floating-point tensor, got int32");
  EXPECT_ERROR_HAS(op::hardswish(i), "relax.nn.hardswish: 'x' needs a floating-point tensor");
  EXPECT_ERROR_HAS(op::prelu(x, a4),
                   "relax.nn.prelu: 'alpha' has 4 elements but data axis 1 has 3");
  EXPECT_ERROR_HAS(op::prelu(x, a2d), "relax.nn.prelu: 'alpha' should have rank 1");
  EXPECT_ERROR_HAS(op::prelu(x, a3, 3),
                   "relax.nn.prelu: axis 3 is out of range for a tensor of rank 3");
  EXPECT_ERROR_HAS(call_op("relax.nn.elu", {x}, make_attrs({{"alpha", std::string("big")}})),
                   "relax.nn.elu: attribute 'alpha' should be");
}

}  // namespace
}  // namespace relax::ops_test
