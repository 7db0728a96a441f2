// ONNX converters added for conformance groups: STFT and MelWeightMatrix (ops_signal.cc),
// RoiAlign (ops_roi.cc), MaxPool's Indices output (ops_pool_indices.cc), Unique with axis
// (ops_unique_axis.cc), TfIdfVectorizer (ops_tfidf.cc) and CastLike's dtype-only `like` input
// (importer.cc), each imported and run through the interpreter target
// against reference values computed here (or ONNX's published ones), plus their error paths.
#include <cmath>
#include <numbers>

#include "onnx_test_util.h"

namespace relax::onnx_test {
namespace {

// ---- STFT.

/// Naive onesided STFT of a real signal: (frames, freqs, 2) flattened.
std::vector<double> stft_ref(const std::vector<float>& x, int64_t step, int64_t frame,
                             const std::vector<float>& window) {
  int64_t frames = 1 + (int64_t(x.size()) - frame) / step, freqs = frame / 2 + 1;
  std::vector<double> out;
  for (int64_t f = 0; f < frames; ++f) {
    for (int64_t k = 0; k < freqs; ++k) {
      double re = 0, im = 0;
      for (int64_t n = 0; n < frame; ++n) {
        double v = x[size_t(f * step + n)] * (window.empty() ? 1.0 : window[size_t(n)]);
        double a = 2 * std::numbers::pi * double(n * k) / double(frame);
        re += v * std::cos(a);
        im -= v * std::sin(a);
      }
      out.push_back(re);
      out.push_back(im);
    }
  }
  return out;
}

TEST(OnnxSignal, StftFrameLengthAndWindow) {
  std::vector<float> x = {0, 1, 2, 3, 4, 3, 2, 1, 0, -1};
  std::vector<float> w = {0.5f, 1, 1, 0.5f};
  Model m(17);
  m.input("signal", {1, 10, 1}).input("window", {4});
  m.init_i64("step", {}, {2}).init_i64("len", {}, {4});
  m.node("STFT", {"signal", "step", "", "len"}, {"plain"});
  m.node("STFT", {"signal", "step", "window"}, {"windowed"});
  m.output("plain", 4).output("windowed", 4);
  std::vector<NDArray> out = run_all(m.import("stft"), {f32({1, 10, 1}, x), f32({4}, w)});
  EXPECT_TRUE(tensor_close_to(out[0], {1, 4, 3, 2}, stft_ref(x, 2, 4, {}), 1e-5, 1e-4));
  EXPECT_TRUE(tensor_close_to(out[1], {1, 4, 3, 2}, stft_ref(x, 2, 4, w), 1e-5, 1e-4));
}

TEST(OnnxSignal, StftWithoutFrameLengthIsAnError) {
  Model m(17);
  m.input("signal", {1, 10, 1});
  m.init_i64("step", {}, {2});
  m.node("STFT", {"signal", "step"}, {"y"}, "spec");
  m.output("y", 4);
  std::string msg = error_of([&] { m.import("stft_bad"); });
  EXPECT_NE(msg.find("node 'spec' (STFT)"), std::string::npos) << msg;
  EXPECT_NE(msg.find("needs frame_length or a window"), std::string::npos) << msg;
}

// ---- MelWeightMatrix.

TEST(OnnxSignal, MelWeightMatrixMatchesOnnxReference) {
  // ONNX's test_melweightmatrix: 8 mel bins, dft 16, 8192 Hz, 0 - 4096 Hz; the edges are run-time
  // inputs, the integers constants.
  Model m(17);
  m.input("lo", {}).input("hi", {});
  auto i32 = [&](const std::string& name, int32_t v) {
    onnx::TensorProto t;
    t.set_name(name);
    t.set_data_type(onnx::TensorProto::INT32);
    t.add_int32_data(v);
    *m.graph().add_initializer() = t;
  };
  i32("mels", 8);
  i32("dft", 16);
  i32("rate", 8192);
  m.node("MelWeightMatrix", {"mels", "dft", "rate", "lo", "hi"}, {"w"});
  m.output("w", 2);
  NDArray y = run(m.import("mel"), {f32({}, {0}), f32({}, {4096})});
  std::vector<double> want(9 * 8, 0.0);
  int ones[][2] = {{0, 0}, {0, 1}, {1, 2}, {1, 3}, {2, 4}, {3, 5}, {4, 6}, {5, 7}};
  for (auto& p : ones) want[size_t(p[0] * 8 + p[1])] = 1;
  EXPECT_TRUE(tensor_close_to(y, {9, 8}, want));
}

// ---- RoiAlign.

/// ONNX Runtime's RoiAlign (avg) on one image (H, W), one channel, for `roi` (x1 y1 x2 y2).
std::vector<double> roi_ref(const std::vector<float>& img, int64_t H, int64_t W,
                            const std::vector<float>& roi, int64_t PH, int64_t PW, int64_t sr,
                            bool half) {
  double off = half ? 0.5 : 0;
  double x1 = roi[0] - off, y1 = roi[1] - off, x2 = roi[2] - off, y2 = roi[3] - off;
  double rw = x2 - x1, rh = y2 - y1;
  if (!half) rw = std::max(rw, 1.0), rh = std::max(rh, 1.0);
  auto at = [&](double y, double x) {
    if (y < -1 || y > double(H) || x < -1 || x > double(W)) return 0.0;
    y = std::max(y, 0.0), x = std::max(x, 0.0);
    int64_t yl = int64_t(y), xl = int64_t(x), yh, xh;
    if (yl >= H - 1) yh = yl = H - 1, y = double(yl); else yh = yl + 1;
    if (xl >= W - 1) xh = xl = W - 1, x = double(xl); else xh = xl + 1;
    double ly = y - double(yl), lx = x - double(xl), hy = 1 - ly, hx = 1 - lx;
    auto v = [&](int64_t r, int64_t c) { return double(img[size_t(r * W + c)]); };
    return hy * hx * v(yl, xl) + hy * lx * v(yl, xh) + ly * hx * v(yh, xl) + ly * lx * v(yh, xh);
  };
  std::vector<double> out;
  for (int64_t ph = 0; ph < PH; ++ph)
    for (int64_t pw = 0; pw < PW; ++pw) {
      double s = 0;
      for (int64_t iy = 0; iy < sr; ++iy)
        for (int64_t ix = 0; ix < sr; ++ix)
          s += at(y1 + (double(ph) + (double(iy) + 0.5) / double(sr)) * rh / double(PH),
                  x1 + (double(pw) + (double(ix) + 0.5) / double(sr)) * rw / double(PW));
      out.push_back(s / double(sr * sr));
    }
  return out;
}

TEST(OnnxSignal, RoiAlignBothCoordinateModes) {
  std::vector<float> img = iota(25, 0, 0.5f);
  img[7] = 9;  // not a linear ramp, so that interpolation errors show
  std::vector<float> rois = {0, 0, 4, 4, 1, 0.5f, 3.5f, 2, 2, 2, 2.2f, 2.6f};
  for (bool half : {false, true}) {
    Model m(16);
    m.input("X", {2, 1, 5, 5}).input("rois", {3, 4}).input("b", {3}, onnx::TensorProto::INT64);
    auto& n = m.node("RoiAlign", {"X", "rois", "b"}, {"Y"});
    set_int(n, "output_height", 2);
    set_int(n, "output_width", 3);
    set_int(n, "sampling_ratio", 2);
    set_string(n, "coordinate_transformation_mode", half ? "half_pixel" : "output_half_pixel");
    m.output("Y", 4);
    std::vector<float> both = iota(25, 100);  // image 0 is a decoy
    both.insert(both.end(), img.begin(), img.end());
    NDArray b = NDArray::empty({3}, DataType::Int(64));
    for (int k = 0; k < 3; ++k) b.data_as<int64_t>()[k] = 1;
    NDArray y = run(m.import(half ? "roi_half" : "roi_out"),
                    {f32({2, 1, 5, 5}, both), f32({3, 4}, rois), b});
    std::vector<double> want;
    for (int r = 0; r < 3; ++r) {
      std::vector<float> roi(rois.begin() + 4 * r, rois.begin() + 4 * r + 4);
      std::vector<double> one = roi_ref(img, 5, 5, roi, 2, 3, 2, half);
      want.insert(want.end(), one.begin(), one.end());
    }
    EXPECT_TRUE(tensor_close_to(y, {3, 1, 2, 3}, want, 1e-5, 1e-5)) << (half ? "half" : "output");
  }
}

TEST(OnnxSignal, RoiAlignAdaptiveSamplingIsAnError) {
  Model m(16);
  m.input("X", {1, 1, 5, 5}).input("rois", {1, 4}).input("b", {1}, onnx::TensorProto::INT64);
  m.node("RoiAlign", {"X", "rois", "b"}, {"Y"}, "align");
  m.output("Y", 4);
  std::string msg = error_of([&] { m.import("roi_adaptive"); });
  EXPECT_NE(msg.find("node 'align' (RoiAlign)"), std::string::npos) << msg;
  EXPECT_NE(msg.find("sampling_ratio 0 (adaptive) is not supported"), std::string::npos) << msg;
}

// ---- MaxPool with Indices.

TEST(OnnxSignal, MaxPoolIndicesRowAndColumnMajor) {
  // ONNX's maxpool_with_argmax_2d_precomputed_strides, on two channels.
  for (int order : {0, 1}) {
    Model m(12);
    m.input("x", {1, 2, 5, 5});
    auto& n = m.node("MaxPool", {"x"}, {"y", "i"});
    set_ints(n, "kernel_shape", {2, 2});
    set_ints(n, "strides", {2, 2});
    set_int(n, "storage_order", order);
    m.output("y", 4).output("i", 4, onnx::TensorProto::INT64);
    std::vector<NDArray> out = run_all(m.import("maxpool_idx"), {f32({1, 2, 5, 5}, iota(50, 1))});
    EXPECT_TRUE(tensor_close_to(out[0], {1, 2, 2, 2}, {7, 9, 17, 19, 32, 34, 42, 44}));
    std::vector<int64_t> want = order == 0 ? std::vector<int64_t>{6, 8, 16, 18, 31, 33, 41, 43}
                                           : std::vector<int64_t>{6, 16, 8, 18, 31, 41, 33, 43};
    std::vector<int64_t> got(out[1].data_as<int64_t>(), out[1].data_as<int64_t>() + 8);
    EXPECT_EQ(got, want) << "storage_order " << order;
  }
}

TEST(OnnxSignal, MaxPoolIndicesWithPadsFirstMaximumWins) {
  Model m(12);
  m.input("x", {1, 1, 3, 3});
  auto& n = m.node("MaxPool", {"x"}, {"y", "i"});
  set_ints(n, "kernel_shape", {3, 3});
  set_ints(n, "pads", {1, 1, 1, 1});
  m.output("y", 4).output("i", 4, onnx::TensorProto::INT64);
  // Ties: 5 at (0, 1) and (1, 1): the first in row-major order wins.
  std::vector<NDArray> out =
      run_all(m.import("maxpool_idx_pads"), {f32({1, 1, 3, 3}, {1, 5, 2, -1, 5, 0, -2, -3, -4})});
  EXPECT_TRUE(tensor_close_to(out[0], {1, 1, 3, 3}, {5, 5, 5, 5, 5, 5, 5, 5, 5}));
  std::vector<int64_t> got(out[1].data_as<int64_t>(), out[1].data_as<int64_t>() + 9);
  EXPECT_EQ(got, (std::vector<int64_t>{1, 1, 1, 1, 1, 1, 4, 4, 4}));
}

TEST(OnnxSignal, MaxPoolIndicesNeedStaticShape) {
  Model m(12);
  m.input("x", {"n", 1, 4, 4});
  auto& n = m.node("MaxPool", {"x"}, {"y", "i"}, "pool");
  set_ints(n, "kernel_shape", {2, 2});
  m.output("y", 4).output("i", 4, onnx::TensorProto::INT64);
  std::string msg = error_of([&] { m.import("maxpool_idx_dyn"); });
  EXPECT_NE(msg.find("node 'pool' (MaxPool)"), std::string::npos) << msg;
  EXPECT_NE(msg.find("needs an input of static shape"), std::string::npos) << msg;
}

// ---- Unique with axis.

std::vector<int64_t> ints(const NDArray& t) {
  return std::vector<int64_t>(t.data_as<int64_t>(), t.data_as<int64_t>() + t.numel());
}

TEST(OnnxSignal, UniqueAlongAxisSortedAndUnsorted) {
  // Columns of x: (2, 1), (0, 5), (2, 1), (0, 3): distinct (0, 3) < (0, 5) < (2, 1) sorted.
  std::vector<float> x = {2, 0, 2, 0, 1, 5, 1, 3};
  for (int sorted : {1, 0}) {
    Model m(11);
    m.input("x", {2, 4});
    auto& n = m.node("Unique", {"x"}, {"y", "idx", "inv", "cnt"});
    set_int(n, "axis", -1);
    set_int(n, "sorted", sorted);
    m.output("y", 2).output("idx", 1, onnx::TensorProto::INT64);
    m.output("inv", 1, onnx::TensorProto::INT64).output("cnt", 1, onnx::TensorProto::INT64);
    std::vector<NDArray> out = run_all(m.import("unique_axis"), {f32({2, 4}, x)});
    ASSERT_EQ(out.size(), 4u);
    if (sorted) {
      EXPECT_TRUE(tensor_close_to(out[0], {2, 3}, {0, 0, 2, 3, 5, 1}));
      EXPECT_EQ(ints(out[1]), (std::vector<int64_t>{3, 1, 0}));
      EXPECT_EQ(ints(out[2]), (std::vector<int64_t>{2, 1, 2, 0}));
      EXPECT_EQ(ints(out[3]), (std::vector<int64_t>{1, 1, 2}));
    } else {
      EXPECT_TRUE(tensor_close_to(out[0], {2, 3}, {2, 0, 0, 1, 5, 3}));
      EXPECT_EQ(ints(out[1]), (std::vector<int64_t>{0, 1, 3}));
      EXPECT_EQ(ints(out[2]), (std::vector<int64_t>{0, 1, 0, 2}));
      EXPECT_EQ(ints(out[3]), (std::vector<int64_t>{2, 1, 1}));
    }
  }
}

TEST(OnnxSignal, UniqueAxisOutOfRangeIsAnError) {
  Model m(11);
  m.input("x", {2, 4});
  auto& n = m.node("Unique", {"x"}, {"y"}, "uniq");
  set_int(n, "axis", 2);
  m.output("y", 2);
  std::string msg = error_of([&] { m.import("unique_bad_axis"); });
  EXPECT_NE(msg.find("node 'uniq' (Unique)"), std::string::npos) << msg;
  EXPECT_NE(msg.find("axis"), std::string::npos) << msg;
}

// ---- TfIdfVectorizer.

TEST(OnnxSignal, TfIdfVectorizerCountsWithSkips) {
  // ONNX's tf_batch_uniandbigrams_skip5: unigrams 2 3 5 4, bigrams (5 6) (7 8) (6 7).
  Model m(9);
  m.input("x", {2, 6}, onnx::TensorProto::INT32);
  auto& n = m.node("TfIdfVectorizer", {"x"}, {"y"});
  set_int(n, "min_gram_length", 1);
  set_int(n, "max_gram_length", 2);
  set_int(n, "max_skip_count", 5);
  set_string(n, "mode", "TF");
  set_ints(n, "ngram_counts", {0, 4});
  set_ints(n, "ngram_indexes", {0, 1, 2, 3, 4, 5, 6});
  set_ints(n, "pool_int64s", {2, 3, 5, 4, 5, 6, 7, 8, 6, 7});
  m.output("y", 2);
  NDArray x = NDArray::empty({2, 6}, DataType::Int(32));
  std::vector<int32_t> tokens = {1, 1, 3, 3, 3, 7, 8, 6, 7, 5, 6, 8};
  std::copy(tokens.begin(), tokens.end(), x.data_as<int32_t>());
  NDArray y = run(m.import("tfidf"), {x});
  EXPECT_TRUE(tensor_close_to(y, {2, 7}, {0, 3, 0, 0, 0, 0, 0, 0, 0, 1, 0, 1, 1, 1}));
}

TEST(OnnxSignal, TfIdfVectorizerStringPoolIsAnError) {
  Model m(9);
  m.input("x", {6}, onnx::TensorProto::INT32);
  auto& n = m.node("TfIdfVectorizer", {"x"}, {"y"}, "tfidf");
  auto* a = n.add_attribute();
  a->set_name("pool_strings");
  a->set_type(onnx::AttributeProto::STRINGS);
  a->add_strings("a");
  set_ints(n, "ngram_counts", {0});
  set_ints(n, "ngram_indexes", {0});
  m.output("y", 1);
  std::string msg = error_of([&] { m.import("tfidf_strings"); });
  EXPECT_NE(msg.find("node 'tfidf' (TfIdfVectorizer)"), std::string::npos) << msg;
  EXPECT_NE(msg.find("string pools (pool_strings) are not supported"), std::string::npos) << msg;
}

// ---- CastLike.

TEST(OnnxSignal, CastLikeTakesOnlyTheDtypeOfLike) {
  // ONNX's own CastLike tests pass a one-element `like` for a declared (3, 4): only its dtype
  // matters, so its parameter declares no shape.
  Model m(15);
  m.input("x", {2}, onnx::TensorProto::DOUBLE).input("like", {3, 4});
  m.node("CastLike", {"x", "like"}, {"y"});
  m.output("y", 1);
  IRModule mod = m.import("castlike_like");
  NDArray x = NDArray::empty({2}, DataType::Float(64));
  x.data_as<double>()[0] = 1.5;
  x.data_as<double>()[1] = -2.25;
  NDArray y = run(mod, {x, f32({1}, {0})});
  EXPECT_TRUE(tensor_close_to(y, {2}, {1.5, -2.25}));
  EXPECT_EQ(y.dtype(), DataType::Float(32));
}

}  // namespace
}  // namespace relax::onnx_test
