// Neural-network ops and matmul: activations, softmax, norms, conv2d, pooling — against
// direct loops, with static and symbolic (batch) shapes.
#include <cmath>
#include <limits>

#include "ops_test_common.h"

namespace relax::ops_test {
namespace {

class Nn : public ::testing::TestWithParam<bool> {};

TEST_P(Nn, Activations) {
  struct Act {
    Expr (*build)(Expr);
    double (*ref)(double);
  };
  const Act acts[] = {
      {op::relu, [](double x) { return std::max(x, 0.0); }},
      {[](Expr x) { return op::leakyrelu(x, 0.2); }, [](double x) { return x > 0 ? x : 0.2 * x; }},
      {op::gelu, [](double x) { return 0.5 * x * (1 + std::erf(x / std::sqrt(2.0))); }},
      {op::gelu_tanh,
       [](double x) {
         return 0.5 * x * (1 + std::tanh(std::sqrt(2 / M_PI) * (x + 0.044715 * x * x * x)));
       }},
      {op::silu, [](double x) { return x / (1 + std::exp(-x)); }},
  };
  auto xa = random({3, 5}, kF32, 1, -3, 3);
  Host h = host_of(xa);
  for (const auto& a : acts) {
    OpRunner r;
    auto x = param(r, "x", {3, 5}, GetParam());
    std::vector<double> want;
    for (double v : h.data) want.push_back(a.ref(v));
    EXPECT_TRUE(tensor_close_to(r.run1(a.build(x), {{x, xa}}), {3, 5}, want, 1e-5, 1e-6));
  }
}

TEST_P(Nn, SoftmaxAndLogSoftmax) {
  for (bool log : {false, true}) {
    for (int64_t axis : {-1, 0}) {
      OpRunner r;
      auto x = param(r, "x", {3, 4}, GetParam());
      auto xa = random({3, 4}, kF32, 2, -5, 5);
      Host h = host_of(xa);
      std::vector<double> want(12);
      int outer = axis == 0 ? 4 : 3, inner = axis == 0 ? 3 : 4;
      for (int o = 0; o < outer; ++o) {
        auto at = [&](int k) { return size_t(axis == 0 ? k * 4 + o : o * 4 + k); };
        double mx = -INFINITY, s = 0;
        for (int k = 0; k < inner; ++k) mx = std::max(mx, h[at(k)]);
        for (int k = 0; k < inner; ++k) s += std::exp(h[at(k)] - mx);
        for (int k = 0; k < inner; ++k)
          want[at(k)] = log ? h[at(k)] - mx - std::log(s) : std::exp(h[at(k)] - mx) / s;
      }
      Expr call = log ? op::log_softmax(x, axis) : op::softmax(x, axis);
      EXPECT_TRUE(tensor_close_to(r.run1(call, {{x, xa}}), {3, 4}, want, 1e-5, 1e-6));
    }
  }
}

TEST_P(Nn, BatchNormInference) {
  OpRunner r;
  auto x = param(r, "x", {2, 3, 2, 2}, GetParam());
  Ref<Var> p[4];
  const char* names[] = {"gamma", "beta", "mean", "var"};
  for (int i = 0; i < 4; ++i) p[i] = r.param(names[i], std::vector<int64_t>{3}, kF32);
  auto xa = random({2, 3, 2, 2}, kF32, 3);
  runtime::NDArray pa[4] = {random({3}, kF32, 4), random({3}, kF32, 5), random({3}, kF32, 6),
                            random({3}, kF32, 7, 0.5, 2)};
  auto outs = r.run(op::batch_norm(x, p[0], p[1], p[2], p[3], 1, 1e-3),
                    {{x, xa}, {p[0], pa[0]}, {p[1], pa[1]}, {p[2], pa[2]}, {p[3], pa[3]}});
  ASSERT_EQ(outs.size(), 3u);
  Host h = host_of(xa), g = host_of(pa[0]), b = host_of(pa[1]), m = host_of(pa[2]),
       v = host_of(pa[3]);
  std::vector<double> want;
  for (size_t i = 0; i < h.size(); ++i) {
    size_t c = (i / 4) % 3;
    want.push_back((h[i] - m[c]) / std::sqrt(v[c] + 1e-3) * g[c] + b[c]);
  }
  EXPECT_TRUE(tensor_close_to(outs[0], {2, 3, 2, 2}, want));
  EXPECT_TRUE(tensor_close_to(outs[1], {3}, m.data));
  EXPECT_TRUE(tensor_close_to(outs[2], {3}, v.data));
}

TEST_P(Nn, LayerNorm) {
  OpRunner r;
  auto x = param(r, "x", {2, 3, 4}, GetParam());
  auto g = r.param("g", std::vector<int64_t>{3, 4}, kF32);
  auto b = r.param("b", std::vector<int64_t>{3, 4}, kF32);
  auto xa = random({2, 3, 4}, kF32, 8), ga = random({3, 4}, kF32, 9), ba = random({3, 4}, kF32, 10);
  Host h = host_of(xa), hg = host_of(ga), hb = host_of(ba);
  std::vector<double> want;
  for (int i = 0; i < 2; ++i) {
    double mean = 0, var = 0;
    for (int k = 0; k < 12; ++k) mean += h[size_t(i * 12 + k)] / 12;
    for (int k = 0; k < 12; ++k)
      var += (h[size_t(i * 12 + k)] - mean) * (h[size_t(i * 12 + k)] - mean) / 12;
    for (int k = 0; k < 12; ++k)
      want.push_back((h[size_t(i * 12 + k)] - mean) / std::sqrt(var + 1e-5) * hg[size_t(k)] +
                     hb[size_t(k)]);
  }
  EXPECT_TRUE(tensor_close_to(r.run1(op::layer_norm(x, g, b, {1, 2}), {{x, xa}, {g, ga}, {b, ba}}),
                              {2, 3, 4}, want, 1e-4, 1e-5));
}

TEST_P(Nn, Conv2dStridesPaddingDilationGroups) {
  OpRunner r;
  // N=2, C=4, H=7, W=6; O=6, groups=2 (2 input channels per group), 3x2 kernel.
  auto x = param(r, "x", {2, 4, 7, 6}, GetParam());
  auto w = r.param("w", std::vector<int64_t>{6, 2, 3, 2}, kF32);
  auto xa = random({2, 4, 7, 6}, kF32, 11), wa = random({6, 2, 3, 2}, kF32, 12);
  op::Conv2DOptions o;
  o.strides = {2, 1};
  o.padding = {1, 0, 2, 1};
  o.dilation = {1, 2};
  o.groups = 2;
  int64_t OH = (7 + 1 + 2 - 3) / 2 + 1, OW = (6 + 0 + 1 - 3) / 1 + 1;
  Host hx = host_of(xa), hw = host_of(wa);
  std::vector<double> want;
  for (int b = 0; b < 2; ++b)
    for (int oc = 0; oc < 6; ++oc)
      for (int64_t oy = 0; oy < OH; ++oy)
        for (int64_t ox = 0; ox < OW; ++ox) {
          double s = 0;
          int g = oc / 3;
          for (int ic = 0; ic < 2; ++ic)
            for (int ky = 0; ky < 3; ++ky)
              for (int kx = 0; kx < 2; ++kx) {
                int64_t iy = oy * 2 + ky - 1, ix = ox + kx * 2 - 0;
                if (iy < 0 || iy >= 7 || ix < 0 || ix >= 6) continue;
                s += hx[size_t(((b * 4 + g * 2 + ic) * 7 + iy) * 6 + ix)] *
                     hw[size_t(((oc * 2 + ic) * 3 + ky) * 2 + kx)];
              }
          want.push_back(s);
        }
  EXPECT_TRUE(tensor_close_to(r.run1(op::conv2d(x, w, o), {{x, xa}, {w, wa}}), {2, 6, OH, OW}, want,
                              1e-5, 1e-5));
}

TEST_P(Nn, MaxAndAvgPool2d) {
  for (int kind = 0; kind < 3; ++kind) {  // max, avg, avg counting padding
    OpRunner r;
    auto x = param(r, "x", {2, 3, 5, 5}, GetParam());
    auto xa = random({2, 3, 5, 5}, kF32, 13);
    op::Pool2DOptions o;
    o.pool_size = {3, 3};
    o.strides = {2, 2};
    o.padding = {1, 1, 1, 1};
    o.count_include_pad = kind == 2;
    Host h = host_of(xa);
    std::vector<double> want;
    for (int p = 0; p < 6; ++p)
      for (int oy = 0; oy < 3; ++oy)
        for (int ox = 0; ox < 3; ++ox) {
          double mx = -INFINITY, s = 0;
          int cnt = 0;
          for (int ky = 0; ky < 3; ++ky)
            for (int kx = 0; kx < 3; ++kx) {
              int iy = oy * 2 + ky - 1, ix = ox * 2 + kx - 1;
              if (iy < 0 || iy >= 5 || ix < 0 || ix >= 5) continue;
              double v = h[size_t((p * 5 + iy) * 5 + ix)];
              mx = std::max(mx, v);
              s += v;
              ++cnt;
            }
          want.push_back(kind == 0 ? mx : s / (kind == 2 ? 9 : cnt));
        }
    Expr call = kind == 0 ? op::max_pool2d(x, o) : op::avg_pool2d(x, o);
    EXPECT_TRUE(tensor_close_to(r.run1(call, {{x, xa}}), {2, 3, 3, 3}, want));
  }
}

TEST_P(Nn, MatmulBatchedBroadcastAndVectors) {
  bool sym = GetParam();
  OpRunner r;
  auto a = param(r, "a", {2, 3, 4}, sym);
  auto b = r.param("b", std::vector<int64_t>{4, 5}, kF32);
  auto aa = random({2, 3, 4}, kF32, 14), ba = random({4, 5}, kF32, 15);
  Host ha = host_of(aa), hb = host_of(ba);
  std::vector<double> want;
  for (int p = 0; p < 2; ++p)
    for (int i = 0; i < 3; ++i)
      for (int j = 0; j < 5; ++j) {
        double s = 0;
        for (int k = 0; k < 4; ++k) s += ha[size_t((p * 3 + i) * 4 + k)] * hb[size_t(k * 5 + j)];
        want.push_back(s);
      }
  EXPECT_TRUE(
      tensor_close_to(r.run1(op::matmul(a, b), {{a, aa}, {b, ba}}), {2, 3, 5}, want, 1e-5, 1e-6));

  OpRunner r2;  // matrix x vector
  auto m = param(r2, "m", {3, 4}, sym);
  auto v = r2.param("v", std::vector<int64_t>{4}, kF32);
  auto va = random({4}, kF32, 16);
  Host hv = host_of(va);
  std::vector<double> mv;
  for (int i = 0; i < 3; ++i) {
    double s = 0;
    for (int k = 0; k < 4; ++k) s += ha[size_t(i * 4 + k)] * hv[size_t(k)];
    mv.push_back(s);
  }
  auto ma = array_of({3, 4}, kF32, std::vector<double>(ha.data.begin(), ha.data.begin() + 12));
  EXPECT_TRUE(tensor_close_to(r2.run1(op::matmul(m, v), {{m, ma}, {v, va}}), {3}, mv, 1e-5, 1e-6));
}

INSTANTIATE_TEST_SUITE_P(Ops, Nn, ::testing::Values(false, true), [](const auto& info) {
  return info.param ? std::string("Symbolic") : std::string("Static");
});

TEST(NnInfer, ShapesAndErrors) {
  OpRunner r;
  auto x = r.param("x", {PrimExpr(n), int_imm(4), int_imm(9), int_imm(9)}, kF32);
  auto w = r.param("w", std::vector<int64_t>{8, 2, 3, 3}, kF32);
  auto w3 = r.param("w3", std::vector<int64_t>{8, 3, 3, 3}, kF32);
  auto c5 = r.param("c5", std::vector<int64_t>{5}, kF32);
  auto c4 = r.param("c4", std::vector<int64_t>{4}, kF32);
  auto i = r.param("i", std::vector<int64_t>{4}, kI32);
  op::Conv2DOptions o;
  o.groups = 2;
  o.strides = {2, 2};
  o.padding = {1};
  EXPECT_EQ(r.infer(op::conv2d(x, w, o)), "Tensor((n, 8, 5, 5), float32)");
  EXPECT_ERROR_HAS(op::conv2d(x, w3, o),
                   "weight has 3 input channels per group, but data has 4 channels in 2 group(s)");
  o.groups = 3;
  EXPECT_ERROR_HAS(op::conv2d(x, w, o),
                   "relax.nn.conv2d: input channels 4 are not divisible by groups 3");
  EXPECT_ERROR_HAS(
      call_op("relax.nn.conv2d", {x, w}, make_attrs({{"data_layout", std::string("NCHW4c")}})),
      "relax.nn.conv2d: data_layout 'NCHW4c' is not supported; expected a permutation of N, C");
  EXPECT_ERROR_HAS(
      call_op("relax.nn.conv2d", {x, w}, make_attrs({{"strides", std::vector<int64_t>{0, 1}}})),
      "relax.nn.conv2d: 'strides' values must be positive, got 0");
  // A padding near int64's limit overflowed pad_before + pad_after (a fuzz_relay finding).
  EXPECT_ERROR_HAS(call_op("relax.nn.conv2d", {x, w},
                           make_attrs({{"padding", std::vector<int64_t>{1, 1, std::numeric_limits<int64_t>::max(), 1}}})),
                   "relax.nn.conv2d: 'padding' values must be at most 2147483647, got 9223372036854775807");
  EXPECT_ERROR_HAS(call_op("relax.nn.conv2d", {x, w},
                           make_attrs({{"dilation", std::vector<int64_t>{int64_t(1) << 40, 1}}})),
                   "relax.nn.conv2d: 'dilation' values must be at most 2147483647, got 1099511627776");
  op::Pool2DOptions p;
  p.pool_size = {3, 3};
  p.strides = {2, 2};
  p.ceil_mode = true;
  EXPECT_EQ(r.infer(op::max_pool2d(x, p)), "Tensor((n, 4, 4, 4), float32)");
  p.padding = {3};
  EXPECT_ERROR_HAS(op::max_pool2d(x, p), "padding 3 is not smaller than the window (3)");
  EXPECT_EQ(r.infer(op::softmax(x, 1)), "Tensor((n, 4, 9, 9), float32)");
  EXPECT_ERROR_HAS(op::softmax(x, 4),
                   "relax.nn.softmax: axis 4 is out of range for a tensor of rank 4");
  EXPECT_ERROR_HAS(op::gelu(i), "relax.nn.gelu: 'x' needs a floating-point tensor, got int32");
  EXPECT_EQ(r.infer(op::batch_norm(x, c4, c4, c4, c4)),
            "Tuple(Tensor((n, 4, 9, 9), float32), Tensor((4,), float32), Tensor((4,), float32))");
  EXPECT_ERROR_HAS(op::batch_norm(x, c5, c4, c4, c4),
                   "'gamma' has 5 elements but the data has 4 channels on axis 1");
  EXPECT_ERROR_HAS(op::layer_norm(x, c4, c4, {-1}), "'gamma' dim 0 is 4 but data axis 3 is 9");
  EXPECT_ERROR_HAS(op::layer_norm(x, c4, c4, {-1}, -1.0),
                   "relax.nn.layer_norm: epsilon must be non-negative");
}

}  // namespace
}  // namespace relax::ops_test
