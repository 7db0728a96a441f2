// ONNX recurrent layers (RNN, GRU, LSTM; forward, bidirectional, sequence lengths) against
// reference loops written here.
#include <cmath>

#include "onnx_test_util.h"

namespace relax::onnx_test {
namespace {

using T = onnx::TensorProto;

// ---- Recurrent layers.

float sigmoid(float x) { return 1.f / (1.f + std::exp(-x)); }

enum class Cell { kRnn, kGru, kLstm };

struct RnnResult {
  std::vector<float> y, yh, yc;  // [T, D, B, H], [D, B, H], [D, B, H]
};

/// Reference RNN/GRU/LSTM with the default activations; W [D, G*H, I], R [D, G*H, H],
/// Bias [D, 2*G*H]; X [T, B, I].
RnnResult rnn_reference(Cell cell, int t_len, int batch, int in, int hid, int dirs,
                        const std::vector<float>& x, const std::vector<float>& w,
                        const std::vector<float>& r, const std::vector<float>& bias,
                        bool linear_before_reset = false) {
  int gates = cell == Cell::kRnn ? 1 : cell == Cell::kGru ? 3 : 4;
  RnnResult res;
  res.y.assign(size_t(t_len * dirs * batch * hid), 0);
  res.yh.assign(size_t(dirs * batch * hid), 0);
  res.yc.assign(size_t(dirs * batch * hid), 0);
  for (int d = 0; d < dirs; ++d) {
    for (int b = 0; b < batch; ++b) {
      std::vector<float> h(static_cast<size_t>(hid), 0), c(static_cast<size_t>(hid), 0);
      for (int k = 0; k < t_len; ++k) {
        int t = d == 1 ? t_len - 1 - k : k;
        // xw[g*H + j] = x·W + Wb, hr[g*H + j] = h·R + Rb
        std::vector<float> xw(static_cast<size_t>(gates * hid)),
            hr(static_cast<size_t>(gates * hid));
        for (int j = 0; j < gates * hid; ++j) {
          float sx = bias[size_t(d * 2 * gates * hid + j)],
                sh = bias[size_t(d * 2 * gates * hid + gates * hid + j)];
          for (int i = 0; i < in; ++i)
            sx += x[size_t((t * batch + b) * in + i)] * w[size_t((d * gates * hid + j) * in + i)];
          for (int i = 0; i < hid; ++i)
            sh += h[size_t(i)] * r[size_t((d * gates * hid + j) * hid + i)];
          xw[size_t(j)] = sx;
          hr[size_t(j)] = sh;
        }
        std::vector<float> nh(static_cast<size_t>(hid));
        for (int j = 0; j < hid; ++j) {
          size_t J = size_t(j), H = size_t(hid);
          if (cell == Cell::kRnn) {
            nh[J] = std::tanh(xw[J] + hr[J]);
          } else if (cell == Cell::kLstm) {
            float ig = sigmoid(xw[J] + hr[J]), og = sigmoid(xw[H + J] + hr[H + J]);
            float fg = sigmoid(xw[2 * H + J] + hr[2 * H + J]),
                  cg = std::tanh(xw[3 * H + J] + hr[3 * H + J]);
            c[J] = fg * c[J] + ig * cg;
            nh[J] = og * std::tanh(c[J]);
          }
        }
        if (cell == Cell::kGru) {
          std::vector<float> z(static_cast<size_t>(hid)), rr(static_cast<size_t>(hid));
          for (int j = 0; j < hid; ++j) {
            z[size_t(j)] = sigmoid(xw[size_t(j)] + hr[size_t(j)]);
            rr[size_t(j)] = sigmoid(xw[size_t(hid + j)] + hr[size_t(hid + j)]);
          }
          for (int j = 0; j < hid; ++j) {
            float rb = bias[size_t(d * 2 * gates * hid + gates * hid + 2 * hid + j)];
            float hh;
            if (linear_before_reset) {
              hh = std::tanh(xw[size_t(2 * hid + j)] + rr[size_t(j)] * hr[size_t(2 * hid + j)]);
            } else {
              float s = rb;
              for (int i = 0; i < hid; ++i) {
                s += rr[size_t(i)] * h[size_t(i)] *
                     r[size_t((d * gates * hid + 2 * hid + j) * hid + i)];
              }
              hh = std::tanh(xw[size_t(2 * hid + j)] + s);
            }
            nh[size_t(j)] = (1 - z[size_t(j)]) * hh + z[size_t(j)] * h[size_t(j)];
          }
        }
        h = nh;
        for (int j = 0; j < hid; ++j)
          res.y[size_t(((t * dirs + d) * batch + b) * hid + j)] = h[size_t(j)];
      }
      for (int j = 0; j < hid; ++j) {
        res.yh[size_t((d * batch + b) * hid + j)] = h[size_t(j)];
        res.yc[size_t((d * batch + b) * hid + j)] = c[size_t(j)];
      }
    }
  }
  return res;
}

std::vector<float> wave(size_t n, float phase) {
  std::vector<float> v(n);
  for (size_t i = 0; i < n; ++i) v[i] = 0.5f * std::sin(float(i) * 0.7f + phase);
  return v;
}

void check_rnn(Cell cell, const char* op, bool bidirectional, bool linear_before_reset = false) {
  int t_len = 3, batch = 2, in = 2, hid = 3, dirs = bidirectional ? 2 : 1;
  int gates = cell == Cell::kRnn ? 1 : cell == Cell::kGru ? 3 : 4;
  std::vector<float> x = wave(size_t(t_len * batch * in), 0.1f);
  std::vector<float> w = wave(size_t(dirs * gates * hid * in), 1.3f);
  std::vector<float> r = wave(size_t(dirs * gates * hid * hid), 2.1f);
  std::vector<float> bias = wave(size_t(dirs * 2 * gates * hid), 0.4f);
  Model m(14);
  m.input("x", {int64_t(t_len), int64_t(batch), int64_t(in)});
  m.init_f32("w", {dirs, gates * hid, in}, w).init_f32("r", {dirs, gates * hid, hid}, r);
  m.init_f32("b", {dirs, 2 * gates * hid}, bias);
  m.output("y", 4).output("yh", 3);
  std::vector<std::string> outs = {"y", "yh"};
  if (cell == Cell::kLstm) {
    m.output("yc", 3);
    outs.push_back("yc");
  }
  auto& n = m.node(op, {"x", "w", "r", "b"}, outs, "rnn");
  set_int(n, "hidden_size", hid);
  if (bidirectional) set_string(n, "direction", "bidirectional");
  if (linear_before_reset) set_int(n, "linear_before_reset", 1);
  RnnResult want =
      rnn_reference(cell, t_len, batch, in, hid, dirs, x, w, r, bias, linear_before_reset);
  auto got = run_all(m.import(std::string("rnn_") + op), {f32({t_len, batch, in}, x)});
  ASSERT_EQ(got.size(), outs.size());
  EXPECT_TRUE(tensor_close_to(got[0], {t_len, dirs, batch, hid}, want.y));
  EXPECT_TRUE(tensor_close_to(got[1], {dirs, batch, hid}, want.yh));
  if (cell == Cell::kLstm) {
    EXPECT_TRUE(tensor_close_to(got[2], {dirs, batch, hid}, want.yc));
  }
}

TEST(OnnxRnn, RnnForwardAndBidirectional) {
  check_rnn(Cell::kRnn, "RNN", false);
  check_rnn(Cell::kRnn, "RNN", true);
}

TEST(OnnxRnn, GruForwardBidirectionalAndLinearBeforeReset) {
  check_rnn(Cell::kGru, "GRU", false);
  check_rnn(Cell::kGru, "GRU", true);
  check_rnn(Cell::kGru, "GRU", false, true);
}

TEST(OnnxRnn, LstmForwardAndBidirectional) {
  check_rnn(Cell::kLstm, "LSTM", false);
  check_rnn(Cell::kLstm, "LSTM", true);
}

TEST(OnnxRnn, SequenceLensFreezeTheStateAndZeroTheOutput) {
  // RNN with W = 1, R = 1 (hidden 1, input 1), no bias: h = tanh(x + h). Batch 2 with lengths
  // 3 and 1.
  Model m(14);
  m.input("x", {int64_t(3), int64_t(2), int64_t(1)}).input("lens", {int64_t(2)}, T::INT32);
  m.init_f32("w", {1, 1, 1}, {1}).init_f32("r", {1, 1, 1}, {1});
  m.output("y", 4).output("yh", 3);
  set_int(m.node("RNN", {"x", "w", "r", "", "lens"}, {"y", "yh"}, "rnn"), "hidden_size", 1);
  NDArray lens = NDArray::empty({2}, DataType::Int(32));
  lens.data_as<int32_t>()[0] = 3;
  lens.data_as<int32_t>()[1] = 1;
  std::vector<float> x = {0.1f, 0.2f, 0.3f, 0.4f, 0.5f, 0.6f};  // [t][b]
  float h0 = 0, h1 = 0;
  std::vector<float> y(6, 0);
  for (int t = 0; t < 3; ++t) {
    h0 = std::tanh(x[size_t(2 * t)] + h0);
    y[size_t(2 * t)] = h0;
    if (t < 1) {
      h1 = std::tanh(x[size_t(2 * t + 1)] + h1);
      y[size_t(2 * t + 1)] = h1;
    }
  }
  auto got = run_all(m.import("rnn_lens"), {f32({3, 2, 1}, x), lens});
  EXPECT_TRUE(tensor_close_to(got[0], {3, 1, 2, 1}, y));
  EXPECT_TRUE(tensor_close_to(got[1], {1, 2, 1}, {h0, h1}));
}

TEST(OnnxRnn, SymbolicSequenceLengthIsAClearError) {
  Model m(14);
  m.input("x", {std::string("T"), int64_t(1), int64_t(1)});
  m.init_f32("w", {1, 1, 1}, {1}).init_f32("r", {1, 1, 1}, {1});
  m.output("y", 4);
  set_int(m.node("RNN", {"x", "w", "r"}, {"y"}, "rnn"), "hidden_size", 1);
  std::string msg = error_of([&] { m.import("rnn_symbolic"); });
  EXPECT_NE(msg.find("node 'rnn' (RNN): the sequence length (T) must be static"), std::string::npos)
      << msg;
}

}  // namespace
}  // namespace relax::onnx_test
