// relax.image.resize2d against a direct implementation of ONNX Resize: every method,
// coordinate transformation mode and nearest rounding method, cubic_alpha / cubic_exclude,
// tf_crop_and_resize with roi and extrapolation_value, NCHW and NHWC, static and symbolic
// batch. Nearest cases use sizes whose scales are exact in binary, so the kernel's float32
// coordinates and the reference's doubles round identically.
#include <cmath>
#include <string>

#include "ops_test_common.h"

namespace relax::ops_test {
namespace {

struct Spec {
  std::string method = "linear", mode = "half_pixel", rounding = "round";
  double alpha = -0.5;
  bool exclude = false;
  std::vector<double> roi{0, 0, 0, 0};
  double extrapolation = 0;
};

double source(const Spec& s, int dim, int64_t x, int64_t in, int64_t out) {
  double scale = double(in) / double(out), fx = double(x);
  if (s.mode == "half_pixel") return (fx + 0.5) * scale - 0.5;
  if (s.mode == "pytorch_half_pixel") return out > 1 ? (fx + 0.5) * scale - 0.5 : 0;
  if (s.mode == "align_corners") return out > 1 ? fx * double(in - 1) / double(out - 1) : 0;
  if (s.mode == "asymmetric") return fx * scale;
  if (s.mode == "tf_half_pixel_for_nn") return (fx + 0.5) * scale;
  double a = s.roi[size_t(dim)], b = s.roi[size_t(dim) + 2];
  return out > 1 ? a * double(in - 1) + fx * (b - a) * double(in - 1) / double(out - 1)
                 : 0.5 * (a + b) * double(in - 1);
}

int64_t nearest(const Spec& s, double c, int64_t in) {
  double r = s.rounding == "floor"                ? std::floor(c)
             : s.rounding == "ceil"               ? std::ceil(c)
             : s.rounding == "round_prefer_floor" ? std::ceil(c - 0.5)
             : s.rounding == "round_prefer_ceil"  ? std::floor(c + 0.5)
                                                  : std::round(c);  // half away from zero
  return std::min<int64_t>(std::max<int64_t>(int64_t(r), 0), in - 1);
}

/// Keys' cubic convolution kernel.
double keys(double d, double a) {
  d = std::abs(d);
  if (d <= 1) return (a + 2) * d * d * d - (a + 3) * d * d + 1;
  if (d < 2) return a * d * d * d - 5 * a * d * d + 8 * a * d - 4 * a;
  return 0;
}

/// Taps (unclamped) and weights of one dim.
void taps_of(const Spec& s, double c, int64_t in, std::vector<int64_t>* taps,
             std::vector<double>* w) {
  int64_t base = int64_t(std::floor(c));
  double f = c - std::floor(c);
  if (s.method == "linear") {
    *taps = {base, base + 1};
    *w = {1 - f, f};
    return;
  }
  *taps = {base - 1, base, base + 1, base + 2};
  *w = {keys(1 + f, s.alpha), keys(f, s.alpha), keys(1 - f, s.alpha), keys(2 - f, s.alpha)};
  if (s.exclude) {
    double total = 0;
    for (size_t k = 0; k < 4; ++k) {
      if ((*taps)[k] < 0 || (*taps)[k] >= in) (*w)[k] = 0;
      total += (*w)[k];
    }
    for (double& v : *w) v /= total;
  }
}

/// ONNX Resize of NCHW data x (shape N, C, H, W) to (oh, ow).
Host resize_ref(const Host& x, const Spec& s, int64_t oh, int64_t ow) {
  int64_t N = x.shape[0], C = x.shape[1], H = x.shape[2], W = x.shape[3];
  Host out{{N, C, oh, ow}, {}};
  for (int64_t b = 0; b < N * C; ++b)
    for (int64_t y = 0; y < oh; ++y)
      for (int64_t z = 0; z < ow; ++z) {
        double cy = source(s, 0, y, H, oh), cz = source(s, 1, z, W, ow);
        auto at = [&](int64_t i, int64_t j) {
          i = std::min<int64_t>(std::max<int64_t>(i, 0), H - 1);
          j = std::min<int64_t>(std::max<int64_t>(j, 0), W - 1);
          return x[size_t((b * H + i) * W + j)];
        };
        double v = 0;
        if (s.method == "nearest_neighbor") {
          v = at(nearest(s, cy, H), nearest(s, cz, W));
        } else {
          std::vector<int64_t> ty, tz;
          std::vector<double> wy, wz;
          taps_of(s, cy, H, &ty, &wy);
          taps_of(s, cz, W, &tz, &wz);
          for (size_t p = 0; p < ty.size(); ++p)
            for (size_t q = 0; q < tz.size(); ++q) v += wy[p] * wz[q] * at(ty[p], tz[q]);
        }
        if (s.mode == "tf_crop_and_resize" &&
            (cy < 0 || cy > double(H - 1) || cz < 0 || cz > double(W - 1)))
          v = s.extrapolation;
        out.data.push_back(v);
      }
  return out;
}

/// NCHW <-> NHWC of host data.
Host to_nhwc(const Host& h) {
  int64_t N = h.shape[0], C = h.shape[1], H = h.shape[2], W = h.shape[3];
  Host o{{N, H, W, C}, std::vector<double>(h.size())};
  for (int64_t b = 0; b < N; ++b)
    for (int64_t c = 0; c < C; ++c)
      for (int64_t i = 0; i < H * W; ++i)
        o.data[size_t((b * H * W + i) * C + c)] = h[size_t((b * C + c) * H * W + i)];
  return o;
}

void check(const Spec& s, std::vector<int64_t> in, int64_t oh, int64_t ow, bool nhwc,
           bool symbolic) {
  SCOPED_TRACE(s.method + " " + s.mode + " " + s.rounding + (nhwc ? " NHWC" : " NCHW") + " alpha " +
               std::to_string(s.alpha) + (s.exclude ? " exclude" : ""));
  Host hx = host_of(random(in, kF32, 41, -2, 2));
  Host want = resize_ref(hx, s, oh, ow);
  if (nhwc) {
    hx = to_nhwc(hx);
    want = to_nhwc(want);
  }
  OpRunner r;
  std::vector<PrimExpr> shape = const_shape(hx.shape);
  if (symbolic) shape[0] = n;
  auto x = r.param("x", shape, kF32);
  op::Resize2DOptions o;
  o.method = s.method;
  o.coordinate_transformation_mode = s.mode;
  o.rounding_method = s.rounding;
  o.cubic_alpha = s.alpha;
  o.cubic_exclude = s.exclude;
  o.roi = s.roi;
  o.extrapolation_value = s.extrapolation;
  o.layout = nhwc ? "NHWC" : "NCHW";
  Expr call = op::resize2d(x, {int_imm(oh), int_imm(ow)}, o);
  EXPECT_TRUE(tensor_close_to(r.run1(call, {{x, array_of(hx.shape, kF32, hx.data)}}), want.shape,
                              want.data, 1e-5, 1e-5));
}

class Resize : public ::testing::TestWithParam<bool> {};

TEST_P(Resize, NearestEveryRoundingAndMode) {
  for (const char* rounding :
       {"round", "floor", "ceil", "round_prefer_floor", "round_prefer_ceil"}) {
    for (const char* mode :
         {"half_pixel", "asymmetric", "tf_half_pixel_for_nn", "pytorch_half_pixel"}) {
      Spec s;
      s.method = "nearest_neighbor";
      s.mode = mode;
      s.rounding = rounding;
      // Scales 6 / 4 and 3 / 4 are exact; asymmetric hits the .5 ties that tell the
      // rounding methods apart.
      check(s, {2, 2, 6, 3}, 4, 4, false, GetParam());
    }
    Spec s;
    s.method = "nearest_neighbor";
    s.mode = "align_corners";
    s.rounding = rounding;
    check(s, {1, 2, 5, 4}, 3, 4, false, GetParam());
  }
  Spec s;  // pytorch_half_pixel with an output extent of 1 reads coordinate 0
  s.method = "nearest_neighbor";
  s.mode = "pytorch_half_pixel";
  check(s, {1, 2, 6, 3}, 1, 4, true, GetParam());
}

TEST_P(Resize, LinearEveryMode) {
  for (const char* mode : {"half_pixel", "align_corners", "asymmetric", "pytorch_half_pixel",
                           "tf_half_pixel_for_nn"}) {
    Spec s;
    s.mode = mode;
    for (bool nhwc : {false, true}) check(s, {2, 3, 5, 4}, 7, 3, nhwc, GetParam());
  }
}

TEST_P(Resize, CubicAlphaAndExclude) {
  for (double alpha : {-0.5, -0.75}) {
    for (bool exclude : {false, true}) {
      for (const char* mode : {"half_pixel", "align_corners", "asymmetric"}) {
        Spec s;
        s.method = "cubic";
        s.mode = mode;
        s.alpha = alpha;
        s.exclude = exclude;
        check(s, {1, 2, 4, 5}, 7, 3, exclude, GetParam());
      }
    }
  }
}

TEST_P(Resize, TfCropAndResizeExtrapolates) {
  for (const char* method : {"nearest_neighbor", "linear", "cubic"}) {
    Spec s;
    s.method = method;
    s.mode = "tf_crop_and_resize";
    s.roi = {0.2, 0.1, 0.9, 1.2};  // the right edge of the crop lies outside: extrapolated
    s.extrapolation = 7.5;
    check(s, {1, 2, 5, 4}, 4, 3, false, GetParam());
  }
}

INSTANTIATE_TEST_SUITE_P(Ops, Resize, ::testing::Values(false, true), [](const auto& info) {
  return info.param ? std::string("Symbolic") : std::string("Static");
});

TEST(ResizeInfer, ShapesAndErrors) {
  OpRunner r;
  auto m = tir::var("m");
  auto x = r.param("x", {PrimExpr(n), int_imm(3), int_imm(8), int_imm(8)}, kF32);
  auto i = r.param("i", std::vector<int64_t>{1, 3, 4, 4}, kI32);
  auto v = r.param("v", std::vector<int64_t>{3, 4, 4}, kF32);
  EXPECT_EQ(r.infer(op::resize2d(x, {int_imm(16), PrimExpr(m)})), "Tensor((n, 3, 16, m), float32)");
  op::Resize2DOptions o;
  o.layout = "NHWC";
  EXPECT_EQ(r.infer(op::resize2d(x, {int_imm(5)}, o)), "Tensor((n, 5, 5, 8), float32)");
  o = {};
  o.method = "nearest_neighbor";
  EXPECT_EQ(r.infer(op::resize2d(i, {int_imm(2), int_imm(2)}, o)), "Tensor((1, 3, 2, 2), int32)");
  o.out_dtype = DataType::Float(32);
  EXPECT_EQ(r.infer(op::resize2d(i, {int_imm(2), int_imm(2)}, o)), "Tensor((1, 3, 2, 2), float32)");

  EXPECT_ERROR_HAS(op::resize2d(i, {int_imm(2), int_imm(2)}),
                   "relax.image.resize2d: method 'linear' needs floating-point data, got int32");
  EXPECT_ERROR_HAS(op::resize2d(v, {int_imm(2), int_imm(2)}),
                   "relax.image.resize2d: data should have rank 4 (NCHW), got rank 3");
  EXPECT_ERROR_HAS(op::resize2d(x, {int_imm(2), int_imm(0)}),
                   "relax.image.resize2d: output size 0 is not positive");
  EXPECT_ERROR_HAS(op::resize2d(x, {int_imm(2), int_imm(2), int_imm(2)}),
                   "relax.image.resize2d: 'size' takes 1 or 2 values (height, width), got 3");
  o = {};
  o.method = "bilinear";
  EXPECT_ERROR_HAS(op::resize2d(x, {int_imm(2)}, o),
                   "relax.image.resize2d: method 'bilinear' is not supported; expected one of "
                   "nearest_neighbor, linear, cubic");
  o = {};
  o.coordinate_transformation_mode = "half";
  EXPECT_ERROR_HAS(op::resize2d(x, {int_imm(2)}, o),
                   "relax.image.resize2d: coordinate_transformation_mode 'half' is not supported");
  o = {};
  o.rounding_method = "nearest";
  EXPECT_ERROR_HAS(op::resize2d(x, {int_imm(2)}, o),
                   "relax.image.resize2d: rounding_method 'nearest' is not supported");
  o = {};
  o.layout = "NCWH";
  EXPECT_ERROR_HAS(op::resize2d(x, {int_imm(2)}, o),
                   "relax.image.resize2d: layout 'NCWH' is not supported; expected NCHW or NHWC");
  o = {};
  o.roi = {0, 1};
  EXPECT_ERROR_HAS(op::resize2d(x, {int_imm(2)}, o), "relax.image.resize2d: 'roi' takes 4 values");
}

}  // namespace
}  // namespace relax::ops_test
