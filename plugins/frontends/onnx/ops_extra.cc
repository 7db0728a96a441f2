// ONNX converters composed from core ops: Hardmax, Shrink, ThresholdedRelu, Celu, EyeLike,
// the Hann/Hamming/Blackman windows, BitShift, OneHot, Einsum, DepthToSpace/SpaceToDepth, LRN,
// MeanVarianceNormalization, ReverseSequence, DFT and Det (up to 3x3). GridSample and
// MaxUnpool are in ops_image.cc; NonZero, Compress and Unique in ops_dynamic.cc.
//
// Each is exact against the ONNX definition (the reference implementation's formula, not an
// approximation). Values that decide an output shape at run time (a window's size, OneHot's
// depth) become symbolic dims through Context::runtime_shape (tensor_to_shape + match_cast),
// so the program compiles once for every value.
// Per-version differences: Hardmax coerces to 2-D around `axis` (default 1) before opset 13
// and acts on `axis` (default -1) from 13; DepthToSpace has `mode` (DCR/CRD) from opset 11;
// OneHot's negative indices count from the end (opset 11; out-of-range ones give all-off
// rows in every version).
#include <cmath>
#include <numbers>

#include "importer.h"
#include "relax/op/op.h"
#include "relax/support/diagnostic.h"

namespace relax::onnx_frontend {

namespace {

using Node = onnx::NodeProto;

/// Scalar input `i` (any numeric type, rank 0 or a single element) as an integer dim: its
/// value when known at import time, else a symbolic variable bound at run time.
PrimExpr scalar_dim(Context& ctx, const Node& node, int i, const std::string& what) {
  RX_CHECK(Context::has_input(node, i))
      << ctx.where(node) << ": input " << i << " (" << what << ") is required";
  if (auto c = ctx.const_floats(node, i)) {
    RX_CHECK(c->size() == 1) << ctx.where(node) << ": " << what << " (input '" << node.input(i)
                             << "') must hold one value, got " << c->size();
    return tir::int_imm(int64_t((*c)[0]));
  }
  Expr t = ctx.input(node, i);
  const TensorStructInfo& ti = ctx.tensor(node, t);
  bool single = ti.ndim == 0 || (ti.ndim == 1 && ti.shape && tir::is_const_int((*ti.shape)[0], 1));
  RX_CHECK(single) << ctx.where(node) << ": " << what << " (input '" << node.input(i)
                   << "') must be a scalar; got " << to_string(get_struct_info(t));
  if (ti.dtype != DataType::Int(64)) t = ctx.bb().emit(op::astype(t, DataType::Int(64)));
  t = ctx.bb().emit(op::reshape(t, std::vector<PrimExpr>{tir::int_imm(1)}));
  return ctx.runtime_shape(t, binding_name(node.input(i)))[0];
}

/// `v` (rank 1) reshaped to rank `rank` with its elements along `axis`.
Expr along_axis(Context& ctx, const Expr& v, const PrimExpr& len, int64_t rank, int64_t axis) {
  std::vector<PrimExpr> shape(size_t(rank), tir::int_imm(1));
  shape[size_t(axis)] = len;
  return ctx.bb().emit(op::reshape(v, shape));
}

// ---- Activations.

std::vector<OnnxValue> convert_shrink(Context& ctx, const Node& node) {
  // y = x + bias if x < -lambd; x - bias if x > lambd; 0 otherwise.
  Expr x = ctx.input(node, 0);
  DataType dt = ctx.tensor(node, x).dtype;
  double bias = attr_float(node, "bias", 0.0), lambd = attr_float(node, "lambd", 0.5);
  RX_CHECK(lambd >= 0) << ctx.where(node) << ": lambd must not be negative, got " << lambd;
  BlockBuilder& bb = ctx.bb();
  Expr low = bb.emit(op::less(x, scalar_constant(-lambd, dt)));
  Expr high = bb.emit(op::greater(x, scalar_constant(lambd, dt)));
  Expr zero = scalar_constant(0, dt);
  Expr hi = bb.emit(op::where(high, bb.emit(op::subtract(x, scalar_constant(bias, dt))), zero));
  return {Context::tensor_value(
      ctx.emit(op::where(low, bb.emit(op::add(x, scalar_constant(bias, dt))), hi), node))};
}

std::vector<OnnxValue> convert_thresholded_relu(Context& ctx, const Node& node) {
  Expr x = ctx.input(node, 0);
  DataType dt = float_dtype(ctx, node, x);
  double alpha = attr_float(node, "alpha", 1.0);
  Expr above = ctx.bb().emit(op::greater(x, scalar_constant(alpha, dt)));
  return {Context::tensor_value(ctx.emit(op::where(above, x, scalar_constant(0, dt)), node))};
}

std::vector<OnnxValue> convert_celu(Context& ctx, const Node& node) {
  // max(0, x) + min(0, alpha * (exp(x / alpha) - 1)) = elu(x / alpha) * alpha.
  Expr x = ctx.input(node, 0);
  DataType dt = float_dtype(ctx, node, x);
  double alpha = attr_float(node, "alpha", 1.0);
  RX_CHECK(alpha != 0) << ctx.where(node) << ": alpha must not be 0";
  Expr scaled = ctx.bb().emit(op::divide(x, scalar_constant(alpha, dt)));
  Expr elu = ctx.bb().emit(op::elu(scaled, 1.0));
  return {Context::tensor_value(ctx.emit(op::multiply(elu, scalar_constant(alpha, dt)), node))};
}

/// Hardmax: 1 at the first maximum along the axis, 0 elsewhere.
std::vector<OnnxValue> convert_hardmax(Context& ctx, const Node& node) {
  Expr x = ctx.input(node, 0);
  DataType dt = ctx.tensor(node, x).dtype;
  int64_t rank = ctx.ndim(node, x);
  std::vector<PrimExpr> shape = ctx.shape_of(node, x, "Hardmax");
  BlockBuilder& bb = ctx.bb();
  auto hardmax = [&](const Expr& e, int64_t axis, int64_t r, const PrimExpr& len) {
    Expr best = bb.emit(op::argmax(e, axis, /*keepdims=*/true));
    Expr idx = along_axis(
        ctx, bb.emit(op::arange(tir::int_imm(0), len, tir::int_imm(1), DataType::Int(64))), len, r,
        axis);
    return bb.emit(op::astype(bb.emit(op::equal(idx, best)), dt));
  };
  if (ctx.opset() >= 13) {
    int64_t axis = normalize_axis(attr_int(node, "axis", -1), rank, ctx.where(node));
    return {Context::tensor_value(ctx.emit(hardmax(x, axis, rank, shape[size_t(axis)]), node))};
  }
  // Before opset 13: over the 2-D view [prod(:axis), prod(axis:)].
  int64_t axis = normalize_axis(attr_int(node, "axis", 1), rank, ctx.where(node));
  PrimExpr outer = tir::int_imm(1), inner = tir::int_imm(1);
  for (int64_t i = 0; i < rank; ++i)
    (i < axis ? outer : inner) = (i < axis ? outer : inner) * shape[size_t(i)];
  Expr flat = bb.emit(op::reshape(x, std::vector<PrimExpr>{outer, inner}));
  Expr y = hardmax(flat, 1, 2, inner);
  return {Context::tensor_value(ctx.emit(op::reshape(y, shape), node))};
}

// ---- Constructors.

std::vector<OnnxValue> convert_eye_like(Context& ctx, const Node& node) {
  Expr x = ctx.input(node, 0);
  std::vector<PrimExpr> shape = ctx.shape_of(node, x, "EyeLike");
  RX_CHECK(shape.size() == 2) << ctx.where(node) << ": the input must be 2-D, got "
                              << to_string(get_struct_info(x));
  DataType dt = ctx.tensor(node, x).dtype;
  if (const auto* a = find_attr(node, "dtype")) dt = dtype_of(int32_t(a->i()), ctx.where(node));
  return {Context::tensor_value(
      ctx.emit(op::eye(shape[0], shape[1], attr_int(node, "k", 0), dt), node))};
}

/// The generalised cosine windows: sum_k a_k cos(2 pi k n / N'), N' = size (periodic) or
/// size - 1 (symmetric).
Converter window(std::vector<double> coeffs) {
  return [coeffs](Context& ctx, const Node& node) -> std::vector<OnnxValue> {
    DataType out = dtype_of(int32_t(attr_int(node, "output_datatype", onnx::TensorProto::FLOAT)),
                            ctx.where(node));
    RX_CHECK(out.is_float() || out.is_int() || out.is_uint())
        << ctx.where(node) << ": output_datatype " << out.to_string() << " is not numeric";
    bool periodic = attr_int(node, "periodic", 1) != 0;
    PrimExpr n = scalar_dim(ctx, node, 0, "size");
    BlockBuilder& bb = ctx.bb();
    DataType f64 = DataType::Float(64);
    Expr size = bb.emit(op::astype(ctx.input(node, 0), f64));
    if (ctx.ndim(node, size) != 0) size = bb.emit(op::reshape(size, std::vector<PrimExpr>{}));
    Expr denom = periodic ? size : bb.emit(op::subtract(size, scalar_constant(1, f64)));
    Expr ni = bb.emit(op::arange(tir::int_imm(0), n, tir::int_imm(1), f64));
    Expr theta = bb.emit(
        op::divide(bb.emit(op::multiply(ni, scalar_constant(2 * std::numbers::pi, f64))), denom));
    Expr acc = bb.emit(op::full_like(ni, scalar_constant(coeffs[0], f64)));
    for (size_t k = 1; k < coeffs.size(); ++k) {
      Expr angle = k == 1 ? theta : bb.emit(op::multiply(theta, scalar_constant(double(k), f64)));
      Expr term = bb.emit(op::multiply(bb.emit(op::cos(angle)), scalar_constant(coeffs[k], f64)));
      acc = bb.emit(op::add(acc, term));
    }
    return {Context::tensor_value(ctx.emit(op::astype(acc, out), node))};
  };
}

/// OneHot(indices, depth, values = [off, on]): a new axis of length depth holding `on` where
/// its position equals the index (negative indices count from the end).
std::vector<OnnxValue> convert_one_hot(Context& ctx, const Node& node) {
  Expr indices = ctx.input(node, 0);
  int64_t rank = ctx.ndim(node, indices) + 1;
  int64_t axis = normalize_axis(attr_int(node, "axis", -1), rank, ctx.where(node));
  PrimExpr depth = scalar_dim(ctx, node, 1, "depth");
  Expr values = ctx.input(node, 2);
  const TensorStructInfo& vi = ctx.tensor(node, values);
  RX_CHECK(vi.ndim == 1 && vi.shape && tir::is_const_int((*vi.shape)[0], 2))
      << ctx.where(node) << ": values must be a tensor of 2 elements [off, on], got "
      << to_string(get_struct_info(values));
  BlockBuilder& bb = ctx.bb();
  DataType i64 = DataType::Int(64);
  Expr idx = ctx.tensor(node, indices).dtype == i64 ? indices : bb.emit(op::astype(indices, i64));
  // The depth as a tensor, for wrapping negative indices.
  Expr depth_t = bb.emit(op::astype(ctx.input(node, 1), i64));
  if (ctx.ndim(node, depth_t) != 0)
    depth_t = bb.emit(op::reshape(depth_t, std::vector<PrimExpr>{}));
  Expr negative = bb.emit(op::less(idx, scalar_constant(0, i64)));
  idx = bb.emit(op::where(negative, bb.emit(op::add(idx, depth_t)), idx));
  idx = bb.emit(op::expand_dims(idx, {axis}));
  Expr positions = along_axis(
      ctx, bb.emit(op::arange(tir::int_imm(0), depth, tir::int_imm(1), i64)), depth, rank, axis);
  Expr hit = bb.emit(op::equal(positions, idx));
  Expr off = bb.emit(op::take(values, scalar_constant(0, i64), 0));
  Expr on = bb.emit(op::take(values, scalar_constant(1, i64), 0));
  return {Context::tensor_value(ctx.emit(op::where(hit, on, off), node))};
}

// ---- Integer ops.

std::vector<OnnxValue> convert_bit_shift(Context& ctx, const Node& node) {
  std::string dir = attr_string(node, "direction", "");
  RX_CHECK(dir == "LEFT" || dir == "RIGHT")
      << ctx.where(node) << ": direction must be LEFT or RIGHT, got '" << dir << "'";
  Expr a = ctx.input(node, 0), b = ctx.input(node, 1);
  DataType dt = ctx.tensor(node, a).dtype;
  RX_CHECK(dt.is_uint()) << ctx.where(node) << ": BitShift takes unsigned integers, got "
                         << dt.to_string();
  return {Context::tensor_value(
      ctx.emit(dir == "LEFT" ? op::left_shift(a, b) : op::right_shift(a, b), node))};
}

// ---- Layout.

int64_t block_size(Context& ctx, const Node& node) {
  const auto* a = find_attr(node, "blocksize");
  RX_CHECK(a && a->i() > 0) << ctx.where(node) << ": blocksize must be a positive integer"
                            << (a ? ", got " + std::to_string(a->i()) : std::string(" (missing)"));
  return a->i();
}

std::vector<OnnxValue> convert_depth_to_space(Context& ctx, const Node& node) {
  Expr x = ctx.input(node, 0);
  std::vector<PrimExpr> s = ctx.shape_of(node, x, "DepthToSpace");
  RX_CHECK(s.size() == 4) << ctx.where(node) << ": the input must be 4-D (N, C, H, W), got "
                          << to_string(get_struct_info(x));
  int64_t bs = block_size(ctx, node);
  std::string mode = ctx.opset() >= 11 ? attr_string(node, "mode", "DCR") : "DCR";
  RX_CHECK(mode == "DCR" || mode == "CRD")
      << ctx.where(node) << ": mode must be DCR or CRD, got '" << mode << "'";
  if (const int64_t* c = tir::as_const_int(s[1])) {
    RX_CHECK(*c % (bs * bs) == 0) << ctx.where(node) << ": the channels (" << *c
                                  << ") are not divisible by blocksize^2 (" << bs * bs << ")";
  }
  PrimExpr b = tir::int_imm(bs), c = tir::floordiv(s[1], tir::int_imm(bs * bs));
  BlockBuilder& bb = ctx.bb();
  Expr t;
  if (mode == "DCR") {
    t = bb.emit(op::reshape(x, std::vector<PrimExpr>{s[0], b, b, c, s[2], s[3]}));
    t = bb.emit(op::permute_dims(t, std::vector<int64_t>{0, 3, 4, 1, 5, 2}));
  } else {
    t = bb.emit(op::reshape(x, std::vector<PrimExpr>{s[0], c, b, b, s[2], s[3]}));
    t = bb.emit(op::permute_dims(t, std::vector<int64_t>{0, 1, 4, 2, 5, 3}));
  }
  return {Context::tensor_value(
      ctx.emit(op::reshape(t, std::vector<PrimExpr>{s[0], c, s[2] * b, s[3] * b}), node))};
}

std::vector<OnnxValue> convert_space_to_depth(Context& ctx, const Node& node) {
  Expr x = ctx.input(node, 0);
  std::vector<PrimExpr> s = ctx.shape_of(node, x, "SpaceToDepth");
  RX_CHECK(s.size() == 4) << ctx.where(node) << ": the input must be 4-D (N, C, H, W), got "
                          << to_string(get_struct_info(x));
  int64_t bs = block_size(ctx, node);
  for (int a : {2, 3}) {
    if (const int64_t* d = tir::as_const_int(s[size_t(a)])) {
      RX_CHECK(*d % bs == 0) << ctx.where(node) << ": spatial size " << *d
                             << " is not divisible by blocksize " << bs;
    }
  }
  PrimExpr b = tir::int_imm(bs);
  PrimExpr h = tir::floordiv(s[2], b), w = tir::floordiv(s[3], b);
  BlockBuilder& bb = ctx.bb();
  Expr t = bb.emit(op::reshape(x, std::vector<PrimExpr>{s[0], s[1], h, b, w, b}));
  t = bb.emit(op::permute_dims(t, std::vector<int64_t>{0, 3, 5, 1, 2, 4}));
  return {Context::tensor_value(
      ctx.emit(op::reshape(t, std::vector<PrimExpr>{s[0], s[1] * b * b, h, w}), node))};
}

/// ReverseSequence: along time_axis, the first sequence_lens[b] elements of batch b reversed.
std::vector<OnnxValue> convert_reverse_sequence(Context& ctx, const Node& node) {
  Expr x = ctx.input(node, 0);
  Expr lens = ctx.input(node, 1);
  std::vector<PrimExpr> shape = ctx.shape_of(node, x, "ReverseSequence");
  int64_t rank = int64_t(shape.size());
  RX_CHECK(rank >= 2) << ctx.where(node) << ": the input needs rank 2 or more, got "
                      << to_string(get_struct_info(x));
  int64_t time_axis = attr_int(node, "time_axis", 0), batch_axis = attr_int(node, "batch_axis", 1);
  RX_CHECK((time_axis == 0 && batch_axis == 1) || (time_axis == 1 && batch_axis == 0))
      << ctx.where(node) << ": time_axis and batch_axis must be 0 and 1 (either way), got "
      << time_axis << " and " << batch_axis;
  BlockBuilder& bb = ctx.bb();
  DataType i64 = DataType::Int(64);
  if (ctx.tensor(node, lens).dtype != i64) lens = bb.emit(op::astype(lens, i64));
  PrimExpr steps = shape[size_t(time_axis)];
  Expr t = along_axis(ctx, bb.emit(op::arange(tir::int_imm(0), steps, tir::int_imm(1), i64)), steps,
                      rank, time_axis);
  Expr len = along_axis(ctx, lens, shape[size_t(batch_axis)], rank, batch_axis);
  Expr reversed = bb.emit(op::subtract(bb.emit(op::subtract(len, scalar_constant(1, i64))), t));
  Expr src = bb.emit(op::where(bb.emit(op::less(t, len)), reversed, t));
  src = bb.emit(op::broadcast_to(src, shape));
  return {Context::tensor_value(ctx.emit(op::gather_elements(x, src, time_axis), node))};
}

// ---- Normalisations.

/// LRN: x / (bias + alpha / size * sum of squares over the channel window)^beta; the window
/// spans floor((size-1)/2) channels before and ceil((size-1)/2) after.
std::vector<OnnxValue> convert_lrn(Context& ctx, const Node& node) {
  Expr x = ctx.input(node, 0);
  DataType dt = float_dtype(ctx, node, x);
  std::vector<PrimExpr> shape = ctx.shape_of(node, x, "LRN");
  int64_t rank = int64_t(shape.size());
  RX_CHECK(rank >= 3) << ctx.where(node) << ": the input must be (N, C, D1, ...), got "
                      << to_string(get_struct_info(x));
  const int64_t* channels = tir::as_const_int(shape[1]);
  RX_CHECK(channels) << ctx.where(node) << ": needs a static channel count, got "
                     << tir::to_string(shape[1]);
  const auto* size_attr = find_attr(node, "size");
  RX_CHECK(size_attr && size_attr->i() > 0)
      << ctx.where(node) << ": size must be a positive integer"
      << (size_attr ? ", got " + std::to_string(size_attr->i()) : std::string(" (missing)"));
  int64_t size = size_attr->i();
  double alpha = attr_float(node, "alpha", 1e-4), beta = attr_float(node, "beta", 0.75);
  double bias = attr_float(node, "bias", 1.0);
  BlockBuilder& bb = ctx.bb();
  Expr sq = bb.emit(op::multiply(x, x));
  int64_t before = (size - 1) / 2, after = size - 1 - before;
  std::vector<int64_t> pads(size_t(2 * rank), 0);
  pads[1] = before;
  pads[size_t(rank + 1)] = after;
  Expr padded = bb.emit(op::pad(sq, pads));
  Expr sum;
  for (int64_t j = 0; j < size; ++j) {
    Expr win = bb.emit(op::strided_slice(padded, {1}, {j}, {j + *channels}));
    sum = sum.defined() ? bb.emit(op::add(sum, win)) : win;
  }
  Expr base = bb.emit(op::add(bb.emit(op::multiply(sum, scalar_constant(alpha / double(size), dt))),
                              scalar_constant(bias, dt)));
  Expr den = bb.emit(op::power(base, scalar_constant(beta, dt)));
  return {Context::tensor_value(ctx.emit(op::divide(x, den), node))};
}

/// MeanVarianceNormalization: (x - E[x]) / (sqrt(E[x^2] - E[x]^2) + 1e-9) over `axes`.
std::vector<OnnxValue> convert_mvn(Context& ctx, const Node& node) {
  Expr x = ctx.input(node, 0);
  DataType dt = float_dtype(ctx, node, x);
  int64_t rank = ctx.ndim(node, x);
  std::vector<int64_t> axes = attr_ints(node, "axes").value_or(std::vector<int64_t>{0, 2, 3});
  for (int64_t& a : axes) a = normalize_axis(a, rank, ctx.where(node));
  BlockBuilder& bb = ctx.bb();
  Expr mean = bb.emit(op::mean(x, axes, true));
  Expr mean_sq = bb.emit(op::mean(bb.emit(op::multiply(x, x)), axes, true));
  Expr var = bb.emit(op::subtract(mean_sq, bb.emit(op::multiply(mean, mean))));
  Expr den = bb.emit(op::add(bb.emit(op::sqrt(var)), scalar_constant(1e-9, dt)));
  return {Context::tensor_value(ctx.emit(op::divide(bb.emit(op::subtract(x, mean)), den), node))};
}

std::vector<OnnxValue> convert_einsum(Context& ctx, const Node& node) {
  std::string eq;
  for (char c : attr_string(node, "equation", "")) {
    if (c != ' ') eq += c;
  }
  RX_CHECK(!eq.empty()) << ctx.where(node) << ": the equation attribute is required";
  std::vector<Expr> operands;
  for (int i = 0; i < node.input_size(); ++i) operands.push_back(ctx.input(node, i));
  return {Context::tensor_value(ctx.emit(op::einsum(operands, eq), node))};
}

// ---- DFT and Det.

/// DFT (opset 17) along `axis` of real (..., 1) or complex (..., 2) input, as matrix products
/// with constant cos/sin tables of the (static) signal length N (or dft_length: the signal
/// truncated or zero-padded). Forward: Y[k] = sum_n x[n] e^(-2 pi i nk / N); inverse: the
/// conjugate kernel divided by N; onesided keeps the first N / 2 + 1 frequencies.
std::vector<OnnxValue> convert_dft(Context& ctx, const Node& node) {
  Expr x = ctx.input(node, 0);
  DataType dt = float_dtype(ctx, node, x);
  RX_CHECK(dt == DataType::Float(32) || dt == DataType::Float(64))
      << ctx.where(node) << ": float32 or float64 input expected, got " << dt.to_string();
  std::vector<PrimExpr> shape = ctx.shape_of(node, x, "DFT");
  int64_t rank = int64_t(shape.size());
  RX_CHECK(rank >= 2 && (tir::is_const_int(shape.back(), 1) || tir::is_const_int(shape.back(), 2)))
      << ctx.where(node) << ": the input must be (..., signal, 1) real or (..., signal, 2) "
      << "complex, got " << to_string(get_struct_info(x));
  bool complex = tir::is_const_int(shape.back(), 2);
  int64_t axis = normalize_axis(attr_int(node, "axis", 1), rank, ctx.where(node));
  RX_CHECK(axis != rank - 1) << ctx.where(node)
                             << ": axis must not be the last (real/imaginary) axis";
  bool inverse = attr_int(node, "inverse", 0) != 0, onesided = attr_int(node, "onesided", 0) != 0;
  RX_CHECK(!(inverse && onesided))
      << ctx.where(node) << ": inverse and onesided cannot both be set";
  const int64_t* len = tir::as_const_int(shape[size_t(axis)]);
  RX_CHECK(len) << ctx.where(node) << ": needs a static signal length, got "
                << tir::to_string(shape[size_t(axis)]);
  int64_t n = *len;
  if (Context::has_input(node, 1)) {
    std::vector<int64_t> l = ctx.const_ints(node, 1, "dft_length");
    RX_CHECK(l.size() == 1 && l[0] > 0)
        << ctx.where(node) << ": dft_length must be one positive value";
    n = l[0];
  }
  BlockBuilder& bb = ctx.bb();
  DataType i64 = DataType::Int(64);
  // Real and imaginary parts with the signal axis last: (..., L).
  std::vector<int64_t> perm;
  for (int64_t a = 0; a < rank - 1; ++a) {
    if (a != axis) perm.push_back(a);
  }
  perm.push_back(axis);
  auto part = [&](int k) {
    Expr p = bb.emit(op::take(x, scalar_constant(k, i64), rank - 1));
    p = bb.emit(op::permute_dims(p, perm));
    if (n < *len) p = bb.emit(op::strided_slice(p, {rank - 2}, {0}, {n}));
    if (n > *len) {
      std::vector<int64_t> pads(size_t(2 * (rank - 1)), 0);
      pads.back() = n - *len;
      p = bb.emit(op::pad(p, pads));
    }
    return p;
  };
  Expr re = part(0);
  Expr im = complex ? part(1) : Expr();
  int64_t freqs = onesided ? n / 2 + 1 : n;
  runtime::NDArray cos_t = runtime::NDArray::empty({n, freqs}, dt);
  runtime::NDArray sin_t = runtime::NDArray::empty({n, freqs}, dt);
  for (int64_t i = 0; i < n; ++i) {
    for (int64_t k = 0; k < freqs; ++k) {
      double angle = 2 * std::numbers::pi * double((i * k) % n) / double(n);
      double cv = std::cos(angle), sv = std::sin(angle);
      if (dt == DataType::Float(32)) {
        cos_t.data_as<float>()[i * freqs + k] = float(cv);
        sin_t.data_as<float>()[i * freqs + k] = float(sv);
      } else {
        cos_t.data_as<double>()[i * freqs + k] = cv;
        sin_t.data_as<double>()[i * freqs + k] = sv;
      }
    }
  }
  Expr cm = make_constant(cos_t), sm = make_constant(sin_t);
  // Forward: (re C + im S, im C - re S); inverse: (re C - im S, im C + re S) / N.
  Expr yr = bb.emit(op::matmul(re, cm));
  Expr yi = bb.emit(op::negative(bb.emit(op::matmul(re, sm))));
  if (inverse) yi = bb.emit(op::negative(yi));
  if (im.defined()) {
    Expr ims = bb.emit(op::matmul(im, sm));
    yr = bb.emit(inverse ? op::subtract(yr, ims) : op::add(yr, ims));
    yi = bb.emit(op::add(yi, bb.emit(op::matmul(im, cm))));
  }
  if (inverse) {
    yr = bb.emit(op::divide(yr, scalar_constant(double(n), dt)));
    yi = bb.emit(op::divide(yi, scalar_constant(double(n), dt)));
  }
  // Back to the input's axis order, real/imaginary last.
  std::vector<int64_t> back(size_t(rank - 1));
  for (size_t k = 0; k < perm.size(); ++k) back[size_t(perm[k])] = int64_t(k);
  yr = bb.emit(op::permute_dims(yr, back));
  yi = bb.emit(op::permute_dims(yi, back));
  return {Context::tensor_value(ctx.emit(op::stack({yr, yi}, rank - 1), node))};
}

/// Det of (..., n, n) for static n <= 3 by cofactor expansion (exact, no pivoting).
std::vector<OnnxValue> convert_det(Context& ctx, const Node& node) {
  Expr x = ctx.input(node, 0);
  float_dtype(ctx, node, x);
  std::vector<PrimExpr> shape = ctx.shape_of(node, x, "Det");
  int64_t rank = int64_t(shape.size());
  RX_CHECK(rank >= 2) << ctx.where(node) << ": the input must be (..., n, n), got "
                      << to_string(get_struct_info(x));
  const int64_t* rows = tir::as_const_int(shape[size_t(rank - 2)]);
  const int64_t* cols = tir::as_const_int(shape[size_t(rank - 1)]);
  RX_CHECK(rows && cols && *rows == *cols)
      << ctx.where(node) << ": the input must end in a static square matrix, got "
      << to_string(get_struct_info(x));
  int64_t n = *rows;
  RX_CHECK(n >= 1 && n <= 3) << ctx.where(node) << ": " << n << "x" << n
                             << " determinants are not supported (1x1 to 3x3 are)";
  BlockBuilder& bb = ctx.bb();
  auto at = [&](int64_t i, int64_t j) {
    Expr e = bb.emit(op::strided_slice(x, {rank - 2, rank - 1}, {i, j}, {i + 1, j + 1}));
    return bb.emit(op::squeeze(e, std::vector<int64_t>{rank - 2, rank - 1}));
  };
  auto mul = [&](const Expr& a, const Expr& b) { return bb.emit(op::multiply(a, b)); };
  auto det2 = [&](int64_t r0, int64_t r1, int64_t c0, int64_t c1) {
    return op::subtract(mul(at(r0, c0), at(r1, c1)), mul(at(r0, c1), at(r1, c0)));
  };
  Expr d;
  if (n == 1) {
    Expr e = bb.emit(op::strided_slice(x, {rank - 2, rank - 1}, {0, 0}, {1, 1}));
    d = op::squeeze(e, std::vector<int64_t>{rank - 2, rank - 1});
  } else if (n == 2) {
    d = det2(0, 1, 0, 1);
  } else {
    Expr t0 = mul(at(0, 0), bb.emit(det2(1, 2, 1, 2)));
    Expr t1 = mul(at(0, 1), bb.emit(det2(1, 2, 0, 2)));
    Expr t2 = mul(at(0, 2), bb.emit(det2(1, 2, 0, 1)));
    d = op::add(bb.emit(op::subtract(t0, t1)), t2);
  }
  return {Context::tensor_value(ctx.emit(d, node))};
}

}  // namespace

void register_extra_ops(std::map<std::string, ConverterEntry>& t) {
  t["Shrink"] = {convert_shrink, 9};
  t["ThresholdedRelu"] = {convert_thresholded_relu, 10};
  t["Celu"] = {convert_celu, 12};
  t["Hardmax"] = {convert_hardmax};
  t["EyeLike"] = {convert_eye_like, 9};
  t["HannWindow"] = {window({0.5, -0.5}), 17};
  t["HammingWindow"] = {window({25.0 / 46.0, -(1 - 25.0 / 46.0)}), 17};
  t["BlackmanWindow"] = {window({0.42, -0.5, 0.08}), 17};
  t["OneHot"] = {convert_one_hot, 9};
  t["BitShift"] = {convert_bit_shift, 11};
  t["DepthToSpace"] = {convert_depth_to_space};
  t["SpaceToDepth"] = {convert_space_to_depth};
  t["ReverseSequence"] = {convert_reverse_sequence, 10};
  t["LRN"] = {convert_lrn};
  t["MeanVarianceNormalization"] = {convert_mvn, 9};
  t["Einsum"] = {convert_einsum, 12};
  t["DFT"] = {convert_dft, 17};
  t["Det"] = {convert_det, 11};
}

}  // namespace relax::onnx_frontend
