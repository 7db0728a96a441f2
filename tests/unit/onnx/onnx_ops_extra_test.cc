// ONNX converters added for the conformance suite (ops_loss.cc, ops_extra.cc and the old
// opsets): losses, the L1/L2/log-sum reductions, opset 1-6 semantics and the composed ops,
// each on a small model run through the interpreter target against hand-computed values.
#include <cmath>
#include <optional>

#include "onnx_test_util.h"

namespace relax::onnx_test {
namespace {
// ---- Losses, reductions, old opsets and the composed ops.

template <class T>
NDArray typed(const std::vector<int64_t>& shape, DataType dt, const std::vector<T>& values) {
  NDArray t = NDArray::empty(shape, dt);
  EXPECT_EQ(size_t(t.numel()), values.size());
  std::copy(values.begin(), values.end(), t.data_as<T>());
  return t;
}
template <class T>
std::vector<T> elements(const NDArray& t) {
  return std::vector<T>(t.data_as<T>(), t.data_as<T>() + t.numel());
}

/// ONNX's reference NLL loss of log-probabilities `lp` (N, C, D) against `t` (N, D): per
/// element for "none", else summed, or for "mean" divided by the summed gathered weight.
std::vector<float> nll_ref(const std::vector<float>& lp, const std::vector<int64_t>& t, int n,
                           int c, int d, const std::vector<float>& weight,
                           std::optional<int64_t> ignore, const std::string& reduction) {
  std::vector<float> loss;
  float sum = 0, wsum = 0;
  for (int i = 0; i < n; ++i)
    for (int k = 0; k < d; ++k) {
      int64_t cls = t[size_t(i * d + k)];
      bool skip = ignore && cls == *ignore;
      float w = skip ? 0.f : weight.empty() ? 1.f : weight[size_t(cls)];
      float l = skip ? 0.f : -lp[size_t((i * c + cls) * d + k)] * w;
      loss.push_back(l);
      sum += l;
      wsum += w;
    }
  if (reduction == "none") return loss;
  if (reduction == "sum") return {sum};
  return {sum / wsum};
}

/// log_softmax over axis 1 of x (N, C, D).
std::vector<float> log_softmax_ref(const std::vector<float>& x, int n, int c, int d) {
  std::vector<float> y(x.size());
  for (int i = 0; i < n; ++i)
    for (int k = 0; k < d; ++k) {
      float mx = -1e30f, s = 0;
      for (int j = 0; j < c; ++j) mx = std::max(mx, x[size_t((i * c + j) * d + k)]);
      for (int j = 0; j < c; ++j) s += std::exp(x[size_t((i * c + j) * d + k)] - mx);
      for (int j = 0; j < c; ++j)
        y[size_t((i * c + j) * d + k)] = x[size_t((i * c + j) * d + k)] - mx - std::log(s);
    }
  return y;
}

TEST(OnnxOps, SoftmaxCrossEntropyLossReductionsWeightsNegativeIgnoreIndexAndLogProb) {
  // scores (2, 3, 2), labels (2, 2) with one -1 (ignored), weights (3).
  std::vector<float> x = {1, -1, 2, 0.5f, 0, 3, -2, 1, 0.5f, 0.25f, 4, -1};
  std::vector<int64_t> labels = {2, -1, 0, 1};
  std::vector<float> w = {0.5f, 2, 1};
  std::vector<float> lp = log_softmax_ref(x, 2, 3, 2);
  for (const char* reduction : {"none", "sum", "mean"}) {
    for (bool weighted : {false, true}) {
      Model m;
      m.input("x", {int64_t(2), int64_t(3), int64_t(2)});
      m.input("t", {int64_t(2), int64_t(2)}, onnx::TensorProto::INT64);
      m.output("loss", std::string(reduction) == "none" ? 2 : 0);
      if (weighted) m.init_f32("w", {3}, w);
      auto& n = m.node("SoftmaxCrossEntropyLoss", {"x", "t", weighted ? "w" : ""}, {"loss"});
      set_string(n, "reduction", reduction);
      set_int(n, "ignore_index", -1);
      NDArray y =
          run(m.import("sce"), {f32({2, 3, 2}, x), typed({2, 2}, DataType::Int(64), labels)});
      std::vector<int64_t> shape =
          std::string(reduction) == "none" ? std::vector<int64_t>{2, 2} : std::vector<int64_t>{};
      EXPECT_TRUE(tensor_close_to(y, shape,
                                  nll_ref(lp, labels, 2, 3, 2, weighted ? w : std::vector<float>{},
                                          int64_t(-1), reduction)));
    }
  }
  // The second output: log_softmax over the class axis.
  Model m;
  m.input("x", {int64_t(2), int64_t(3), int64_t(2)});
  m.input("t", {int64_t(2), int64_t(2)}, onnx::TensorProto::INT64);
  m.output("lp", 3);
  m.node("SoftmaxCrossEntropyLoss", {"x", "t"}, {"loss", "lp"});
  std::vector<int64_t> valid = {2, 1, 0, 1};
  EXPECT_TRUE(tensor_close_to(
      run(m.import("sce_lp"), {f32({2, 3, 2}, x), typed({2, 2}, DataType::Int(64), valid)}),
      {2, 3, 2}, lp));
}

TEST(OnnxOps, NegativeLogLikelihoodLoss2dAndNdWithIgnoreIndexAndBadReduction) {
  // (N, C) = (3, 2), int32 targets, default reduction mean, ignore_index 1 with weights.
  std::vector<float> x = {-0.5f, -1, -2, -0.1f, -0.3f, -0.7f};
  std::vector<int32_t> t = {1, 0, 0};
  Model m;
  m.input("x", {int64_t(3), int64_t(2)}).input("t", {int64_t(3)}, onnx::TensorProto::INT32);
  m.output("loss", 0);
  m.init_f32("w", {2}, {3, 0.5f});
  set_int(m.node("NegativeLogLikelihoodLoss", {"x", "t", "w"}, {"loss"}), "ignore_index", 1);
  // Rows 1 and 2 count (class 0, weight 3): (2 * 3 + 0.3 * 3) / 6.
  EXPECT_TRUE(
      tensor_close_to(run(m.import("nll"), {f32({3, 2}, x), typed({3}, DataType::Int(32), t)}), {},
                      {(2 * 3 + 0.3f * 3) / 6}));
  // An ignore_index beyond the classes (4) never indexes out of bounds.
  Model nd;
  nd.input("x", {int64_t(1), int64_t(2), int64_t(2), int64_t(1)});
  nd.input("t", {int64_t(1), int64_t(2), int64_t(1)}, onnx::TensorProto::INT64).output("loss", 3);
  auto& n = nd.node("NegativeLogLikelihoodLoss", {"x", "t"}, {"loss"});
  set_string(n, "reduction", "none");
  set_int(n, "ignore_index", 4);
  NDArray y =
      run(nd.import("nll_nd"), {f32({1, 2, 2, 1}, {-1, -2, -3, -4}),
                                typed({1, 2, 1}, DataType::Int(64), std::vector<int64_t>{4, 1})});
  EXPECT_TRUE(tensor_close_to(y, {1, 2, 1}, {0, 4}));
  Model bad;
  bad.input("x", {int64_t(3), int64_t(2)}).input("t", {int64_t(3)}, onnx::TensorProto::INT64);
  bad.output("loss", 0);
  set_string(bad.node("NegativeLogLikelihoodLoss", {"x", "t"}, {"loss"}, "nl"), "reduction", "avg");
  std::string msg = error_of([&] { bad.import("nll_bad"); });
  EXPECT_NE(msg.find("node 'nl' (NegativeLogLikelihoodLoss): reduction 'avg' is not one of none, "
                     "sum, mean"),
            std::string::npos)
      << msg;
}

TEST(OnnxOps, ReduceL1L2LogSumLogSumExp) {
  std::vector<float> x = {1, 2, 3, 4, 5, 6};
  auto lse = [](float a, float b, float c) {
    return std::log(std::exp(a) + std::exp(b) + std::exp(c));
  };
  struct Case {
    const char* op;
    std::vector<float> want;
  } cases[] = {{"ReduceL1", {6, 15}},
               {"ReduceL2", {std::sqrt(14.f), std::sqrt(77.f)}},
               {"ReduceLogSum", {std::log(6.f), std::log(15.f)}},
               {"ReduceLogSumExp", {lse(1, 2, 3), lse(4, 5, 6)}}};
  for (const Case& c : cases) {
    Model m;
    m.input("x", {int64_t(2), int64_t(3)}).output("y", 2);
    auto& n = m.node(c.op, {"x"}, {"y"});
    set_ints(n, "axes", {-1});
    NDArray y = run(m.import(c.op), {f32({2, 3}, x)});
    // keepdims defaults to 1
    EXPECT_TRUE(tensor_close_to(y, {2, 1}, c.want)) << c.op;
  }
  // All axes, keepdims 0: a scalar; large values do not overflow LogSumExp.
  Model m;
  m.input("x", {int64_t(2), int64_t(3)}).output("y", 0);
  set_int(m.node("ReduceLogSumExp", {"x"}, {"y"}), "keepdims", 0);
  NDArray y = run(m.import("lse_all"), {f32({2, 3}, iota(6, 1000))});
  EXPECT_TRUE(y.shape().empty());
  EXPECT_TRUE(tensor_close_to(y, {},
                              {1005 + std::log(1 + std::exp(-1.f) + std::exp(-2.f) +
                                               std::exp(-3.f) + std::exp(-4.f) + std::exp(-5.f))}));
}

TEST(OnnxOps, OpsetSixBroadcastAxisSeluAttributesAndOldOpsets) {
  // Add-6 with broadcast=1, axis=1: B (3) lines up with A's axis 1 (NumPy would not).
  Model m(6);
  m.input("a", {int64_t(2), int64_t(3), int64_t(2)}).output("y", 3);
  m.init_f32("b", {3}, {10, 20, 30});
  auto& n = m.node("Add", {"a", "b"}, {"y"});
  set_int(n, "broadcast", 1);
  set_int(n, "axis", 1);
  std::vector<float> want;
  for (int i = 0; i < 2; ++i)
    for (int j = 0; j < 3; ++j)
      for (int k = 0; k < 2; ++k) want.push_back(float(i * 6 + j * 2 + k) + 10.f * float(j + 1));
  EXPECT_TRUE(tensor_close_to(run(m.import("add6"), {f32({2, 3, 2}, iota(12))}), {2, 3, 2}, want));
  // Selu-6 with alpha 2, gamma 3; then Not and GlobalAveragePool at opset 1.
  Model s(6);
  s.input("x", {int64_t(3)}).output("y", 1);
  auto& sn = s.node("Selu", {"x"}, {"y"});
  set_float(sn, "alpha", 2);
  set_float(sn, "gamma", 3);
  EXPECT_TRUE(tensor_close_to(run(s.import("selu6"), {f32({3}, {-1, 0, 1})}), {3},
                              {3 * 2 * (std::exp(-1.f) - 1), 0, 3}));
  Model g(1);
  g.input("x", {int64_t(1), int64_t(2), int64_t(2)}).output("y", 3);
  g.node("GlobalAveragePool", {"x"}, {"y"});
  EXPECT_TRUE(
      tensor_close_to(run(g.import("gap1"), {f32({1, 2, 2}, {1, 2, 3, 5})}), {1, 2, 1}, {1.5f, 4}));
  // An axis that does not fit: the error names the node.
  Model bad(6);
  bad.input("a", {int64_t(2), int64_t(3)}).input("b", {int64_t(2), int64_t(3)}).output("y", 2);
  auto& bn = bad.node("Mul", {"a", "b"}, {"y"}, "m6");
  set_int(bn, "broadcast", 1);
  set_int(bn, "axis", 1);
  std::string msg = error_of([&] { bad.import("mul6_bad"); });
  EXPECT_NE(msg.find("node 'm6' (Mul): B "), std::string::npos) << msg;
  EXPECT_NE(msg.find("does not fit into A"), std::string::npos) << msg;
  EXPECT_NE(msg.find("from axis 1"), std::string::npos) << msg;
}

TEST(OnnxOps, HardmaxBeforeAndFromOpset13) {
  std::vector<float> x = {1, 3, 3, 2, 0, 1};
  Model now(13);
  now.input("x", {int64_t(2), int64_t(3)}).output("y", 2);
  now.node("Hardmax", {"x"}, {"y"});
  EXPECT_TRUE(
      tensor_close_to(run(now.import("hardmax13"), {f32({2, 3}, x)}), {2, 3}, {0, 1, 0, 1, 0, 0}));
  Model old(11);
  old.input("x", {int64_t(2), int64_t(3)}).output("y", 2);
  set_int(old.node("Hardmax", {"x"}, {"y"}), "axis", 0);  // one 2-D row of 6
  EXPECT_TRUE(
      tensor_close_to(run(old.import("hardmax11"), {f32({2, 3}, x)}), {2, 3}, {0, 1, 0, 0, 0, 0}));
}

TEST(OnnxOps, ShrinkThresholdedReluCeluEyeLike) {
  Model m(13);
  m.input("x", {int64_t(5)}).output("y", 1);
  auto& s = m.node("Shrink", {"x"}, {"y"});
  set_float(s, "lambd", 1.5f);
  set_float(s, "bias", 0.5f);
  EXPECT_TRUE(tensor_close_to(run(m.import("shrink"), {f32({5}, {-2, -1, 0, 1, 2})}), {5},
                              {-1.5f, 0, 0, 0, 1.5f}));
  Model t(13);
  t.input("x", {int64_t(3)}).output("y", 1);
  t.node("ThresholdedRelu", {"x"}, {"y"});
  EXPECT_TRUE(tensor_close_to(run(t.import("trelu"), {f32({3}, {-2, 1, 2})}), {3}, {0, 0, 2}));
  Model c(13);
  c.input("x", {int64_t(2)}).output("y", 1);
  set_float(c.node("Celu", {"x"}, {"y"}), "alpha", 2);
  EXPECT_TRUE(tensor_close_to(run(c.import("celu"), {f32({2}, {-2, 1})}), {2},
                              {2 * (std::exp(-1.f) - 1), 1}));
  Model e(13);
  e.input("x", {int64_t(2), int64_t(3)}).output("y", 2);
  set_int(e.node("EyeLike", {"x"}, {"y"}), "k", 1);
  EXPECT_TRUE(tensor_close_to(run(e.import("eyelike"), {f32({2, 3}, iota(6))}), {2, 3},
                              {0, 1, 0, 0, 0, 1}));
}

TEST(OnnxOps, OneHotWithRunTimeDepthAndWindows) {
  Model m(11);
  m.input("i", {int64_t(3)}, onnx::TensorProto::INT64).input("depth", {}).output("y", 2);
  m.init_f32("values", {2}, {2, 7});
  m.node("OneHot", {"i", "depth", "values"}, {"y"});
  IRModule mod = m.import("onehot");
  NDArray y =
      run(mod, {typed({3}, DataType::Int(64), std::vector<int64_t>{0, -1, 5}), f32({}, {4})});
  EXPECT_TRUE(tensor_close_to(y, {3, 4}, {7, 2, 2, 2, 2, 2, 2, 7, 2, 2, 2, 2}));
  y = run(mod, {typed({3}, DataType::Int(64), std::vector<int64_t>{1, 0, 1}), f32({}, {2})});
  EXPECT_EQ(y.shape(), (std::vector<int64_t>{3, 2}));
  // Windows of a run-time size: periodic Hann of 4, symmetric Blackman of 3.
  Model w(17);
  w.input("n", {}, onnx::TensorProto::INT64).output("y", 1);
  w.node("HannWindow", {"n"}, {"y"});
  EXPECT_TRUE(tensor_close_to(
      run(w.import("hann"), {typed({}, DataType::Int(64), std::vector<int64_t>{4})}), {4},
      {0, 0.5f, 1, 0.5f}));
  Model b(17);
  b.input("n", {}, onnx::TensorProto::INT64).output("y", 1);
  set_int(b.node("BlackmanWindow", {"n"}, {"y"}), "periodic", 0);
  EXPECT_TRUE(tensor_close_to(
      run(b.import("blackman"), {typed({}, DataType::Int(64), std::vector<int64_t>{3})}), {3},
      {0, 1, 0}));
}

TEST(OnnxOps, IntegerPowAndBitShift) {
  Model p(13);
  p.input("a", {int64_t(3)}, onnx::TensorProto::INT32)
      .input("b", {int64_t(3)}, onnx::TensorProto::INT32);
  p.output("y", 1, onnx::TensorProto::INT32);
  p.node("Pow", {"a", "b"}, {"y"});
  NDArray y = run(p.import("ipow"), {typed({3}, DataType::Int(32), std::vector<int32_t>{2, 3, -2}),
                                     typed({3}, DataType::Int(32), std::vector<int32_t>{3, 2, 3})});
  EXPECT_EQ(elements<int32_t>(y), (std::vector<int32_t>{8, 9, -8}));
  for (const char* dir : {"LEFT", "RIGHT"}) {
    Model s(13);
    s.input("a", {int64_t(3)}, onnx::TensorProto::UINT8)
        .input("b", {int64_t(3)}, onnx::TensorProto::UINT8);
    s.output("y", 1, onnx::TensorProto::UINT8);
    set_string(s.node("BitShift", {"a", "b"}, {"y"}), "direction", dir);
    NDArray z =
        run(s.import("shift"), {typed({3}, DataType::UInt(8), std::vector<uint8_t>{16, 4, 1}),
                                typed({3}, DataType::UInt(8), std::vector<uint8_t>{1, 2, 0})});
    EXPECT_EQ(elements<uint8_t>(z), std::string(dir) == "LEFT" ? (std::vector<uint8_t>{32, 16, 1})
                                                               : (std::vector<uint8_t>{8, 1, 1}));
  }
  Model bad(13);
  bad.input("a", {int64_t(3)}, onnx::TensorProto::UINT8)
      .input("b", {int64_t(3)}, onnx::TensorProto::UINT8);
  bad.output("y", 1, onnx::TensorProto::UINT8);
  set_string(bad.node("BitShift", {"a", "b"}, {"y"}, "bs"), "direction", "UP");
  std::string msg = error_of([&] { bad.import("shift_bad"); });
  EXPECT_NE(msg.find("node 'bs' (BitShift): direction must be LEFT or RIGHT, got 'UP'"),
            std::string::npos)
      << msg;
}

TEST(OnnxOps, EinsumCompressNonZero) {
  Model e(13);
  e.input("a", {int64_t(2), int64_t(3)}).input("b", {int64_t(3), int64_t(2)}).output("y", 2);
  set_string(e.node("Einsum", {"a", "b"}, {"y"}), "equation", "ij, jk -> ik");
  EXPECT_TRUE(tensor_close_to(run(e.import("einsum"), {f32({2, 3}, iota(6)), f32({3, 2}, iota(6))}),
                              {2, 2}, {10, 13, 28, 40}));
  Model c(11);
  c.input("x", {int64_t(3), int64_t(2)}).input("c", {int64_t(3)}, onnx::TensorProto::BOOL);
  c.output("y", 2);
  set_int(c.node("Compress", {"x", "c"}, {"y"}), "axis", 0);
  NDArray y =
      run(c.import("compress"),
          {f32({3, 2}, iota(6)), typed({3}, DataType::Bool(), std::vector<uint8_t>{0, 1, 1})});
  EXPECT_TRUE(tensor_close_to(y, {2, 2}, {2, 3, 4, 5}));
  Model n(13);
  n.input("x", {int64_t(2), int64_t(2)}).output("y", 2, onnx::TensorProto::INT64);
  n.node("NonZero", {"x"}, {"y"});
  NDArray z = run(n.import("nonzero"), {f32({2, 2}, {0, 1, 2, 0})});
  EXPECT_EQ(z.shape(), (std::vector<int64_t>{2, 2}));
  EXPECT_EQ(elements<int64_t>(z), (std::vector<int64_t>{0, 1, 1, 0}));
}

TEST(OnnxOps, DepthToSpaceModesSpaceToDepthAndBadMode) {
  std::vector<float> x = iota(8);  // (1, 8, 1, 1)
  for (const char* mode : {"DCR", "CRD"}) {
    Model m(13);
    m.input("x", {int64_t(1), int64_t(8), int64_t(1), int64_t(1)}).output("y", 4);
    auto& n = m.node("DepthToSpace", {"x"}, {"y"});
    set_int(n, "blocksize", 2);
    set_string(n, "mode", mode);
    NDArray y = run(m.import("d2s"), {f32({1, 8, 1, 1}, x)});
    EXPECT_TRUE(tensor_close_to(
        y, {1, 2, 2, 2},
        std::string(mode) == "DCR" ? std::vector<float>{0, 2, 4, 6, 1, 3, 5, 7} : iota(8)));
  }
  Model r(13);  // SpaceToDepth undoes DCR.
  r.input("x", {int64_t(1), int64_t(8), int64_t(1), int64_t(1)}).output("y", 4);
  set_int(r.node("DepthToSpace", {"x"}, {"s"}), "blocksize", 2);
  set_int(r.node("SpaceToDepth", {"s"}, {"y"}), "blocksize", 2);
  EXPECT_TRUE(tensor_close_to(run(r.import("s2d"), {f32({1, 8, 1, 1}, x)}), {1, 8, 1, 1}, x));
  Model bad(13);
  bad.input("x", {int64_t(1), int64_t(8), int64_t(1), int64_t(1)}).output("y", 4);
  auto& bn = bad.node("DepthToSpace", {"x"}, {"y"}, "d2s");
  set_int(bn, "blocksize", 2);
  set_string(bn, "mode", "RDC");
  std::string msg = error_of([&] { bad.import("d2s_bad"); });
  EXPECT_NE(msg.find("node 'd2s' (DepthToSpace): mode must be DCR or CRD, got 'RDC'"),
            std::string::npos)
      << msg;
}

TEST(OnnxOps, LrnMeanVarianceNormalizationReverseSequence) {
  Model l(13);
  l.input("x", {int64_t(1), int64_t(3), int64_t(1), int64_t(1)}).output("y", 4);
  auto& n = l.node("LRN", {"x"}, {"y"});
  set_int(n, "size", 3);
  set_float(n, "alpha", 0.3f);
  set_float(n, "bias", 2);
  std::vector<float> sums = {5, 14, 13}, want;
  for (int c = 0; c < 3; ++c)
    want.push_back(float(c + 1) / std::pow(2 + 0.1f * sums[size_t(c)], 0.75f));
  EXPECT_TRUE(
      tensor_close_to(run(l.import("lrn"), {f32({1, 3, 1, 1}, {1, 2, 3})}), {1, 3, 1, 1}, want));
  Model m(13);
  m.input("x", {int64_t(1), int64_t(2), int64_t(1), int64_t(2)}).output("y", 4);
  m.node("MeanVarianceNormalization", {"x"}, {"y"});
  EXPECT_TRUE(tensor_close_to(run(m.import("mvn"), {f32({1, 2, 1, 2}, {1, 3, 2, 6})}), {1, 2, 1, 2},
                              {-1, 1, -1, 1}));
  Model r(13);  // time-major (4, 2); batch 0 reversed whole, batch 1 its first 2 steps
  r.input("x", {int64_t(4), int64_t(2)}).input("len", {int64_t(2)}, onnx::TensorProto::INT64);
  r.output("y", 2);
  r.node("ReverseSequence", {"x", "len"}, {"y"});
  EXPECT_TRUE(tensor_close_to(
      run(r.import("revseq"),
          {f32({4, 2}, iota(8)), typed({2}, DataType::Int(64), std::vector<int64_t>{4, 2})}),
      {4, 2}, {6, 3, 4, 1, 2, 5, 0, 7}));
}

TEST(OnnxOps, ConvTranspose3dOutputShapeAutoPadAndPoolPaddingBeyondHalf) {
  Model m(13);
  m.input("x", {int64_t(1), int64_t(1), int64_t(2), int64_t(2), int64_t(2)}).output("y", 5);
  m.init_f32("w", {1, 1, 2, 2, 2}, std::vector<float>(8, 1));
  m.node("ConvTranspose", {"x", "w"}, {"y"});
  std::vector<float> want;
  auto overlap = [](int i) { return i == 1 ? 2.f : 1.f; };
  for (int d = 0; d < 3; ++d)
    for (int h = 0; h < 3; ++h)
      for (int v = 0; v < 3; ++v) want.push_back(overlap(d) * overlap(h) * overlap(v));
  NDArray y = run(m.import("convt3d"), {f32({1, 1, 2, 2, 2}, std::vector<float>(8, 1))});
  EXPECT_TRUE(tensor_close_to(y, {1, 1, 3, 3, 3}, want));
  // 1-D, stride 2: the full output is 7 long; output_shape 8 pads the end, SAME_UPPER keeps 6.
  for (bool same : {false, true}) {
    Model c(13);
    c.input("x", {int64_t(1), int64_t(1), int64_t(3)}).output("y", 3);
    c.init_f32("w", {1, 1, 3}, {1, 1, 1});
    auto& n = c.node("ConvTranspose", {"x", "w"}, {"y"});
    set_ints(n, "strides", {2});
    if (same)
      set_string(n, "auto_pad", "SAME_UPPER");
    else
      set_ints(n, "output_shape", {8});
    NDArray z = run(c.import("convt1d"), {f32({1, 1, 3}, {1, 2, 3})});
    EXPECT_TRUE(tensor_close_to(
        z, {1, 1, same ? 6 : 8},
        same ? std::vector<float>{1, 1, 3, 2, 5, 3} : std::vector<float>{1, 1, 3, 2, 5, 3, 3, 0}));
  }
  // Pools with padding 2 around a window of 3.
  for (bool is_max : {true, false}) {
    Model p(13);
    p.input("x", {int64_t(1), int64_t(1), int64_t(3)}).output("y", 3);
    auto& n = p.node(is_max ? "MaxPool" : "AveragePool", {"x"}, {"y"});
    set_ints(n, "kernel_shape", {3});
    set_ints(n, "pads", {2, 2});
    EXPECT_TRUE(tensor_close_to(
        run(p.import("pool_pad"), {f32({1, 1, 3}, {1, 2, 3})}), {1, 1, 5},
        is_max ? std::vector<float>{1, 2, 3, 3, 3} : std::vector<float>{1, 1.5f, 2, 2.5f, 3}));
  }
}

TEST(OnnxOps, BatchNormalizationTrainingModeOutputs) {
  // One channel of [1, 2, 3, 4]: batch mean 2.5, variance 1.25; momentum 0.9.
  for (int out : {0, 1, 2}) {
    Model m(15);
    m.input("x", {int64_t(2), int64_t(1), int64_t(2)}).output("y", out == 0 ? 3 : 1);
    m.init_f32("s", {1}, {2})
        .init_f32("b", {1}, {1})
        .init_f32("mu", {1}, {0})
        .init_f32("var", {1}, {1});
    auto& n = m.node("BatchNormalization", {"x", "s", "b", "mu", "var"},
                     {out == 0 ? "y" : "o0", out == 1 ? "y" : "o1", out == 2 ? "y" : "o2"});
    set_int(n, "training_mode", 1);
    NDArray y = run(m.import("bn_train"), {f32({2, 1, 2}, {1, 2, 3, 4})});
    if (out == 0) {
      std::vector<float> want;
      for (float v : {1.f, 2.f, 3.f, 4.f})
        want.push_back(2 * (v - 2.5f) / std::sqrt(1.25f + 1e-5f) + 1);
      EXPECT_TRUE(tensor_close_to(y, {2, 1, 2}, want, 1e-4f, 1e-4f));
    } else {
      EXPECT_TRUE(tensor_close_to(y, {1}, {out == 1 ? 0.25f : 0.9f + 0.125f}));
    }
  }
}

TEST(OnnxOps, GridSampleModesAndPadding) {
  // X (1, 1, 2, 2) = [[1, 2], [3, 4]]; the grid's first point is the centre (0, 0), the
  // second the corner (-1, -1), which without align_corners lies half a pixel outside.
  struct Case {
    const char* mode;
    const char* padding;
    std::vector<float> grid, want;
  } cases[] = {
      {"bilinear", "zeros", {0, 0, -1, -1}, {2.5f, 0.25f}},
      {"bilinear", "border", {0, 0, -1, -1}, {2.5f, 1}},
      {"nearest", "zeros", {0.5f, 0.5f, -1, -1}, {4, 1}},
      // Cubic weights at t = 0.5: 0.59375 for the near taps, -0.09375 for the far ones; the
      // centre reads the 4 pixels with near weights, the corner pixel (0, 0) near-near, (0, 1)
      // and (1, 0) near-far, (1, 1) far-far (the other taps lie outside: 0).
      {"bicubic",
       "zeros",
       {0, 0, -1, -1},
       {10 * 0.59375f * 0.59375f,
        0.59375f * 0.59375f - (2 + 3) * 0.59375f * 0.09375f + 4 * 0.09375f * 0.09375f}},
  };
  for (const Case& c : cases) {
    Model m(16);
    m.input("x", {int64_t(1), int64_t(1), int64_t(2), int64_t(2)});
    m.input("g", {int64_t(1), int64_t(1), int64_t(2), int64_t(2)}).output("y", 4);
    auto& n = m.node("GridSample", {"x", "g"}, {"y"});
    set_string(n, "mode", c.mode);
    set_string(n, "padding_mode", c.padding);
    NDArray y =
        run(m.import("gridsample"), {f32({1, 1, 2, 2}, {1, 2, 3, 4}), f32({1, 1, 2, 2}, c.grid)});
    EXPECT_TRUE(tensor_close_to(y, {1, 1, 1, 2}, c.want)) << c.mode;
  }
}

TEST(OnnxOps, DftForwardOnesidedInverseDetMaxUnpool) {
  // FFT of [1, 2, 3, 4]: 10, -2 + 2i, -2, -2 - 2i.
  for (bool onesided : {false, true}) {
    Model m(17);
    m.input("x", {int64_t(1), int64_t(4), int64_t(1)}).output("y", 3);
    set_int(m.node("DFT", {"x"}, {"y"}), "onesided", onesided);
    std::vector<float> want = {10, 0, -2, 2, -2, 0, -2, -2};
    if (onesided) want.resize(6);
    EXPECT_TRUE(tensor_close_to(run(m.import("dft"), {f32({1, 4, 1}, {1, 2, 3, 4})}),
                                {1, onesided ? 3 : 4, 2}, want));
  }
  Model inv(17);
  inv.input("x", {int64_t(1), int64_t(4), int64_t(2)}).output("y", 3);
  set_int(inv.node("DFT", {"x"}, {"y"}), "inverse", 1);
  EXPECT_TRUE(
      tensor_close_to(run(inv.import("idft"), {f32({1, 4, 2}, {10, 0, -2, 2, -2, 0, -2, -2})}),
                      {1, 4, 2}, {1, 0, 2, 0, 3, 0, 4, 0}));
  Model d(13);
  d.input("x", {int64_t(2), int64_t(2), int64_t(2)}).output("y", 1);
  d.node("Det", {"x"}, {"y"});
  EXPECT_TRUE(tensor_close_to(run(d.import("det2"), {f32({2, 2, 2}, {1, 2, 3, 4, 2, 0, 0, 3})}),
                              {2}, {-2, 6}));
  Model d3(13);
  d3.input("x", {int64_t(3), int64_t(3)}).output("y", 0);
  d3.node("Det", {"x"}, {"y"});
  EXPECT_TRUE(
      tensor_close_to(run(d3.import("det3"), {f32({3, 3}, {2, 0, 1, 1, 3, 2, 1, 1, 2})}), {}, {6}));
  Model u(11);
  u.input("x", {int64_t(1), int64_t(1), int64_t(2), int64_t(2)});
  u.input("i", {int64_t(1), int64_t(1), int64_t(2), int64_t(2)}, onnx::TensorProto::INT64);
  u.output("y", 4);
  auto& n = u.node("MaxUnpool", {"x", "i"}, {"y"});
  set_ints(n, "kernel_shape", {2, 2});
  set_ints(n, "strides", {2, 2});
  NDArray y = run(u.import("unpool"),
                  {f32({1, 1, 2, 2}, {5, 6, 7, 8}),
                   typed({1, 1, 2, 2}, DataType::Int(64), std::vector<int64_t>{5, 7, 13, 15})});
  EXPECT_EQ(y.shape(), (std::vector<int64_t>{1, 1, 4, 4}));
  std::vector<float> want(16, 0.f);
  want[5] = 5, want[7] = 6, want[13] = 7, want[15] = 8;
  EXPECT_TRUE(tensor_close_to(y, {1, 1, 4, 4}, want));
}

TEST(OnnxOps, UniqueSortedAndInOrderOfFirstOccurrence) {
  std::vector<float> x = {2, 1, 1, 3, 4, 3};  // the ONNX operator's example
  for (bool sorted : {true, false}) {
    std::vector<std::vector<int64_t>> want =
        sorted ? std::vector<std::vector<int64_t>>{{1, 2, 3, 4},
                                                   {1, 0, 3, 4},
                                                   {1, 0, 0, 2, 3, 2},
                                                   {2, 1, 2, 1}}
               : std::vector<std::vector<int64_t>>{
                     {2, 1, 3, 4}, {0, 1, 3, 4}, {0, 1, 1, 2, 3, 2}, {1, 2, 2, 1}};
    const char* names[] = {"y", "indices", "inverse", "counts"};
    for (int k = 0; k < 4; ++k) {
      Model m(11);
      m.input("x", {int64_t(6)})
          .output(names[k], 1, k == 0 ? onnx::TensorProto::FLOAT : onnx::TensorProto::INT64);
      std::vector<std::string> outs = {"o0", "o1", "o2", "o3"};
      outs[size_t(k)] = names[k];
      set_int(m.node("Unique", {"x"}, outs), "sorted", sorted);
      NDArray y = run(m.import("unique"), {f32({6}, x)});
      if (k == 0) {
        std::vector<float> wf(want[0].begin(), want[0].end());
        EXPECT_TRUE(tensor_close_to(y, {4}, wf));
      } else {
        EXPECT_EQ(elements<int64_t>(y), want[size_t(k)]) << names[k] << " sorted=" << sorted;
      }
    }
  }
}

}  // namespace
}  // namespace relax::onnx_test
