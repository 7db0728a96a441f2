// ONNX signal-processing converters composed from core ops: STFT and MelWeightMatrix (opset 17).
//
// STFT: the signal (batch, length, 1) real or (batch, length, 2) complex is cut into frames of
// `frame_length` samples every `frame_step` (both known at import: constants or specialised
// graph inputs; the length must be static) by one gather with a constant index table, each
// frame multiplied by `window` (a rectangular window when absent), and transformed by matrix
// products with constant cos/sin tables: Y[f, k] = sum_n w[n] x[f * step + n] e^(-2 pi i n k / L).
// onesided=1 (the default) keeps the first L / 2 + 1 frequencies. Output (batch, frames,
// frequencies, 2).
//
// MelWeightMatrix: the (dft_length / 2 + 1, num_mel_bins) matrix of triangular mel filters, as
// ONNX's reference computes it: num_mel_bins + 2 points equally spaced on the mel scale
// (mel = 2595 log10(1 + hz / 700)) between lower_edge_hertz and upper_edge_hertz, with step
// (high - low) / (num_mel_bins + 2), mapped back to hertz and to spectrogram bins
// floor((dft_length + 1) * hz / sample_rate); filter i rises linearly from bin[i] to bin[i+1]
// and falls to bin[i+2] (exclusive); a filter whose rising edge is empty is 1 at its centre.
// The integer inputs decide the output shape (known at import, or specialised); the edge
// frequencies may be run-time values (the matrix is computed by tensor ops, in float64 after
// the mel step, which is computed in the edges' dtype as the reference does).
#include <cmath>
#include <numbers>

#include "importer.h"
#include "relax/op/op.h"
#include "relax/support/diagnostic.h"

namespace relax::onnx_frontend {

namespace {

using Node = onnx::NodeProto;

/// Scalar integer input `i` known at import (a constant, or a specialised graph input).
int64_t scalar_int(Context& ctx, const Node& node, int i, const std::string& what) {
  std::vector<int64_t> v = ctx.const_ints(node, i, what);
  RX_CHECK(v.size() == 1) << ctx.where(node) << ": " << what << " (input '" << node.input(i)
                          << "') must hold one value, got " << v.size();
  return v[0];
}

/// A constant tensor of `dtype` (float32 or float64) from `values` with `shape`.
Expr float_table(const std::vector<double>& values, std::vector<int64_t> shape, DataType dtype) {
  runtime::NDArray a = runtime::NDArray::empty(shape, dtype);
  for (size_t k = 0; k < values.size(); ++k) {
    if (dtype == DataType::Float(32)) a.data_as<float>()[k] = float(values[k]);
    else a.data_as<double>()[k] = values[k];
  }
  return make_constant(a);
}

std::vector<OnnxValue> convert_stft(Context& ctx, const Node& node) {
  Expr x = ctx.input(node, 0);
  DataType dt = float_dtype(ctx, node, x);
  RX_CHECK(dt == DataType::Float(32) || dt == DataType::Float(64))
      << ctx.where(node) << ": float32 or float64 signal expected, got " << dt.to_string();
  std::vector<PrimExpr> shape = ctx.shape_of(node, x, "STFT");
  RX_CHECK(shape.size() == 3 && (tir::is_const_int(shape[2], 1) || tir::is_const_int(shape[2], 2)))
      << ctx.where(node) << ": the signal must be (batch, length, 1) real or (batch, length, 2) "
      << "complex, got " << to_string(get_struct_info(x));
  bool complex = tir::is_const_int(shape[2], 2);
  const int64_t* len = tir::as_const_int(shape[1]);
  RX_CHECK(len) << ctx.where(node) << ": needs a static signal length, got "
                << tir::to_string(shape[1]);
  int64_t step = scalar_int(ctx, node, 1, "frame_step");
  RX_CHECK(step > 0) << ctx.where(node) << ": frame_step must be positive, got " << step;
  bool has_window = Context::has_input(node, 2);
  Expr window = has_window ? ctx.input(node, 2) : Expr();
  int64_t frame = -1;
  if (Context::has_input(node, 3)) frame = scalar_int(ctx, node, 3, "frame_length");
  if (has_window) {
    std::vector<PrimExpr> ws = ctx.shape_of(node, window, "STFT's window");
    const int64_t* wl = ws.size() == 1 ? tir::as_const_int(ws[0]) : nullptr;
    RX_CHECK(wl) << ctx.where(node) << ": the window must be 1-D of static length, got "
                 << to_string(get_struct_info(window));
    RX_CHECK(frame < 0 || frame == *wl) << ctx.where(node) << ": frame_length " << frame
                                        << " differs from the window's length " << *wl;
    frame = *wl;
    RX_CHECK(ctx.tensor(node, window).dtype == dt)
        << ctx.where(node) << ": the window's dtype differs from the signal's";
  }
  RX_CHECK(frame > 0) << ctx.where(node) << ": needs frame_length or a window";
  RX_CHECK(frame <= *len) << ctx.where(node) << ": frame_length " << frame
                          << " is longer than the signal (" << *len << ")";
  bool onesided = attr_int(node, "onesided", 1) != 0;
  int64_t frames = 1 + (*len - frame) / step;
  int64_t freqs = onesided ? frame / 2 + 1 : frame;

  BlockBuilder& bb = ctx.bb();
  DataType i64 = DataType::Int(64);
  runtime::NDArray idx = runtime::NDArray::empty({frames, frame}, i64);
  for (int64_t f = 0; f < frames; ++f)
    for (int64_t n = 0; n < frame; ++n) idx.data_as<int64_t>()[f * frame + n] = f * step + n;
  Expr index = make_constant(idx);
  // (batch, frames, frame) per part, windowed.
  auto part = [&](int k) {
    Expr p = bb.emit(op::take(x, scalar_constant(k, i64), 2));
    p = bb.emit(op::take(p, index, 1));
    if (has_window) p = bb.emit(op::multiply(p, window));
    return p;
  };
  std::vector<double> cos_t(size_t(frame * freqs)), sin_t(size_t(frame * freqs));
  for (int64_t n = 0; n < frame; ++n) {
    for (int64_t k = 0; k < freqs; ++k) {
      double angle = 2 * std::numbers::pi * double((n * k) % frame) / double(frame);
      cos_t[size_t(n * freqs + k)] = std::cos(angle);
      sin_t[size_t(n * freqs + k)] = std::sin(angle);
    }
  }
  Expr cm = float_table(cos_t, {frame, freqs}, dt), sm = float_table(sin_t, {frame, freqs}, dt);
  Expr re = part(0);
  Expr yr = bb.emit(op::matmul(re, cm));
  Expr yi = bb.emit(op::negative(bb.emit(op::matmul(re, sm))));
  if (complex) {
    Expr im = part(1);
    yr = bb.emit(op::add(yr, bb.emit(op::matmul(im, sm))));
    yi = bb.emit(op::add(yi, bb.emit(op::matmul(im, cm))));
  }
  return {Context::tensor_value(ctx.emit(op::stack({yr, yi}, 3), node))};
}

std::vector<OnnxValue> convert_mel_weight_matrix(Context& ctx, const Node& node) {
  int64_t mels = scalar_int(ctx, node, 0, "num_mel_bins");
  int64_t dft = scalar_int(ctx, node, 1, "dft_length");
  int64_t rate = scalar_int(ctx, node, 2, "sample_rate");
  RX_CHECK(mels > 0 && dft > 0 && rate > 0)
      << ctx.where(node) << ": num_mel_bins, dft_length and sample_rate must be positive, got "
      << mels << ", " << dft << ", " << rate;
  DataType out_dt = dtype_of(int32_t(attr_int(node, "output_datatype", onnx::TensorProto::FLOAT)),
                             ctx.where(node));
  BlockBuilder& bb = ctx.bb();
  Expr lo = as_scalar(ctx, node, ctx.input(node, 3), "lower_edge_hertz");
  Expr hi = as_scalar(ctx, node, ctx.input(node, 4), "upper_edge_hertz");
  DataType edt = float_dtype(ctx, node, lo);
  RX_CHECK(ctx.tensor(node, hi).dtype == edt)
      << ctx.where(node) << ": lower_edge_hertz and upper_edge_hertz differ in dtype";
  auto c = [](double v, DataType t) { return scalar_constant(v, t); };
  // mel(hz) = 2595 log10(1 + hz / 700), in the edges' dtype.
  auto mel = [&](const Expr& hz) {
    Expr r = bb.emit(op::add(c(1, edt), bb.emit(op::divide(hz, c(700, edt)))));
    r = bb.emit(op::divide(bb.emit(op::log(r)), c(std::numbers::ln10, edt)));
    return bb.emit(op::multiply(c(2595, edt), r));
  };
  Expr low_mel = mel(lo);
  Expr mel_step = bb.emit(op::divide(bb.emit(op::subtract(mel(hi), low_mel)),
                                     c(double(mels + 2), edt)));
  DataType f64 = DataType::Float(64);
  std::vector<double> points;
  for (int64_t k = 0; k < mels + 2; ++k) points.push_back(double(k));
  Expr bins = bb.emit(op::multiply(float_table(points, {mels + 2}, f64),
                                   bb.emit(op::astype(mel_step, f64))));
  bins = bb.emit(op::add(bins, bb.emit(op::astype(low_mel, f64))));
  // hz = 700 (10^(mel / 2595) - 1); bin = floor((dft + 1) hz / rate).
  bins = bb.emit(op::exp(bb.emit(op::multiply(bins, c(std::numbers::ln10 / 2595, f64)))));
  bins = bb.emit(op::multiply(c(700, f64), bb.emit(op::subtract(bins, c(1, f64)))));
  bins = bb.emit(op::multiply(bins, c(double(dft + 1), f64)));
  bins = bb.emit(op::floor(bb.emit(op::divide(bins, c(double(rate), f64)))));
  auto edge = [&](int64_t from) {
    Expr e = bb.emit(op::strided_slice(bins, {0}, {from}, {from + mels}));
    return bb.emit(op::reshape(e, std::vector<PrimExpr>{tir::int_imm(1), tir::int_imm(mels)}));
  };
  Expr left = edge(0), centre = edge(1), right = edge(2);
  int64_t spectrum = dft / 2 + 1;
  std::vector<double> js;
  for (int64_t j = 0; j < spectrum; ++j) js.push_back(double(j));
  Expr j = float_table(js, {spectrum, 1}, f64);
  Expr zero = c(0, f64), one = c(1, f64);
  // Rising edge: (j - left) / (centre - left) on [left, centre]; 1 at centre when it is empty.
  Expr empty_rise = bb.emit(op::equal(centre, left));
  Expr at_centre = bb.emit(op::where(bb.emit(op::equal(j, centre)), one, zero));
  Expr in_rise = bb.emit(op::logical_and(bb.emit(op::greater_equal(j, left)),
                                         bb.emit(op::less_equal(j, centre))));
  Expr rise = bb.emit(op::divide(bb.emit(op::subtract(j, left)),
                                 bb.emit(op::subtract(centre, left))));
  rise = bb.emit(op::where(in_rise, rise, zero));
  rise = bb.emit(op::where(empty_rise, at_centre, rise));
  // Falling edge: (right - j) / (right - centre) on [centre, right), overriding.
  Expr in_fall = bb.emit(op::logical_and(bb.emit(op::greater_equal(j, centre)),
                                         bb.emit(op::less(j, right))));
  Expr fall = bb.emit(op::divide(bb.emit(op::subtract(right, j)),
                                 bb.emit(op::subtract(right, centre))));
  Expr out = bb.emit(op::where(in_fall, fall, rise));
  return {Context::tensor_value(ctx.emit(op::astype(out, out_dt), node))};
}

}  // namespace

void register_signal_ops(std::map<std::string, ConverterEntry>& t) {
  t["STFT"] = {convert_stft, 17};
  t["MelWeightMatrix"] = {convert_mel_weight_matrix, 17};
}

}  // namespace relax::onnx_frontend
