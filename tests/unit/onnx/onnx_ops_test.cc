// ONNX converters, each on a one- or few-node model run through the interpreter target and
// compared with values computed here by hand or by plain loops; the per-opset forms
// (Softmax's axis, Unsqueeze/Clip attributes vs inputs) side by side.
#include <cmath>
#include <optional>

#include "onnx_test_util.h"
#include "relax/text/printer.h"

namespace relax::onnx_test {
namespace {

TEST(OnnxOps, GemmWithTransposesAlphaBetaAndBias) {
  // Y = 2 * A^T B^T + 0.5 * C; A: (3, 2) -> A^T (2, 3); B: (4, 3) -> B^T (3, 4); C: (4,).
  Model m;
  m.input("a", {int64_t(3), int64_t(2)}).output("y", 2);
  std::vector<float> b = iota(12, -3, 0.5f), c = {1, 2, 3, 4};
  m.init_f32("b", {4, 3}, b).init_f32("c", {4}, c);
  auto& n = m.node("Gemm", {"a", "b", "c"}, {"y"});
  set_int(n, "transA", 1);
  set_int(n, "transB", 1);
  set_float(n, "alpha", 2.0f);
  set_float(n, "beta", 0.5f);
  std::vector<float> a = iota(6, 1);
  std::vector<float> want(8);
  for (int i = 0; i < 2; ++i) {
    for (int j = 0; j < 4; ++j) {
      float s = 0;
      for (int k = 0; k < 3; ++k) s += a[size_t(k * 2 + i)] * b[size_t(j * 3 + k)];
      want[size_t(i * 4 + j)] = 2 * s + 0.5f * c[size_t(j)];
    }
  }
  EXPECT_TRUE(tensor_close_to(run(m.import("gemm"), {f32({3, 2}, a)}), {2, 4}, want));
}

/// Naive NCHW convolution with one group, for reference.
std::vector<float> conv_ref(const std::vector<float>& x, int c, int h, int w,
                            const std::vector<float>& k, int oc, int kh, int kw, int stride,
                            int pad_top, int pad_left, int oh, int ow) {
  std::vector<float> y(size_t(oc * oh * ow), 0.f);
  for (int o = 0; o < oc; ++o)
    for (int i = 0; i < oh; ++i)
      for (int j = 0; j < ow; ++j) {
        float s = 0;
        for (int ci = 0; ci < c; ++ci)
          for (int u = 0; u < kh; ++u)
            for (int v = 0; v < kw; ++v) {
              int r = i * stride + u - pad_top, q = j * stride + v - pad_left;
              if (r < 0 || r >= h || q < 0 || q >= w) continue;
              s += x[size_t((ci * h + r) * w + q)] * k[size_t(((o * c + ci) * kh + u) * kw + v)];
            }
        y[size_t((o * oh + i) * ow + j)] = s;
      }
  return y;
}

TEST(OnnxOps, ConvAutoPadSameUpperAndLowerWithStrideAndBias) {
  std::vector<float> x = iota(2 * 5 * 5, -1, 0.1f), k = iota(3 * 2 * 2 * 2, 0.5f, -0.05f);
  for (const char* mode : {"SAME_UPPER", "SAME_LOWER"}) {
    Model m;
    m.input("x", {int64_t(1), int64_t(2), int64_t(5), int64_t(5)}).output("y", 4);
    m.init_f32("w", {3, 2, 2, 2}, k).init_f32("b", {3}, {1, 2, 3});
    auto& n = m.node("Conv", {"x", "w", "b"}, {"y"});
    set_string(n, "auto_pad", mode);
    set_ints(n, "strides", {2, 2});
    // in 5, stride 2 -> out 3; total pad (3-1)*2 + 2 - 5 = 1: at the end (UPPER) or start.
    int before = std::string(mode) == "SAME_UPPER" ? 0 : 1;
    std::vector<float> want = conv_ref(x, 2, 5, 5, k, 3, 2, 2, 2, before, before, 3, 3);
    for (int o = 0; o < 3; ++o)
      for (int i = 0; i < 9; ++i) want[size_t(o * 9 + i)] += float(o + 1);
    NDArray y = run(m.import(std::string("conv_") + mode), {f32({1, 2, 5, 5}, x)});
    EXPECT_TRUE(tensor_close_to(y, {1, 3, 3, 3}, want, 1e-4f, 1e-4f)) << mode;
  }
}

/// Softmax of each row of length `inner` in `x`.
std::vector<float> softmax_rows(const std::vector<float>& x, size_t inner) {
  std::vector<float> y(x.size());
  for (size_t r = 0; r < x.size() / inner; ++r) {
    float mx = -1e30f, s = 0;
    for (size_t i = 0; i < inner; ++i) mx = std::max(mx, x[r * inner + i]);
    for (size_t i = 0; i < inner; ++i) s += std::exp(x[r * inner + i] - mx);
    for (size_t i = 0; i < inner; ++i) y[r * inner + i] = std::exp(x[r * inner + i] - mx) / s;
  }
  return y;
}

TEST(OnnxOps, SoftmaxAxisBeforeAndFromOpset13) {
  std::vector<float> x = iota(24, -2, 0.2f);
  // Opset 11, axis 1 on (2, 3, 4): rows of 12 (coerced to 2-D).
  Model old(11);
  old.input("x", {int64_t(2), int64_t(3), int64_t(4)}).output("y", 3);
  set_int(old.node("Softmax", {"x"}, {"y"}), "axis", 1);
  EXPECT_TRUE(tensor_close_to(run(old.import("softmax11"), {f32({2, 3, 4}, x)}), {2, 3, 4},
                              softmax_rows(x, 12)));
  // Opset 13, axis 1: along the middle axis only.
  Model now(13);
  now.input("x", {int64_t(2), int64_t(3), int64_t(4)}).output("y", 3);
  set_int(now.node("Softmax", {"x"}, {"y"}), "axis", 1);
  std::vector<float> want(24);
  for (int b = 0; b < 2; ++b)
    for (int k = 0; k < 4; ++k) {
      std::vector<float> col;
      for (int j = 0; j < 3; ++j) col.push_back(x[size_t(b * 12 + j * 4 + k)]);
      std::vector<float> s = softmax_rows(col, 3);
      for (int j = 0; j < 3; ++j) want[size_t(b * 12 + j * 4 + k)] = s[size_t(j)];
    }
  EXPECT_TRUE(tensor_close_to(run(now.import("softmax13"), {f32({2, 3, 4}, x)}), {2, 3, 4}, want));
}

TEST(OnnxOps, ReshapeFromAShapeChainFoldsToSymbolicDims) {
  // y = Reshape(x, Concat(Unsqueeze(Gather(Shape(x), 0)), [2], [-1])): (N, 6) -> (N, 2, 3).
  Model m;
  m.input("x", {std::string("N"), int64_t(6)}).output("y", 3);
  m.init_i64("zero", {}, {0}).init_i64("axes", {1}, {0});
  m.init_i64("two", {1}, {2}).init_i64("minus1", {1}, {-1});
  m.node("Shape", {"x"}, {"shape"});
  auto& g = m.node("Gather", {"shape", "zero"}, {"n"});
  set_int(g, "axis", 0);
  m.node("Unsqueeze", {"n", "axes"}, {"n1"});
  set_int(m.node("Concat", {"n1", "two", "minus1"}, {"target"}), "axis", 0);
  m.node("Reshape", {"x", "target"}, {"y"});
  IRModule mod = m.import("reshape_chain");
  std::string text = print_module(mod);
  EXPECT_NE(text.find("R.reshape(x, R.shape([N, 2, 3]))"), std::string::npos) << text;
  EXPECT_EQ(text.find("shape_of"), std::string::npos) << text;
  for (int64_t n : {1, 4}) {
    NDArray y = run(mod, {f32({n, 6}, iota(n * 6))});
    EXPECT_TRUE(tensor_close_to(y, {n, 2, 3}, iota(n * 6)));
  }
}

TEST(OnnxOps, NegOfAKnownShapeValueFolds) {
  // y = Reshape(x, Neg([-2, 1, -3]) * -1): the negation folds, so the target is static.
  Model m;
  m.input("x", {int64_t(6)}).output("y", 3);
  m.init_i64("neg_shape", {3}, {-2, 1, -3}).init_i64("minus1", {1}, {-1});
  m.node("Neg", {"neg_shape"}, {"pos"});
  m.node("Mul", {"pos", "minus1"}, {"back"});
  m.node("Neg", {"back"}, {"target"});
  m.node("Reshape", {"x", "target"}, {"y"});
  IRModule mod = m.import("neg_fold");
  std::string text = print_module(mod);
  EXPECT_EQ(text.find("R.negative"), std::string::npos) << text;
  EXPECT_EQ(run(mod, {f32({6}, iota(6))}).shape(), (std::vector<int64_t>{2, 1, 3}));
}

TEST(OnnxOps, ReshapeZeroCopiesAndMinusOneInfers) {
  Model m;
  m.input("x", {int64_t(2), int64_t(3), int64_t(4)}).output("y", 3);
  m.init_i64("shape", {3}, {0, -1, 2});
  m.node("Reshape", {"x", "shape"}, {"y"});
  NDArray y = run(m.import("reshape0"), {f32({2, 3, 4}, iota(24))});
  EXPECT_EQ(y.shape(), (std::vector<int64_t>{2, 6, 2}));
}

TEST(OnnxOps, UnsqueezeAttributeBeforeOpset13AndInputFrom13) {
  Model old(11);
  old.input("x", {int64_t(3)}).output("y", 3);
  set_ints(old.node("Unsqueeze", {"x"}, {"y"}), "axes", {0, -1});
  EXPECT_EQ(run(old.import("unsq11"), {f32({3}, {1, 2, 3})}).shape(),
            (std::vector<int64_t>{1, 3, 1}));
  Model now(13);
  now.input("x", {int64_t(3)}).output("y", 3);
  now.init_i64("axes", {2}, {0, -1});
  now.node("Unsqueeze", {"x", "axes"}, {"y"});
  EXPECT_EQ(run(now.import("unsq13"), {f32({3}, {1, 2, 3})}).shape(),
            (std::vector<int64_t>{1, 3, 1}));
  Model sq(13);
  sq.input("x", {int64_t(1), int64_t(3), int64_t(1)}).output("y", 2);
  sq.init_i64("axes", {1}, {2});
  sq.node("Squeeze", {"x", "axes"}, {"y"});
  EXPECT_EQ(run(sq.import("sq13"), {f32({1, 3, 1}, {1, 2, 3})}).shape(),
            (std::vector<int64_t>{1, 3}));
}

TEST(OnnxOps, ClipAttributesBeforeOpset11AndInputsFrom11) {
  std::vector<float> x = {-3, -0.5f, 0.5f, 3};
  Model old(10);
  old.input("x", {int64_t(4)}).output("y", 1);
  auto& n = old.node("Clip", {"x"}, {"y"});
  set_float(n, "min", -1);
  set_float(n, "max", 1);
  EXPECT_TRUE(tensor_close_to(run(old.import("clip10"), {f32({4}, x)}), {4}, {-1, -0.5f, 0.5f, 1}));
  Model now(13);
  now.input("x", {int64_t(4)}).output("y", 1);
  now.init_f32("hi", {}, {2});
  now.node("Clip", {"x", "", "hi"}, {"y"});  // no min
  EXPECT_TRUE(tensor_close_to(run(now.import("clip13"), {f32({4}, x)}), {4}, {-3, -0.5f, 0.5f, 2}));
}

TEST(OnnxOps, SliceSplitConcatTransposeGather) {
  Model m;
  m.input("x", {int64_t(2), int64_t(6)}).output("y", 2);
  m.init_i64("starts", {1}, {1}).init_i64("ends", {1}, {INT64_MAX}).init_i64("axes", {1}, {1});
  m.init_i64("steps", {1}, {2}).init_i64("split", {2}, {1, 2}).init_i64("idx", {1}, {-1});
  m.node("Slice", {"x", "starts", "ends", "axes", "steps"}, {"s"});  // cols 1, 3, 5
  set_int(m.node("Split", {"s", "split"}, {"p", "q"}), "axis", 1);   // (2,1), (2,2)
  set_int(m.node("Concat", {"q", "p"}, {"c"}), "axis", 1);           // cols 3, 5, 1
  m.node("Transpose", {"c"}, {"t"});                                 // (3, 2)
  set_int(m.node("Gather", {"t", "idx"}, {"y"}), "axis", 0);         // last row: col 1
  NDArray y = run(m.import("slice_split"), {f32({2, 6}, iota(12))});
  EXPECT_TRUE(tensor_close_to(y, {1, 2}, {1, 7}));
}

TEST(OnnxOps, ReduceMeanAttributeAndReduceSumAxesInput) {
  Model m;
  m.input("x", {int64_t(2), int64_t(3)}).output("y", 1);
  m.init_i64("axes", {1}, {0});
  auto& mean = m.node("ReduceMean", {"x"}, {"r"});
  set_ints(mean, "axes", {-1});
  set_int(mean, "keepdims", 1);  // (2, 1)
  auto& sum = m.node("ReduceSum", {"r", "axes"}, {"y"});
  set_int(sum, "keepdims", 0);  // (1,)
  NDArray y = run(m.import("reduce"), {f32({2, 3}, {1, 2, 3, 4, 5, 6})});
  EXPECT_TRUE(tensor_close_to(y, {1}, {2 + 5}));
}

TEST(OnnxOps, BatchNormPoolsPadAndFlatten) {
  Model m;
  m.input("x", {int64_t(1), int64_t(2), int64_t(4), int64_t(4)}).output("y", 2);
  m.init_f32("g", {2}, {1, 2}).init_f32("b", {2}, {0, 1});
  m.init_f32("mu", {2}, {1, 0}).init_f32("var", {2}, {4, 1});
  m.init_i64("pads", {8}, {0, 0, 1, 1, 0, 0, 1, 1});
  auto& bn = m.node("BatchNormalization", {"x", "g", "b", "mu", "var"}, {"n"});
  set_float(bn, "epsilon", 0);
  auto& mp = m.node("MaxPool", {"n"}, {"p"});
  set_ints(mp, "kernel_shape", {2, 2});
  set_ints(mp, "strides", {2, 2});      // (1, 2, 2, 2)
  m.node("Pad", {"p", "pads"}, {"q"});  // (1, 2, 4, 4) zero border
  auto& ap = m.node("AveragePool", {"q"}, {"a"});
  set_ints(ap, "kernel_shape", {4, 4});  // (1, 2, 1, 1): mean incl. the zero border
  m.node("Flatten", {"a"}, {"y"});
  std::vector<float> x = iota(32);
  // Channel 0: (x - 1) / 2; channel 1: 2x + 1. Max of each 2x2 window, then sum / 16.
  std::vector<float> want(2, 0.f);
  for (int c = 0; c < 2; ++c)
    for (int i = 0; i < 2; ++i)
      for (int j = 0; j < 2; ++j) {
        float v = x[size_t(c * 16 + (2 * i + 1) * 4 + 2 * j + 1)];  // bottom-right is the max
        want[size_t(c)] += (c == 0 ? (v - 1) / 2 : 2 * v + 1) / 16;
      }
  NDArray y = run(m.import("bn_pool"), {f32({1, 2, 4, 4}, x)});
  EXPECT_TRUE(tensor_close_to(y, {1, 2}, want, 1e-4f, 1e-4f));
}

TEST(OnnxOps, ConstantOfShapeExpandRangeWhereEqualCast) {
  Model m;
  m.input("x", {int64_t(3)}).output("y", 2);
  m.init_i64("shape", {2}, {2, 3}).init_i64("start", {}, {0}).init_i64("limit", {}, {3});
  m.init_i64("delta", {}, {1}).init_i64("one", {}, {1});
  auto& cs = m.node("ConstantOfShape", {"shape"}, {"fill"});
  set_tensor(cs, "value", Model::tensor_f32("v", {1}, {7}));  // (2, 3) of 7
  m.node("Range", {"start", "limit", "delta"}, {"r"});        // [0, 1, 2]
  m.node("Equal", {"r", "one"}, {"is1"});                     // [F, T, F]
  m.node("Expand", {"x", "shape"}, {"xe"});                   // (2, 3)
  m.node("Where", {"is1", "fill", "xe"}, {"w"});
  set_int(m.node("Cast", {"w"}, {"wi"}), "to", onnx::TensorProto::INT32);
  set_int(m.node("Cast", {"wi"}, {"y"}), "to", onnx::TensorProto::FLOAT);
  NDArray y = run(m.import("misc"), {f32({3}, {1.5f, 2, 3.7f})});
  EXPECT_TRUE(tensor_close_to(y, {2, 3}, {1, 7, 3, 1, 7, 3}));
}

TEST(OnnxOps, LayerNormalizationAtOpset17) {
  Model m(17);
  m.input("x", {int64_t(2), int64_t(4)}).output("y", 2);
  m.init_f32("s", {4}, {1, 2, 1, 2}).init_f32("b", {4}, {0, 0, 1, 1});
  m.node("LayerNormalization", {"x", "s", "b"}, {"y"});
  std::vector<float> x = {1, 2, 3, 4, -1, 0, 1, 6};
  std::vector<float> want;
  for (int r = 0; r < 2; ++r) {
    float mean = 0, var = 0;
    for (int i = 0; i < 4; ++i) mean += x[size_t(r * 4 + i)] / 4;
    for (int i = 0; i < 4; ++i)
      var += (x[size_t(r * 4 + i)] - mean) * (x[size_t(r * 4 + i)] - mean) / 4;
    float sc[] = {1, 2, 1, 2}, bi[] = {0, 0, 1, 1};
    for (int i = 0; i < 4; ++i)
      want.push_back((x[size_t(r * 4 + i)] - mean) / std::sqrt(var + 1e-5f) * sc[i] + bi[i]);
  }
  EXPECT_TRUE(
      tensor_close_to(run(m.import("layernorm"), {f32({2, 4}, x)}), {2, 4}, want, 1e-4f, 1e-4f));
}

TEST(OnnxOps, ElementwiseMathAndConstantNodes) {
  Model m;
  m.input("x", {int64_t(4)}).output("y", 1);
  auto& c = m.node("Constant", {}, {"two"});
  set_tensor(c, "value", Model::tensor_f32("t", {}, {2}));
  m.node("Pow", {"x", "two"}, {"sq"});  // x^2
  m.node("Sqrt", {"sq"}, {"ab"});       // |x|
  m.node("Sub", {"ab", "x"}, {"d"});    // |x| - x
  m.node("Div", {"d", "two"}, {"h"});   // relu(-x)
  m.node("Erf", {"h"}, {"e"});
  set_float(m.node("LeakyRelu", {"x"}, {"l"}), "alpha", 0.5f);
  m.node("Mul", {"e", "l"}, {"p"});
  m.node("Sigmoid", {"p"}, {"s"});
  m.node("Dropout", {"s"}, {"y"});
  std::vector<float> x = {-2, -0.5f, 0, 1.5f}, want;
  for (float v : x) {
    float h = std::max(-v, 0.f), l = v > 0 ? v : 0.5f * v;
    want.push_back(1 / (1 + std::exp(-std::erf(h) * l)));
  }
  EXPECT_TRUE(tensor_close_to(run(m.import("math"), {f32({4}, x)}), {4}, want));
}

TEST(OnnxOps, LayerNormalizationMeanAndInvStdDevOutputs) {
  // z = Mean + InvStdDev, both over the last axis with keepdims: (2, 1).
  Model m(17);
  m.input("x", {int64_t(2), int64_t(4)}).output("z", 2);
  m.init_f32("s", {4}, {1, 1, 1, 1});
  m.node("LayerNormalization", {"x", "s"}, {"y", "mean", "inv"});
  m.node("Add", {"mean", "inv"}, {"z"});
  std::vector<float> x = {1, 2, 3, 4, -1, 0, 1, 6};
  std::vector<float> want;
  for (int r = 0; r < 2; ++r) {
    float mean = 0, var = 0;
    for (int i = 0; i < 4; ++i) mean += x[size_t(r * 4 + i)] / 4;
    for (int i = 0; i < 4; ++i)
      var += (x[size_t(r * 4 + i)] - mean) * (x[size_t(r * 4 + i)] - mean) / 4;
    want.push_back(mean + 1 / std::sqrt(var + 1e-5f));
  }
  NDArray z = run(m.import("layernorm_stats"), {f32({2, 4}, x)});
  EXPECT_TRUE(tensor_close_to(z, {2, 1}, want, 1e-4f, 1e-4f));
}

TEST(OnnxOps, ArgMaxArgMinSelectLastIndex) {
  std::vector<float> x = {3, 1, 3, 1, 0, 2, 0, 2};  // (2, 4): ties in every row
  for (bool is_max : {true, false}) {
    for (int64_t last : {0, 1}) {
      Model m;
      m.input("x", {int64_t(2), int64_t(4)}).output("y", 2, onnx::TensorProto::INT64);
      auto& n = m.node(is_max ? "ArgMax" : "ArgMin", {"x"}, {"y"});
      set_int(n, "axis", 1);
      set_int(n, "select_last_index", last);
      NDArray y = run(m.import("argsel"), {f32({2, 4}, x)});
      ASSERT_EQ(y.shape(), (std::vector<int64_t>{2, 1}));
      std::vector<int64_t> got(y.data_as<int64_t>(), y.data_as<int64_t>() + 2);
      std::vector<int64_t> want =
          is_max ? (last ? std::vector<int64_t>{2, 3} : std::vector<int64_t>{0, 1})
                 : (last ? std::vector<int64_t>{3, 2} : std::vector<int64_t>{1, 0});
      EXPECT_EQ(got, want) << (is_max ? "ArgMax" : "ArgMin") << " select_last_index=" << last;
    }
  }
}

TEST(OnnxOps, ResizeNearestAndLinearToResize2d) {
  std::vector<float> x = {1, 2, 3, 4};  // (1, 1, 2, 2)
  {
    // Opset 10: X, scales; asymmetric coordinates, nearest -> each pixel repeated 2x2.
    Model m(10);
    m.input("x", {int64_t(1), int64_t(1), int64_t(2), int64_t(2)}).output("y", 4);
    m.init_f32("scales", {4}, {1, 1, 2, 2});
    auto& n = m.node("Resize", {"x", "scales"}, {"y"});
    set_string(n, "mode", "nearest");
    NDArray y = run(m.import("resize10"), {f32({1, 1, 2, 2}, x)});
    EXPECT_TRUE(tensor_close_to(y, {1, 1, 4, 4}, {1, 1, 2, 2, 1, 1, 2, 2, 3, 3, 4, 4, 3, 3, 4, 4}));
  }
  {
    // Opset 13: X, roi, scales, sizes; align_corners linear to 3x3.
    Model m(13);
    m.input("x", {int64_t(1), int64_t(1), int64_t(2), int64_t(2)}).output("y", 4);
    m.init_i64("sizes", {4}, {1, 1, 3, 3});
    auto& n = m.node("Resize", {"x", "", "", "sizes"}, {"y"});
    set_string(n, "mode", "linear");
    set_string(n, "coordinate_transformation_mode", "align_corners");
    NDArray y = run(m.import("resize13"), {f32({1, 1, 2, 2}, x)});
    EXPECT_TRUE(tensor_close_to(y, {1, 1, 3, 3}, {1, 1.5f, 2, 2, 2.5f, 3, 3, 3.5f, 4}));
  }
  {
    // Scales that are a graph input: the output size floor(in * scale) is computed at run
    // time, one executable for every scale.
    Model m(13);
    m.input("x", {int64_t(1), int64_t(1), int64_t(2), int64_t(2)}).input("sc", {int64_t(4)});
    m.output("y", 4);
    m.node("Resize", {"x", "", "sc"}, {"y"}, "rs");
    auto vm = runtime::VirtualMachine::create(build(m.import("resize_dyn"), relax::BuildOptions{"tir-interp", "o0"}));
    auto scales = [](float s) { return f32({4}, {1, 1, s, s}); };
    NDArray up = vm->invoke("main", {f32({1, 1, 2, 2}, x), scales(2)}).as_tensor();
    EXPECT_TRUE(
        tensor_close_to(up, {1, 1, 4, 4}, {1, 1, 2, 2, 1, 1, 2, 2, 3, 3, 4, 4, 3, 3, 4, 4}));
    NDArray odd = vm->invoke("main", {f32({1, 1, 2, 2}, x), scales(1.5f)}).as_tensor();
    EXPECT_EQ(odd.shape(), (std::vector<int64_t>{1, 1, 3, 3}));
  }
}

}  // namespace
}  // namespace relax::onnx_test
