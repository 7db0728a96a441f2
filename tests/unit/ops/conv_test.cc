// Convolutions of every rank (conv1d, conv2d, conv3d, conv1d_transpose, conv2d_transpose,
// conv3d_transpose)
// against direct loops: strides, dilation, groups, asymmetric padding, output_padding and
// each layout, with static and symbolic (batch) shapes. The references work in the canonical
// NC... / OI... layouts; other layouts are produced by permuting the host data, and the
// transposed reference scatters (out[i * s + k * d - pad] += x[i] * w[k]) where the kernel
// gathers, so the two are written independently.
#include <string>

#include "ops_test_common.h"

namespace relax::ops_test {
namespace {

struct ConvRef {
  std::vector<int64_t> strides, dilation, pad_before, pad_after, output_padding;
  int64_t groups = 1;
};

/// Convolution of x (N, C, S...) with w (O, I, K...), or for `transpose` with w
/// (C, O / groups, K...).
Host conv_ref(const Host& x, const Host& w, const ConvRef& a, bool transpose) {
  size_t dims = x.shape.size() - 2;
  int64_t N = x.shape[0], C = x.shape[1];
  int64_t O = transpose ? w.shape[1] * a.groups : w.shape[0];
  std::vector<int64_t> in(x.shape.begin() + 2, x.shape.end()),
      k(w.shape.begin() + 2, w.shape.end());
  Host out{{N, O}, {}};
  for (size_t d = 0; d < dims; ++d) {
    int64_t pad = a.pad_before[d] + a.pad_after[d], span = a.dilation[d] * (k[d] - 1) + 1;
    out.shape.push_back(transpose ? (in[d] - 1) * a.strides[d] - pad + span + a.output_padding[d]
                                  : (in[d] + pad - span) / a.strides[d] + 1);
  }
  std::vector<int64_t> os(out.shape.begin() + 2, out.shape.end());
  out.data.assign(size_t(numel(out.shape)), 0.0);
  int64_t ntaps = numel(k), cin_g = C / a.groups, cout_g = O / a.groups;
  if (!transpose) {
    for (int64_t f = 0; f < int64_t(out.size()); ++f) {
      std::vector<int64_t> oi = unravel(f, out.shape);
      int64_t g = oi[1] / cout_g;
      double s = 0;
      for (int64_t ic = 0; ic < cin_g; ++ic)
        for (int64_t t = 0; t < ntaps; ++t) {
          std::vector<int64_t> kk = unravel(t, k), xi{oi[0], g * cin_g + ic}, wi{oi[1], ic};
          bool ok = true;
          for (size_t d = 0; d < dims; ++d) {
            int64_t p = oi[2 + d] * a.strides[d] + kk[d] * a.dilation[d] - a.pad_before[d];
            ok = ok && p >= 0 && p < in[d];
            xi.push_back(p);
            wi.push_back(kk[d]);
          }
          if (ok) s += x[size_t(offset(xi, x.shape))] * w[size_t(offset(wi, w.shape))];
        }
      out.data[size_t(f)] = s;
    }
    return out;
  }
  for (int64_t f = 0; f < int64_t(x.size()); ++f) {
    std::vector<int64_t> xi = unravel(f, x.shape);
    int64_t g = xi[1] / cin_g;
    for (int64_t oc = 0; oc < cout_g; ++oc)
      for (int64_t t = 0; t < ntaps; ++t) {
        std::vector<int64_t> kk = unravel(t, k), oi{xi[0], g * cout_g + oc}, wi{xi[1], oc};
        bool ok = true;
        for (size_t d = 0; d < dims; ++d) {
          int64_t p = xi[2 + d] * a.strides[d] + kk[d] * a.dilation[d] - a.pad_before[d];
          ok = ok && p >= 0 && p < os[d];
          oi.push_back(p);
          wi.push_back(kk[d]);
        }
        if (ok) out.data[size_t(offset(oi, out.shape))] += x[f] * w[size_t(offset(wi, w.shape))];
      }
  }
  return out;
}

/// One case: canonical shapes, the reference attributes, the op's options and layouts.
struct Case {
  std::string what;
  Expr (*build)(Expr, Expr, const op::ConvOptions&);
  bool transpose;
  std::vector<int64_t> x_shape, w_shape;  // canonical NC.../OI... (IO... when transposed)
  ConvRef ref;
  op::ConvOptions opts;
  std::string data_layout, kernel_layout, out_layout;  // letters of the tensors passed
};

void run_case(const Case& c, bool symbolic) {
  SCOPED_TRACE(c.what);
  size_t dims = c.x_shape.size() - 2;
  std::string sp = std::string("DHW").substr(3 - dims);
  std::string canon_x = "NC" + sp, canon_w = (c.transpose ? "IO" : "OI") + sp;
  Host hx = host_of(random(c.x_shape, kF32, 21)), hw = host_of(random(c.w_shape, kF32, 22));
  hx.shape = c.x_shape;
  hw.shape = c.w_shape;
  Host want = conv_ref(hx, hw, c.ref, c.transpose);
  Host px = permute(hx, canon_x, c.data_layout), pw = permute(hw, canon_w, c.kernel_layout);
  Host pout = permute(want, canon_x, c.out_layout);
  OpRunner r;
  auto x = param(r, "x", px.shape, symbolic);
  auto w = r.param("w", pw.shape, kF32);
  op::ConvOptions o = c.opts;
  o.data_layout = c.data_layout;
  o.kernel_layout = c.kernel_layout;
  o.out_layout = c.out_layout;
  auto got = r.run1(c.build(x, w, o), {{x, array_of(px.shape, kF32, px.data)},
                                       {w, array_of(pw.shape, kF32, pw.data)}});
  EXPECT_TRUE(tensor_close_to(got, pout.shape, pout.data, 1e-5, 1e-5));
}

op::ConvOptions options(std::vector<int64_t> strides, std::vector<int64_t> padding,
                        std::vector<int64_t> dilation, int64_t groups,
                        std::vector<int64_t> output_padding = {0}) {
  op::ConvOptions o;
  o.strides = std::move(strides);
  o.padding = std::move(padding);
  o.dilation = std::move(dilation);
  o.groups = groups;
  o.output_padding = std::move(output_padding);
  return o;
}

Expr conv2d_generic(Expr x, Expr w, const op::ConvOptions& o) {
  op::Conv2DOptions c;
  c.strides = o.strides;
  c.padding = o.padding;
  c.dilation = o.dilation;
  c.groups = o.groups;
  c.data_layout = o.data_layout;
  c.kernel_layout = o.kernel_layout;
  c.out_layout = o.out_layout;
  return op::conv2d(std::move(x), std::move(w), c);
}

class Conv : public ::testing::TestWithParam<bool> {};

TEST_P(Conv, Conv1d) {
  // Stride 2, dilation 2, 2 groups, padding (left 1, right 2).
  ConvRef ref{{2}, {2}, {1}, {2}, {0}, 2};
  op::ConvOptions o = options({2}, {1, 2}, {2}, 2);
  for (auto [dl, kl] : {std::pair{"NCW", "OIW"}, std::pair{"NWC", "WIO"}}) {
    run_case(
        {std::string("conv1d ") + dl, op::conv1d, false, {2, 4, 11}, {6, 2, 3}, ref, o, dl, kl, dl},
        GetParam());
  }
}

TEST_P(Conv, Conv2dLayouts) {
  // Stride (2, 1), dilation (1, 2), 2 groups, padding (top 1, left 0, bottom 2, right 1).
  ConvRef ref{{2, 1}, {1, 2}, {1, 0}, {2, 1}, {0, 0}, 2};
  op::ConvOptions o = options({2, 1}, {1, 0, 2, 1}, {1, 2}, 2);
  const char* layouts[][3] = {{"NCHW", "OIHW", "NCHW"},
                              {"NHWC", "HWIO", "NHWC"},
                              {"NHWC", "OHWI", "NHWC"},
                              {"NHWC", "HWIO", "NCHW"}};
  for (auto& l : layouts) {
    run_case({std::string("conv2d ") + l[0] + "/" + l[1] + "->" + l[2],
              conv2d_generic,
              false,
              {2, 4, 7, 6},
              {6, 2, 3, 2},
              ref,
              o,
              l[0],
              l[1],
              l[2]},
             GetParam());
  }
}

TEST_P(Conv, Conv2dNhwcAwkwardSizes) {
  // NHWC / HWIO as convert-layout leaves the models (the llvm variant runs the register-blocked
  // and channel-wise schedules): depthwise with 20 channels (not a multiple of 8) at an odd
  // width, stride 1 and stride 2 with asymmetric padding; dense 3x3 with 24 output channels
  // over widths 13 and 7; a 7x7/2 stem with 3 input channels.
  auto nhwc = [&](std::string what, std::vector<int64_t> x, std::vector<int64_t> w, ConvRef ref,
                  std::vector<int64_t> padding) {
    op::ConvOptions o = options(ref.strides, std::move(padding), ref.dilation, ref.groups);
    run_case({what, conv2d_generic, false, std::move(x), std::move(w), ref, o, "NHWC", "HWIO",
              "NHWC"},
             GetParam());
  };
  nhwc("depthwise 3x3/1", {2, 20, 9, 13}, {20, 1, 3, 3},
       ConvRef{{1, 1}, {1, 1}, {1, 1}, {1, 1}, {0, 0}, 20}, {1});
  nhwc("depthwise 3x3/2", {1, 20, 11, 13}, {20, 1, 3, 3},
       ConvRef{{2, 2}, {1, 1}, {1, 0}, {2, 1}, {0, 0}, 20}, {1, 0, 2, 1});
  nhwc("dense 3x3/1", {1, 5, 10, 13}, {24, 5, 3, 3},
       ConvRef{{1, 1}, {1, 1}, {1, 1}, {1, 1}, {0, 0}, 1}, {1});
  nhwc("dense 3x3/2 to width 7", {2, 6, 14, 14}, {24, 6, 3, 3},
       ConvRef{{2, 2}, {1, 1}, {1, 1}, {1, 1}, {0, 0}, 1}, {1});
  nhwc("stem 7x7/2", {1, 3, 16, 15}, {16, 3, 7, 7},
       ConvRef{{2, 2}, {1, 1}, {3, 3}, {3, 3}, {0, 0}, 1}, {3});
}

TEST_P(Conv, Conv3d) {
  ConvRef ref{{1, 2, 1}, {1, 1, 2}, {0, 1, 1}, {1, 0, 1}, {0, 0, 0}, 1};
  op::ConvOptions o = options({1, 2, 1}, {0, 1, 1, 1, 0, 1}, {1, 1, 2}, 1);
  for (auto [dl, kl] : {std::pair{"NCDHW", "OIDHW"}, std::pair{"NDHWC", "DHWIO"}}) {
    run_case({std::string("conv3d ") + dl,
              op::conv3d,
              false,
              {1, 2, 3, 5, 4},
              {3, 2, 2, 2, 2},
              ref,
              o,
              dl,
              kl,
              dl},
             GetParam());
  }
}

TEST_P(Conv, Conv1dTranspose) {
  // Stride 2, padding (1, 0), output_padding 1, 2 groups; then dilation 2, stride 3.
  run_case({"conv1d_transpose s2 op1 g2",
            op::conv1d_transpose,
            true,
            {2, 4, 5},
            {4, 3, 3},
            ConvRef{{2}, {1}, {1}, {0}, {1}, 2},
            options({2}, {1, 0}, {1}, 2, {1}),
            "NCW",
            "IOW",
            "NCW"},
           GetParam());
  run_case({"conv1d_transpose s3 d2 NWC",
            op::conv1d_transpose,
            true,
            {1, 2, 4},
            {2, 3, 2},
            ConvRef{{3}, {2}, {2}, {1}, {2}, 1},
            options({3}, {2, 1}, {2}, 1, {2}),
            "NWC",
            "WIO",
            "NWC"},
           GetParam());
}

TEST_P(Conv, Conv2dTranspose) {
  ConvRef ref{{2, 1}, {1, 2}, {1, 0}, {0, 1}, {1, 0}, 2};
  op::ConvOptions o = options({2, 1}, {1, 0, 0, 1}, {1, 2}, 2, {1, 0});
  for (auto [dl, kl] : {std::pair{"NCHW", "IOHW"}, std::pair{"NHWC", "HWOI"}}) {
    run_case({std::string("conv2d_transpose ") + dl,
              op::conv2d_transpose,
              true,
              {2, 4, 3, 4},
              {4, 3, 3, 2},
              ref,
              o,
              dl,
              kl,
              dl},
             GetParam());
  }
}

TEST_P(Conv, Conv3dTranspose) {
  // Strides (2, 1, 2), padding (1, 0, 0 | 0, 1, 0), output_padding (1, 0, 0), dilation
  // (1, 1, 2), 2 groups.
  ConvRef ref{{2, 1, 2}, {1, 1, 2}, {1, 0, 0}, {0, 1, 0}, {1, 0, 0}, 2};
  op::ConvOptions o = options({2, 1, 2}, {1, 0, 0, 0, 1, 0}, {1, 1, 2}, 2, {1, 0, 0});
  for (auto [dl, kl] : {std::pair{"NCDHW", "IODHW"}, std::pair{"NDHWC", "DHWOI"}}) {
    run_case({std::string("conv3d_transpose ") + dl,
              op::conv3d_transpose,
              true,
              {1, 4, 3, 2, 3},
              {4, 1, 2, 2, 2},
              ref,
              o,
              dl,
              kl,
              dl},
             GetParam());
  }
}

INSTANTIATE_TEST_SUITE_P(Ops, Conv, ::testing::Values(false, true), [](const auto& info) {
  return info.param ? std::string("Symbolic") : std::string("Static");
});

TEST(ConvInfer, ShapesAndErrors) {
  OpRunner r;
  auto x1 = r.param("x1", {PrimExpr(n), int_imm(4), int_imm(11)}, kF32);
  auto w1 = r.param("w1", std::vector<int64_t>{6, 2, 3}, kF32);
  auto x2 = r.param("x2", {PrimExpr(n), int_imm(9), int_imm(9), int_imm(4)}, kF32);
  auto w2 = r.param("w2", std::vector<int64_t>{3, 3, 4, 8}, kF32);
  auto x3 = r.param("x3", {PrimExpr(n), int_imm(2), int_imm(4), int_imm(6), int_imm(6)}, kF32);
  auto w3 = r.param("w3", std::vector<int64_t>{5, 2, 3, 3, 3}, kF32);
  auto wt = r.param("wt", std::vector<int64_t>{4, 3, 3}, kF32);
  auto wt2 = r.param("wt2", std::vector<int64_t>{4, 2, 3, 3}, kF32);
  auto x2c = r.param("x2c", {PrimExpr(n), int_imm(4), int_imm(5), int_imm(5)}, kF32);

  EXPECT_EQ(r.infer(op::conv1d(x1, w1, options({2}, {1, 2}, {2}, 2))),
            "Tensor((n, 6, 5), float32)");
  op::Conv2DOptions c2;
  c2.data_layout = "NHWC";
  c2.kernel_layout = "HWIO";
  c2.padding = {1};
  c2.strides = {2, 2};
  EXPECT_EQ(r.infer(op::conv2d(x2, w2, c2)), "Tensor((n, 5, 5, 8), float32)");
  c2.out_layout = "NCHW";
  EXPECT_EQ(r.infer(op::conv2d(x2, w2, c2)), "Tensor((n, 8, 5, 5), float32)");
  op::ConvOptions wide = options({1}, {0}, {1}, 2);
  wide.out_dtype = DataType::Float(64);
  EXPECT_EQ(r.infer(op::conv1d(x1, w1, wide)), "Tensor((n, 6, 9), float64)");
  EXPECT_EQ(r.infer(op::conv3d(x3, w3, options({1, 2, 2}, {1}, {1}, 1))),
            "Tensor((n, 5, 4, 3, 3), float32)");
  // (11 - 1) * 2 - 1 + (3 - 1) + 1 + 1 = 23 with padding (1, 0), output_padding 1; 3 * 2
  // channels out of 2 groups.
  EXPECT_EQ(r.infer(op::conv1d_transpose(x1, wt, options({2}, {1, 0}, {1}, 2, {1}))),
            "Tensor((n, 6, 23), float32)");
  EXPECT_EQ(r.infer(op::conv2d_transpose(x2c, wt2, options({2}, {1}, {1}, 1, {1}))),
            "Tensor((n, 2, 10, 10), float32)");
  // (4 - 1) * 2 - 2 + 3 = 7, (6 - 1) * 1 - 2 + 3 = 6; weight (2, 5, 3, 3, 3): 5 channels out.
  auto wt3 = r.param("wt3", std::vector<int64_t>{2, 5, 3, 3, 3}, kF32);
  EXPECT_EQ(r.infer(op::conv3d_transpose(x3, wt3, options({2, 1, 1}, {1}, {1}, 1))),
            "Tensor((n, 5, 7, 6, 6), float32)");

  EXPECT_ERROR_HAS(op::conv1d(x1, w1, options({1}, {0}, {1}, 1)),
                   "relax.nn.conv1d: weight has 2 input channels per group, but data has 4 "
                   "channels in 1 group(s)");
  EXPECT_ERROR_HAS(op::conv1d(x1, w3),
                   "relax.nn.conv1d: weight should have rank 3 (OIW), got "
                   "rank 5");
  EXPECT_ERROR_HAS(op::conv3d(x1, w3), "relax.nn.conv3d: data should have rank 5 (NCDHW)");
  op::ConvOptions bad = options({1}, {0}, {1}, 1);
  bad.data_layout = "NCX";
  EXPECT_ERROR_HAS(op::conv1d(x1, w1, bad),
                   "relax.nn.conv1d: data_layout 'NCX' is not supported; expected a permutation "
                   "of N, C, W (e.g. NCW)");
  bad.data_layout = "";
  bad.kernel_layout = "OIHW";
  EXPECT_ERROR_HAS(op::conv1d(x1, w1, bad), "relax.nn.conv1d: kernel_layout 'OIHW'");
  EXPECT_ERROR_HAS(op::conv1d(x1, w1, options({1}, {1, 2, 3}, {1}, 2)),
                   "relax.nn.conv1d: 'padding' takes 1 or 2 values, got 3");
  EXPECT_ERROR_HAS(op::conv3d(x3, w3, options({1, 2}, {0}, {1}, 1)),
                   "relax.nn.conv3d: 'strides' takes 1 or 3 values, got 2");
  EXPECT_ERROR_HAS(op::conv1d(x1, w1, options({1}, {0}, {8}, 2)),
                   "relax.nn.conv1d: spatial dim 0 of the output would be -5");
  EXPECT_ERROR_HAS(op::conv1d_transpose(x1, wt, options({2}, {0}, {1}, 2, {2})),
                   "relax.nn.conv1d_transpose: output_padding 2 must be smaller than the stride "
                   "or the dilation (2)");
  EXPECT_ERROR_HAS(op::conv2d_transpose(x2, wt2, options({1}, {0}, {1}, 1)),
                   "relax.nn.conv2d_transpose: weight has 4 input channels (axis I of IOHW), but "
                   "data has 9 channels");
  EXPECT_ERROR_HAS(op::conv2d_transpose(x2c, wt2, options({1}, {0}, {1}, 3)),
                   "relax.nn.conv2d_transpose: input channels 4 are not divisible by groups 3");
}

}  // namespace
}  // namespace relax::ops_test
