// group_norm, instance_norm, rms_norm and dropout against direct loops, with static and
// symbolic (batch) shapes.
#include <cmath>

#include "ops_test_common.h"

namespace relax::ops_test {
namespace {

/// Grouped normalisation of NCHW-like data x[b][c][s] (s the flattened reduced axes) with
/// `groups` channel groups, then gamma[c] / beta[c].
std::vector<double> group_norm_ref(const Host& x, int64_t B, int64_t C, int64_t S, int64_t groups,
                                   const Host& g, const Host& b, double eps, bool center,
                                   bool scale) {
  std::vector<double> out(x.size());
  int64_t per = C / groups;
  for (int64_t bi = 0; bi < B; ++bi)
    for (int64_t gi = 0; gi < groups; ++gi) {
      double mean = 0, var = 0, cnt = double(per * S);
      auto at = [&](int64_t c, int64_t s) { return size_t((bi * C + c) * S + s); };
      for (int64_t c = gi * per; c < (gi + 1) * per; ++c)
        for (int64_t s = 0; s < S; ++s) mean += x[at(c, s)] / cnt;
      for (int64_t c = gi * per; c < (gi + 1) * per; ++c)
        for (int64_t s = 0; s < S; ++s) var += (x[at(c, s)] - mean) * (x[at(c, s)] - mean) / cnt;
      for (int64_t c = gi * per; c < (gi + 1) * per; ++c)
        for (int64_t s = 0; s < S; ++s) {
          double v = (x[at(c, s)] - mean) / std::sqrt(var + eps);
          if (scale) v *= g[size_t(c)];
          if (center) v += b[size_t(c)];
          out[at(c, s)] = v;
        }
    }
  return out;
}

class Norm : public ::testing::TestWithParam<bool> {};

TEST_P(Norm, GroupNorm) {
  for (bool affine : {true, false}) {
    OpRunner r;
    auto x = param(r, "x", {2, 6, 3, 2}, GetParam());
    auto g = r.param("g", std::vector<int64_t>{6}, kF32);
    auto b = r.param("b", std::vector<int64_t>{6}, kF32);
    auto xa = random({2, 6, 3, 2}, kF32, 1, -2, 3), ga = random({6}, kF32, 2),
         ba = random({6}, kF32, 3);
    auto want =
        group_norm_ref(host_of(xa), 2, 6, 6, 3, host_of(ga), host_of(ba), 1e-3, affine, affine);
    Expr call = op::group_norm(x, g, b, 3, 1, std::vector<int64_t>{2, 3}, 1e-3, affine, affine);
    EXPECT_TRUE(
        tensor_close_to(r.run1(call, {{x, xa}, {g, ga}, {b, ba}}), {2, 6, 3, 2}, want, 1e-4, 1e-5));
  }
}

TEST_P(Norm, GroupNormChannelsLast) {
  // NHWC-style data (2, 4, 6): channel axis -1, reduced axis 1, 2 groups; default axes.
  OpRunner r;
  auto x = param(r, "x", {2, 4, 6}, GetParam());
  auto g = r.param("g", std::vector<int64_t>{6}, kF32);
  auto b = r.param("b", std::vector<int64_t>{6}, kF32);
  auto xa = random({2, 4, 6}, kF32, 4), ga = random({6}, kF32, 5), ba = random({6}, kF32, 6);
  // Transpose to (b, c, s) for the reference, and back.
  Host h = host_of(xa);
  Host t{{2, 6, 4}, std::vector<double>(48)};
  for (int bi = 0; bi < 2; ++bi)
    for (int s = 0; s < 4; ++s)
      for (int c = 0; c < 6; ++c)
        t.data[size_t((bi * 6 + c) * 4 + s)] = h[size_t((bi * 4 + s) * 6 + c)];
  auto ref = group_norm_ref(t, 2, 6, 4, 2, host_of(ga), host_of(ba), 1e-5, true, true);
  std::vector<double> want(48);
  for (int bi = 0; bi < 2; ++bi)
    for (int s = 0; s < 4; ++s)
      for (int c = 0; c < 6; ++c)
        want[size_t((bi * 4 + s) * 6 + c)] = ref[size_t((bi * 6 + c) * 4 + s)];
  EXPECT_TRUE(tensor_close_to(r.run1(op::group_norm(x, g, b, 2, -1), {{x, xa}, {g, ga}, {b, ba}}),
                              {2, 4, 6}, want, 1e-4, 1e-5));
}

TEST_P(Norm, InstanceNorm) {
  OpRunner r;
  auto x = param(r, "x", {2, 3, 5}, GetParam());
  auto g = r.param("g", std::vector<int64_t>{3}, kF32);
  auto b = r.param("b", std::vector<int64_t>{3}, kF32);
  auto xa = random({2, 3, 5}, kF32, 7, -1, 4), ga = random({3}, kF32, 8), ba = random({3}, kF32, 9);
  auto want = group_norm_ref(host_of(xa), 2, 3, 5, 3, host_of(ga), host_of(ba), 1e-5, true, true);
  EXPECT_TRUE(tensor_close_to(r.run1(op::instance_norm(x, g, b), {{x, xa}, {g, ga}, {b, ba}}),
                              {2, 3, 5}, want, 1e-4, 1e-5));
}

TEST_P(Norm, RmsNorm) {
  for (bool two_axes : {false, true}) {
    OpRunner r;
    auto x = param(r, "x", {2, 3, 4}, GetParam());
    std::vector<int64_t> ws = two_axes ? std::vector<int64_t>{3, 4} : std::vector<int64_t>{4};
    auto w = r.param("w", ws, kF32);
    auto xa = random({2, 3, 4}, kF32, 10), wa = random(ws, kF32, 11);
    Host h = host_of(xa), hw = host_of(wa);
    int64_t group = two_axes ? 12 : 4;
    std::vector<double> want(h.size());
    for (size_t o = 0; o < h.size() / size_t(group); ++o) {
      double ms = 0;
      for (int64_t k = 0; k < group; ++k)
        ms += h[o * size_t(group) + size_t(k)] * h[o * size_t(group) + size_t(k)];
      ms /= double(group);
      for (int64_t k = 0; k < group; ++k) {
        size_t i = o * size_t(group) + size_t(k);
        want[i] = h[i] / std::sqrt(ms + 1e-6) * hw[size_t(k) % hw.size()];
      }
    }
    std::vector<int64_t> axes = two_axes ? std::vector<int64_t>{1, 2} : std::vector<int64_t>{-1};
    EXPECT_TRUE(tensor_close_to(r.run1(op::rms_norm(x, w, axes, 1e-6), {{x, xa}, {w, wa}}),
                                {2, 3, 4}, want, 1e-4, 1e-5));
  }
}

TEST_P(Norm, DropoutIsIdentityWithOnesMask) {
  OpRunner r;
  auto x = param(r, "x", {3, 4}, GetParam());
  auto xa = random({3, 4}, kF32, 12);
  auto outs = r.run(op::dropout(x, 0.3), {{x, xa}});
  ASSERT_EQ(outs.size(), 2u);
  EXPECT_TRUE(tensor_close_to(outs[0], {3, 4}, host_of(xa).data, 0, 0));
  EXPECT_TRUE(tensor_close_to(outs[1], {3, 4}, std::vector<double>(12, 1.0), 0, 0));
}

INSTANTIATE_TEST_SUITE_P(Ops, Norm, ::testing::Values(false, true), [](const auto& info) {
  return info.param ? std::string("Symbolic") : std::string("Static");
});

TEST(NormInfer, ShapesAndErrors) {
  OpRunner r;
  auto x = r.param("x", {PrimExpr(n), int_imm(6), int_imm(4), int_imm(4)}, kF32);
  auto c6 = r.param("c6", std::vector<int64_t>{6}, kF32);
  auto c5 = r.param("c5", std::vector<int64_t>{5}, kF32);
  auto w4 = r.param("w4", std::vector<int64_t>{4}, kF32);
  auto w5 = r.param("w5", std::vector<int64_t>{5}, kF32);
  auto i = r.param("i", std::vector<int64_t>{6}, kI32);
  EXPECT_EQ(r.infer(op::group_norm(x, c6, c6, 3)), "Tensor((n, 6, 4, 4), float32)");
  EXPECT_EQ(r.infer(op::instance_norm(x, c6, c6)), "Tensor((n, 6, 4, 4), float32)");
  EXPECT_EQ(r.infer(op::rms_norm(x, w4)), "Tensor((n, 6, 4, 4), float32)");
  EXPECT_EQ(r.infer(op::dropout(x)),
            "Tuple(Tensor((n, 6, 4, 4), float32), Tensor((n, 6, 4, 4), float32))");
  EXPECT_ERROR_HAS(op::group_norm(x, c6, c6, 4),
                   "relax.nn.group_norm: the 6 channels on axis 1 are not divisible by "
                   "num_groups 4");
  EXPECT_ERROR_HAS(op::group_norm(x, c6, c6, 0),
                   "relax.nn.group_norm: num_groups must be positive, got 0");
  EXPECT_ERROR_HAS(op::group_norm(x, c5, c6, 3),
                   "relax.nn.group_norm: 'gamma' has 5 elements but the data has 6 channels");
  EXPECT_ERROR_HAS(op::group_norm(x, c6, c6, 3, 1, std::vector<int64_t>{1, 2}),
                   "relax.nn.group_norm: 'axes' must not contain the channel axis 1");
  EXPECT_ERROR_HAS(op::instance_norm(x, c6, c5),
                   "relax.nn.instance_norm: 'beta' has 5 elements but the data has 6 channels");
  EXPECT_ERROR_HAS(op::instance_norm(x, c6, c6, 1, std::nullopt, -1.0),
                   "relax.nn.instance_norm: epsilon must be non-negative");
  EXPECT_ERROR_HAS(op::rms_norm(x, w5),
                   "relax.nn.rms_norm: 'weight' dim 0 is 5 but data axis 3 is 4");
  EXPECT_ERROR_HAS(op::rms_norm(x, w4, {2, 3}), "relax.nn.rms_norm: 'weight' should have rank 2");
  EXPECT_ERROR_HAS(op::rms_norm(i, i), "relax.nn.rms_norm: 'data' needs a floating-point tensor");
  EXPECT_ERROR_HAS(op::dropout(x, 1.0), "relax.nn.dropout: rate must be in [0, 1), got 1");
}

}  // namespace
}  // namespace relax::ops_test
