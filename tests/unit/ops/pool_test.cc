// Pooling of every rank (max/avg_pool1d/2d/3d, adaptive_avg_pool1d/2d/3d) against direct
// loops: strides, dilation, asymmetric padding, ceil_mode, count_include_pad and layouts, with
// static and symbolic (batch) shapes. References work in NC... and permute for other layouts.
#include <cmath>
#include <string>

#include "ops_test_common.h"

namespace relax::ops_test {
namespace {

enum class Kind { kMax, kAvg, kAvgPad };

struct PoolRef {
  std::vector<int64_t> k, strides, dilation, pad_before, pad_after;
  bool ceil_mode = false;
};

/// Pooling of x (N, C, S...).
Host pool_ref(const Host& x, const PoolRef& a, Kind kind) {
  size_t dims = x.shape.size() - 2;
  Host out{{x.shape[0], x.shape[1]}, {}};
  for (size_t d = 0; d < dims; ++d) {
    int64_t span = x.shape[2 + d] + a.pad_before[d] + a.pad_after[d] -
                   (a.dilation[d] * (a.k[d] - 1) + 1) + (a.ceil_mode ? a.strides[d] - 1 : 0);
    out.shape.push_back(span / a.strides[d] + 1);
  }
  out.data.resize(size_t(numel(out.shape)));
  for (int64_t f = 0; f < int64_t(out.size()); ++f) {
    std::vector<int64_t> oi = unravel(f, out.shape);
    double mx = -INFINITY, s = 0;
    int64_t valid = 0, padded = 0;
    for (int64_t t = 0; t < numel(a.k); ++t) {
      std::vector<int64_t> tk = unravel(t, a.k), xi{oi[0], oi[1]};
      bool in = true, in_padded = true;
      for (size_t d = 0; d < dims; ++d) {
        int64_t p = oi[2 + d] * a.strides[d] + tk[d] * a.dilation[d] - a.pad_before[d];
        in = in && p >= 0 && p < x.shape[2 + d];
        in_padded = in_padded && p < x.shape[2 + d] + a.pad_after[d];
        xi.push_back(p);
      }
      padded += in_padded;
      if (!in) continue;
      double v = x[size_t(offset(xi, x.shape))];
      mx = std::max(mx, v);
      s += v;
      ++valid;
    }
    double cnt = double(std::max<int64_t>(kind == Kind::kAvgPad ? padded : valid, 1));
    out.data[size_t(f)] = kind == Kind::kMax ? mx : s / cnt;
  }
  return out;
}

/// Adaptive average pooling of x (N, C, S...) to `size`.
Host adaptive_ref(const Host& x, const std::vector<int64_t>& size) {
  size_t dims = x.shape.size() - 2;
  Host out{{x.shape[0], x.shape[1]}, {}};
  for (int64_t s : size) out.shape.push_back(s);
  out.data.resize(size_t(numel(out.shape)));
  for (int64_t f = 0; f < int64_t(out.size()); ++f) {
    std::vector<int64_t> oi = unravel(f, out.shape), lo, ext;
    for (size_t d = 0; d < dims; ++d) {
      int64_t in = x.shape[2 + d], o = size[d];
      int64_t start = oi[2 + d] * in / o;
      int64_t end = ((oi[2 + d] + 1) * in + o - 1) / o;
      lo.push_back(start);
      ext.push_back(end - start);
    }
    double s = 0;
    for (int64_t t = 0; t < numel(ext); ++t) {
      std::vector<int64_t> tk = unravel(t, ext), xi{oi[0], oi[1]};
      for (size_t d = 0; d < dims; ++d) xi.push_back(lo[d] + tk[d]);
      s += x[size_t(offset(xi, x.shape))];
    }
    out.data[size_t(f)] = s / double(numel(ext));
  }
  return out;
}

std::string canonical(size_t dims) { return "NC" + std::string("DHW").substr(3 - dims); }

/// Runs `call(x)` on random data of canonical shape `shape` permuted to `layout`, and
/// compares with `want` (canonical) permuted likewise.
void check(const std::function<Expr(Expr)>& call, const std::vector<int64_t>& shape,
           const std::string& layout, const std::function<Host(const Host&)>& ref, bool symbolic) {
  SCOPED_TRACE(layout);
  std::string canon = canonical(shape.size() - 2);
  Host hx = host_of(random(shape, kF32, 31, -3, 3));
  Host want = permute(ref(hx), canon, layout), px = permute(hx, canon, layout);
  OpRunner r;
  auto x = param(r, "x", px.shape, symbolic);
  EXPECT_TRUE(tensor_close_to(r.run1(call(x), {{x, array_of(px.shape, kF32, px.data)}}), want.shape,
                              want.data, 1e-5, 1e-6));
}

op::PoolOptions pool_options(const PoolRef& a, std::vector<int64_t> padding, Kind kind,
                             const std::string& layout) {
  op::PoolOptions o;
  o.pool_size = a.k;
  o.strides = a.strides;
  o.dilation = a.dilation;
  o.padding = std::move(padding);
  o.ceil_mode = a.ceil_mode;
  o.count_include_pad = kind == Kind::kAvgPad;
  o.layout = layout;
  return o;
}

class Pool : public ::testing::TestWithParam<bool> {};

TEST_P(Pool, Pool1dCeilModeDilationAsymmetricPadding) {
  // Length 10, window 3 dilated by 2 (span 5), stride 2, padding (2, 1), ceil_mode: the last
  // window runs past the right padding, which count_include_pad must not count.
  PoolRef a{{3}, {2}, {2}, {2}, {1}, true};
  for (Kind kind : {Kind::kMax, Kind::kAvg, Kind::kAvgPad}) {
    for (const char* layout : {"NCW", "NWC"}) {
      op::PoolOptions o = pool_options(a, {2, 1}, kind, layout);
      auto call = [&](Expr x) {
        return kind == Kind::kMax ? op::max_pool1d(x, o) : op::avg_pool1d(x, o);
      };
      check(
          call, {2, 3, 10}, layout, [&](const Host& h) { return pool_ref(h, a, kind); },
          GetParam());
    }
  }
}

TEST_P(Pool, PaddingMoreThanHalfTheWindow) {
  // Window 3 with padding 2 on both sides (ONNX's maxpool/averagepool_2d_pads): the edge
  // windows hold one input tap; count_include_pad counts the padding.
  PoolRef a{{3, 3}, {1, 1}, {1, 1}, {2, 2}, {2, 2}, false};
  for (Kind kind : {Kind::kMax, Kind::kAvg, Kind::kAvgPad}) {
    op::Pool2DOptions o;
    o.pool_size = a.k;
    o.padding = {2, 2, 2, 2};
    o.count_include_pad = kind == Kind::kAvgPad;
    auto call = [&](Expr x) {
      return kind == Kind::kMax ? op::max_pool2d(x, o) : op::avg_pool2d(x, o);
    };
    check(
        call, {1, 2, 5, 5}, "NCHW", [&](const Host& h) { return pool_ref(h, a, kind); },
        GetParam());
  }
}

TEST_P(Pool, Pool2dLayoutsCeilModeAndPadding) {
  PoolRef a{{3, 2}, {2, 2}, {1, 1}, {1, 0}, {1, 1}, true};
  for (Kind kind : {Kind::kMax, Kind::kAvg, Kind::kAvgPad}) {
    for (const char* layout : {"NCHW", "NHWC"}) {
      op::Pool2DOptions o;
      o.pool_size = a.k;
      o.strides = a.strides;
      o.padding = {1, 0, 1, 1};
      o.ceil_mode = true;
      o.count_include_pad = kind == Kind::kAvgPad;
      o.layout = layout;
      auto call = [&](Expr x) {
        return kind == Kind::kMax ? op::max_pool2d(x, o) : op::avg_pool2d(x, o);
      };
      check(
          call, {2, 3, 6, 7}, layout, [&](const Host& h) { return pool_ref(h, a, kind); },
          GetParam());
    }
  }
}

TEST_P(Pool, Pool3d) {
  PoolRef a{{2, 2, 3}, {1, 2, 2}, {1, 1, 1}, {0, 1, 1}, {1, 0, 1}, false};
  for (Kind kind : {Kind::kMax, Kind::kAvg, Kind::kAvgPad}) {
    for (const char* layout : {"NCDHW", "NDHWC"}) {
      op::PoolOptions o = pool_options(a, {0, 1, 1, 1, 0, 1}, kind, layout);
      auto call = [&](Expr x) {
        return kind == Kind::kMax ? op::max_pool3d(x, o) : op::avg_pool3d(x, o);
      };
      check(
          call, {1, 2, 3, 5, 5}, layout, [&](const Host& h) { return pool_ref(h, a, kind); },
          GetParam());
    }
  }
}

TEST_P(Pool, AdaptiveAvgPool) {
  check([](Expr x) { return op::adaptive_avg_pool1d(x, {3}); }, {2, 3, 7}, "NCW",
        [](const Host& h) { return adaptive_ref(h, {3}); }, GetParam());
  check([](Expr x) { return op::adaptive_avg_pool1d(x, {4}, "NWC"); }, {2, 3, 10}, "NWC",
        [](const Host& h) { return adaptive_ref(h, {4}); }, GetParam());
  for (const char* layout : {"NCHW", "NHWC"}) {
    check(
        [&](Expr x) {
          return op::adaptive_avg_pool2d(x, {3, 2}, layout);
        },
        {2, 2, 7, 5}, layout,
        [](const Host& h) {
          return adaptive_ref(h, {3, 2});
        },
        GetParam());
  }
  // Global pooling (output 1) and the default output size (the input's: identity).
  check([](Expr x) { return op::adaptive_avg_pool2d(x, {1}); }, {2, 3, 4, 5}, "NCHW",
        [](const Host& h) {
          return adaptive_ref(h, {1, 1});
        },
        GetParam());
  check([](Expr x) { return op::adaptive_avg_pool2d(x); }, {1, 2, 3, 3}, "NCHW",
        [](const Host& h) {
          return adaptive_ref(h, {3, 3});
        },
        GetParam());
  check(
      [](Expr x) {
        return op::adaptive_avg_pool3d(x, {2, 3, 1});
      },
      {1, 2, 5, 4, 3}, "NCDHW",
      [](const Host& h) {
        return adaptive_ref(h, {2, 3, 1});
      },
      GetParam());
}

INSTANTIATE_TEST_SUITE_P(Ops, Pool, ::testing::Values(false, true), [](const auto& info) {
  return info.param ? std::string("Symbolic") : std::string("Static");
});

TEST(PoolInfer, ShapesAndErrors) {
  OpRunner r;
  auto x1 = r.param("x1", {PrimExpr(n), int_imm(3), int_imm(10)}, kF32);
  auto x2 = r.param("x2", {PrimExpr(n), int_imm(9), int_imm(8), int_imm(4)}, kF32);
  auto x3 = r.param("x3", {PrimExpr(n), int_imm(2), int_imm(4), int_imm(6), int_imm(6)}, kF32);
  auto m = tir::var("m");
  auto xs = r.param("xs", {PrimExpr(n), int_imm(3), PrimExpr(m)}, kF32);
  auto b = r.param("b", std::vector<int64_t>{1, 2, 3}, kBool);
  op::PoolOptions o;
  o.pool_size = {3};
  o.strides = {2};
  o.dilation = {2};
  o.padding = {2, 1};
  o.ceil_mode = true;
  EXPECT_EQ(r.infer(op::max_pool1d(x1, o)), "Tensor((n, 3, 5), float32)");
  EXPECT_EQ(r.infer(op::avg_pool1d(xs, o)), "Tensor((n, 3, (m + 1) // 2), float32)")
      << "a symbolic spatial dim keeps its expression";
  op::Pool2DOptions p;
  p.pool_size = {3, 3};
  p.strides = {2, 2};
  p.layout = "NHWC";
  EXPECT_EQ(r.infer(op::max_pool2d(x2, p)), "Tensor((n, 4, 3, 4), float32)");
  o = {};
  o.pool_size = {2};
  o.strides = {2};
  o.layout = "NDHWC";
  EXPECT_EQ(r.infer(op::avg_pool3d(x3, o)), "Tensor((n, 1, 2, 3, 6), float32)");
  EXPECT_EQ(r.infer(op::adaptive_avg_pool2d(x2, {2}, "NHWC")), "Tensor((n, 2, 2, 4), float32)");
  EXPECT_EQ(r.infer(op::adaptive_avg_pool1d(xs)), "Tensor((n, 3, m), float32)");
  EXPECT_EQ(r.infer(op::adaptive_avg_pool3d(x3, {1, 2, 3})), "Tensor((n, 2, 1, 2, 3), float32)");

  o = {};
  o.pool_size = {3};
  o.padding = {3};
  EXPECT_ERROR_HAS(op::max_pool1d(x1, o),
                   "relax.nn.max_pool1d: padding 3 is not smaller than the window (3)");
  o.padding = {0};
  o.layout = "NCHW";
  EXPECT_ERROR_HAS(op::avg_pool1d(x1, o),
                   "relax.nn.avg_pool1d: layout 'NCHW' is not supported; expected a permutation "
                   "of N, C, W");
  o.layout = "";
  EXPECT_ERROR_HAS(op::max_pool3d(x1, o), "relax.nn.max_pool3d: data should have rank 5 (NCDHW)");
  o.pool_size = {11};
  EXPECT_ERROR_HAS(op::max_pool1d(x1, o),
                   "relax.nn.max_pool1d: the window of spatial dim 0 is larger than the padded");
  o.pool_size = {1, 2};
  EXPECT_ERROR_HAS(op::max_pool1d(x1, o), "relax.nn.max_pool1d: 'pool_size' takes 1 value, got 2");
  EXPECT_ERROR_HAS(op::max_pool1d(b, op::PoolOptions{}),
                   "relax.nn.max_pool1d: needs a numeric tensor, got bool");
  EXPECT_ERROR_HAS(op::adaptive_avg_pool2d(x2, {2, 0}),
                   "relax.nn.adaptive_avg_pool2d: 'output_size' values must be positive, got 0");
  EXPECT_ERROR_HAS(op::adaptive_avg_pool2d(x2, {1, 2, 3}),
                   "relax.nn.adaptive_avg_pool2d: 'output_size' takes 1 or 2 values, got 3");
}

}  // namespace
}  // namespace relax::ops_test
