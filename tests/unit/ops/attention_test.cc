// relax.nn.attention against direct loops: default and explicit scale, a broadcast bias,
// TopLeft and BottomRight causal masks (with Sq != Skv, including fully masked rows), with
// static and symbolic (batch) shapes.
#include <cmath>
#include <string>

#include "ops_test_common.h"

namespace relax::ops_test {
namespace {

/// q (B, Sq, H, D), k (B, Skv, H, D), v (B, Skv, H, Dv); bias (1, H, Sq, Skv) or empty.
std::vector<double> attention_ref(const Host& q, const Host& k, const Host& v, const Host* bias,
                                  double scale, const std::string& mask) {
  int64_t B = q.shape[0], Sq = q.shape[1], H = q.shape[2], D = q.shape[3], Skv = k.shape[1],
          Dv = v.shape[3];
  std::vector<double> out(size_t(B * Sq * H * Dv));
  for (int64_t b = 0; b < B; ++b)
    for (int64_t h = 0; h < H; ++h)
      for (int64_t i = 0; i < Sq; ++i) {
        std::vector<double> logit(static_cast<size_t>(Skv), 0.0);
        std::vector<bool> keep(static_cast<size_t>(Skv), true);
        for (int64_t j = 0; j < Skv; ++j) {
          double s = 0;
          for (int64_t d = 0; d < D; ++d)
            s += q[size_t(((b * Sq + i) * H + h) * D + d)] *
                 k[size_t(((b * Skv + j) * H + h) * D + d)];
          s *= scale;
          if (bias) s += (*bias)[size_t((h * Sq + i) * Skv + j)];
          if (mask == "TopLeft") keep[size_t(j)] = j <= i;
          if (mask == "BottomRight") keep[size_t(j)] = j <= i + Skv - Sq;
          logit[size_t(j)] = s;
        }
        bool any = false;
        for (bool kp : keep) any = any || kp;
        // A fully masked row weighs every key equally.
        double mx = -INFINITY;
        for (int64_t j = 0; j < Skv; ++j)
          if (keep[size_t(j)] || !any) mx = std::max(mx, logit[size_t(j)]);
        std::vector<double> p(static_cast<size_t>(Skv), 0.0);
        double total = 0;
        for (int64_t j = 0; j < Skv; ++j) {
          if (!any)
            p[size_t(j)] = 1;
          else if (keep[size_t(j)])
            p[size_t(j)] = std::exp(logit[size_t(j)] - mx);
          total += p[size_t(j)];
        }
        for (int64_t e = 0; e < Dv; ++e) {
          double s = 0;
          for (int64_t j = 0; j < Skv; ++j)
            s += p[size_t(j)] * v[size_t(((b * Skv + j) * H + h) * Dv + e)];
          out[size_t(((b * Sq + i) * H + h) * Dv + e)] = s / total;
        }
      }
  return out;
}

class Attention : public ::testing::TestWithParam<bool> {};

TEST_P(Attention, ScaleBiasAndCausalMasks) {
  struct Case {
    int64_t sq, skv;
    bool bias;
    std::optional<double> scale;
    std::string mask;
  };
  const Case cases[] = {{3, 5, false, std::nullopt, ""},
                        {3, 5, true, 0.7, ""},
                        {4, 4, false, std::nullopt, "TopLeft"},
                        {3, 5, true, std::nullopt, "TopLeft"},
                        {3, 5, false, 0.5, "BottomRight"},
                        {5, 3, false, std::nullopt, "BottomRight"}};  // rows 0, 1 fully masked
  for (const Case& c : cases) {
    SCOPED_TRACE(std::to_string(c.sq) + "x" + std::to_string(c.skv) + " mask '" + c.mask + "'" +
                 (c.bias ? " bias" : ""));
    const int64_t B = 2, H = 2, D = 3, Dv = 4;
    OpRunner r;
    auto q = param(r, "q", {B, c.sq, H, D}, GetParam());
    auto k = param(r, "k", {B, c.skv, H, D}, GetParam());
    auto v = param(r, "v", {B, c.skv, H, Dv}, GetParam());
    auto qa = random({B, c.sq, H, D}, kF32, 51, -2, 2),
         ka = random({B, c.skv, H, D}, kF32, 52, -2, 2), va = random({B, c.skv, H, Dv}, kF32, 53);
    std::vector<std::pair<Ref<Var>, runtime::NDArray>> inputs = {{q, qa}, {k, ka}, {v, va}};
    std::optional<Expr> bias;
    runtime::NDArray ba = random({1, H, c.sq, c.skv}, kF32, 54);
    Host hb = host_of(ba);
    if (c.bias) {
      auto bv = r.param("bias", std::vector<int64_t>{1, H, c.sq, c.skv}, kF32);
      inputs.push_back({bv, ba});
      bias = bv;
    }
    double scale = c.scale ? *c.scale : 1 / std::sqrt(double(D));
    auto want =
        attention_ref(host_of(qa), host_of(ka), host_of(va), c.bias ? &hb : nullptr, scale, c.mask);
    EXPECT_TRUE(tensor_close_to(r.run1(op::attention(q, k, v, bias, c.scale, c.mask), inputs),
                                {B, c.sq, H, Dv}, want, 1e-5, 1e-6));
  }
}

INSTANTIATE_TEST_SUITE_P(Ops, Attention, ::testing::Values(false, true), [](const auto& info) {
  return info.param ? std::string("Symbolic") : std::string("Static");
});

TEST(AttentionInfer, ShapesAndErrors) {
  OpRunner r;
  auto q = r.param("q", {PrimExpr(n), int_imm(7), int_imm(4), int_imm(16)}, kF32);
  auto k = r.param("k", {PrimExpr(n), int_imm(9), int_imm(4), int_imm(16)}, kF32);
  auto v = r.param("v", {PrimExpr(n), int_imm(9), int_imm(4), int_imm(8)}, kF32);
  auto k5 = r.param("k5", std::vector<int64_t>{1, 9, 5, 16}, kF32);
  auto v8 = r.param("v8", std::vector<int64_t>{1, 8, 4, 8}, kF32);
  auto kd = r.param("kd", std::vector<int64_t>{1, 9, 4, 12}, kF32);
  auto q3 = r.param("q3", std::vector<int64_t>{7, 4, 16}, kF32);
  auto b_ok = r.param("b_ok", std::vector<int64_t>{7, 9}, kF32);
  auto b_bad = r.param("b_bad", std::vector<int64_t>{1, 4, 7, 3}, kF32);
  auto vi = r.param("vi", std::vector<int64_t>{1, 9, 4, 8}, kI32);
  EXPECT_EQ(r.infer(op::attention(q, k, v)), "Tensor((n, 7, 4, 8), float32)");
  EXPECT_EQ(r.infer(op::attention(q, k, v, Expr(b_ok), 0.1, "BottomRight")),
            "Tensor((n, 7, 4, 8), float32)");
  EXPECT_ERROR_HAS(op::attention(q, k5, v),
                   "relax.nn.attention: the head counts of query and key differ: 4 vs 5");
  EXPECT_ERROR_HAS(op::attention(q, k, v8),
                   "relax.nn.attention: the sequence lengths of key and value differ: 9 vs 8");
  EXPECT_ERROR_HAS(op::attention(q, kd, v),
                   "relax.nn.attention: the head dims of query and key differ: 16 vs 12");
  EXPECT_ERROR_HAS(op::attention(q3, k, v),
                   "relax.nn.attention: 'query' should have rank 4 (batch, seq, heads, head_dim)");
  EXPECT_ERROR_HAS(op::attention(q, k, v, Expr(b_bad)),
                   "relax.nn.attention: shapes cannot broadcast: dimension 3 is 9 in one operand "
                   "and 3 in the other");
  EXPECT_ERROR_HAS(op::attention(q, k, v, std::nullopt, std::nullopt, "Diagonal"),
                   "relax.nn.attention: causal_mask 'Diagonal' is not supported; expected TopLeft "
                   "or BottomRight");
  EXPECT_ERROR_HAS(op::attention(q, k, vi), "relax.nn.attention: ");
  EXPECT_ERROR_HAS(call_op("relax.nn.attention", {q, k, v, b_ok, b_ok}),
                   "relax.nn.attention takes 3 or 4 arguments");
}

}  // namespace
}  // namespace relax::ops_test
