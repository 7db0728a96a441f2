// ONNX converters: quantisation (QuantizeLinear, DequantizeLinear, DynamicQuantizeLinear) and
// the integer kernels (MatMulInteger, ConvInteger, QLinearMatMul, QLinearConv).
//
// Everything is composed from core ops, following the ONNX reference implementation step by
// step so that rounding agrees:
//  - quantise: y = saturate(round_half_to_even(x / scale) + zero_point), computed in the
//    scale's float type and cast to the zero point's type (uint8 when it is absent);
//  - dequantise: y = (float(x) - float(zero_point)) * scale;
//  - integer kernels: both operands widened to int32 with their zero points subtracted, then
//    an int32 matmul / convolution (so padding adds zeros after the subtraction, as in ONNX);
//  - QLinear*: the int32 accumulator (plus QLinearConv's int32 bias) times
//    (a_scale * b_scale / y_scale), then quantised with y's zero point.
// Per-axis scales and zero points (1-D) are reshaped to broadcast along their axis: the
// `axis` attribute for (De)QuantizeLinear, output channels for a convolution weight, rows of
// a matmul's left operand and columns of its right operand.
#include <algorithm>

#include "importer.h"
#include "relax/op/nn.h"
#include "relax/op/op.h"
#include "relax/support/diagnostic.h"

namespace relax::onnx_frontend {

namespace {

using Node = onnx::NodeProto;

/// The saturation range of a quantised type.
std::pair<double, double> quant_range(Context& ctx, const Node& node, DataType dt) {
  if (dt == DataType::UInt(8)) return {0, 255};
  if (dt == DataType::Int(8)) return {-128, 127};
  RX_THROW() << ctx.where(node) << ": quantised tensors must be uint8 or int8, got "
             << dt.to_string();
}

/// A scale or zero point `v` (scalar or 1-D) made to broadcast along `axis` of a rank-`rank`
/// tensor.
Expr along_axis(Context& ctx, const Node& node, const Expr& v, int rank, int64_t axis,
                const std::string& what) {
  int vr = ctx.ndim(node, v);
  if (vr == 0) return v;
  RX_CHECK(vr == 1) << ctx.where(node) << ": " << what << " must be a scalar or a 1-D tensor "
                    << "(per-axis), got rank " << vr;
  if (rank <= 1) return v;
  std::vector<int64_t> axes;
  for (int64_t i = 0; i < rank; ++i) {
    if (i != axis) axes.push_back(i);
  }
  return ctx.bb().emit(op::expand_dims(v, axes));
}

/// int32(x) - int32(zero_point), the zero point (when present) already broadcastable.
Expr widen(Context& ctx, const Expr& x, const std::optional<Expr>& zero_point) {
  Expr w = ctx.bb().emit(op::astype(x, DataType::Int(32)));
  if (!zero_point) return w;
  return ctx.bb().emit(op::subtract(w, ctx.bb().emit(op::astype(*zero_point, DataType::Int(32)))));
}

/// saturate(round(value) + zero_point) as `out` (value already divided by the scale).
Expr quantize_scaled(Context& ctx, const Node& node, const Expr& value,
                     const std::optional<Expr>& zero_point, DataType out) {
  auto [lo, hi] = quant_range(ctx, node, out);
  DataType fdt = ctx.tensor(node, value).dtype;
  BlockBuilder& bb = ctx.bb();
  Expr y = bb.emit(op::round(value));
  if (zero_point) y = bb.emit(op::add(y, bb.emit(op::astype(*zero_point, fdt))));
  y = bb.emit(op::maximum(y, scalar_constant(lo, fdt)));
  y = bb.emit(op::minimum(y, scalar_constant(hi, fdt)));
  return op::astype(y, out);
}

/// (De)QuantizeLinear's quantisation axis of a rank-`rank` input: the `axis` attribute (default
/// 1) when the scale is per-axis (1-D); unused (0) for a per-tensor scale.
int64_t quant_axis(Context& ctx, const Node& node, int rank) {
  if (rank == 0 || ctx.ndim(node, ctx.input(node, 1)) == 0) return 0;
  return normalize_axis(attr_int(node, "axis", 1), rank, ctx.where(node));
}

/// The dtype of the scale (input 1, named `what`): an error naming it unless it is a float.
DataType scale_dtype(Context& ctx, const Node& node, const Expr& scale, const char* what) {
  DataType dt = ctx.tensor(node, scale).dtype;
  RX_CHECK(dt.is_float()) << ctx.where(node) << ": " << what << " '" << node.input(1)
                          << "' is " << dt.to_string() << "; expected a float tensor";
  return dt;
}

/// The optional zero point input `i`, broadcast along `axis`.
std::optional<Expr> zero_point_input(Context& ctx, const Node& node, int i, int rank,
                                     int64_t axis) {
  if (!Context::has_input(node, i)) return std::nullopt;
  return along_axis(ctx, node, ctx.input(node, i), rank, axis, "the zero point");
}

std::vector<OnnxValue> convert_quantize_linear(Context& ctx, const Node& node) {
  Expr x = ctx.input(node, 0);
  int rank = ctx.ndim(node, x);
  int64_t axis = quant_axis(ctx, node, rank);
  Expr scale = along_axis(ctx, node, ctx.input(node, 1), rank, axis, "y_scale");
  std::optional<Expr> zp = zero_point_input(ctx, node, 2, rank, axis);
  DataType out = zp ? ctx.tensor(node, *zp).dtype : DataType::UInt(8);
  DataType fdt = scale_dtype(ctx, node, scale, "y_scale");
  Expr xf = ctx.tensor(node, x).dtype == fdt ? x : ctx.bb().emit(op::astype(x, fdt));
  Expr scaled = ctx.bb().emit(op::divide(xf, scale));
  return {Context::tensor_value(ctx.emit(quantize_scaled(ctx, node, scaled, zp, out), node))};
}

std::vector<OnnxValue> convert_dequantize_linear(Context& ctx, const Node& node) {
  Expr x = ctx.input(node, 0);
  int rank = ctx.ndim(node, x);
  int64_t axis = quant_axis(ctx, node, rank);
  Expr scale = along_axis(ctx, node, ctx.input(node, 1), rank, axis, "x_scale");
  std::optional<Expr> zp = zero_point_input(ctx, node, 2, rank, axis);
  DataType fdt = scale_dtype(ctx, node, scale, "x_scale");
  BlockBuilder& bb = ctx.bb();
  Expr xf = bb.emit(op::astype(x, fdt));
  if (zp) xf = bb.emit(op::subtract(xf, bb.emit(op::astype(*zp, fdt))));
  return {Context::tensor_value(ctx.emit(op::multiply(xf, scale), node))};
}

std::vector<OnnxValue> convert_dynamic_quantize_linear(Context& ctx, const Node& node) {
  Expr x = ctx.input(node, 0);
  DataType fdt = ctx.tensor(node, x).dtype;
  RX_CHECK(fdt == DataType::Float(32))
      << ctx.where(node) << ": the input must be float32, got " << fdt.to_string();
  BlockBuilder& bb = ctx.bb();
  Expr zero = scalar_constant(0.0, fdt);
  // The range always includes 0, so that 0 is exactly representable.
  Expr lo = bb.emit(op::minimum(bb.emit(op::min(x)), zero));
  Expr hi = bb.emit(op::maximum(bb.emit(op::max(x)), zero));
  Expr scale =
      ctx.emit(op::divide(bb.emit(op::subtract(hi, lo)), scalar_constant(255.0, fdt)), node, 1);
  Expr zp_f = bb.emit(op::subtract(zero, bb.emit(op::divide(lo, scale))));
  Expr zp = ctx.emit(quantize_scaled(ctx, node, zp_f, std::nullopt, DataType::UInt(8)), node, 2);
  Expr y = quantize_scaled(ctx, node, bb.emit(op::divide(x, scale)), zp, DataType::UInt(8));
  return {Context::tensor_value(ctx.emit(y, node, 0)), Context::tensor_value(scale),
          Context::tensor_value(zp)};
}

/// A matmul left operand's zero point: a 1-D one is per row ([M] -> [M, 1]).
std::optional<Expr> row_zero_point(Context& ctx, const Node& node, int i) {
  if (!Context::has_input(node, i)) return std::nullopt;
  Expr zp = ctx.input(node, i);
  if (ctx.ndim(node, zp) == 1) return ctx.bb().emit(op::expand_dims(zp, {1}));
  return zp;
}

/// A matmul right operand's zero point (scalar, [N] per column, or N-D): broadcasts as is.
std::optional<Expr> column_zero_point(Context& ctx, const Node& node, int i) {
  if (!Context::has_input(node, i)) return std::nullopt;
  return ctx.input(node, i);
}

std::vector<OnnxValue> convert_matmul_integer(Context& ctx, const Node& node) {
  Expr a = widen(ctx, ctx.input(node, 0), row_zero_point(ctx, node, 2));
  Expr b = widen(ctx, ctx.input(node, 1), column_zero_point(ctx, node, 3));
  return {Context::tensor_value(ctx.emit(op::matmul(a, b, DataType::Int(32)), node))};
}

std::vector<OnnxValue> convert_qlinear_matmul(Context& ctx, const Node& node) {
  BlockBuilder& bb = ctx.bb();
  Expr a = widen(ctx, ctx.input(node, 0), row_zero_point(ctx, node, 2));
  Expr b = widen(ctx, ctx.input(node, 3), column_zero_point(ctx, node, 5));
  Expr acc = bb.emit(op::matmul(a, b, DataType::Int(32)));
  Expr a_scale = ctx.input(node, 1);
  if (ctx.ndim(node, a_scale) == 1) a_scale = bb.emit(op::expand_dims(a_scale, {1}));
  Expr y_scale = ctx.input(node, 6);
  DataType fdt = ctx.tensor(node, y_scale).dtype;
  Expr multiplier =
      bb.emit(op::divide(bb.emit(op::multiply(a_scale, ctx.input(node, 4))), y_scale));
  Expr real = bb.emit(op::multiply(bb.emit(op::astype(acc, fdt)), multiplier));
  Expr y_zp = ctx.input(node, 7);
  DataType out = ctx.tensor(node, y_zp).dtype;
  return {Context::tensor_value(ctx.emit(quantize_scaled(ctx, node, real, y_zp, out), node))};
}

/// The int32 convolution of ConvInteger / QLinearConv of the widened operands x and w.
Expr int_conv(Context& ctx, const Node& node, const Expr& x, const Expr& w) {
  int rank = ctx.ndim(node, x);
  RX_CHECK(rank >= 3 && rank <= 5) << ctx.where(node) << ": 1-D, 2-D or 3-D convolution expected; "
                                   << "the input has rank " << rank;
  size_t dims = size_t(rank - 2);
  std::vector<int64_t> kernel;
  std::vector<PrimExpr> wshape = ctx.shape_of(node, w, "the convolution's weight");
  for (size_t i = 2; i < wshape.size(); ++i) {
    const int64_t* k = tir::as_const_int(wshape[i]);
    RX_CHECK(k) << ctx.where(node) << ": the weight's kernel sizes must be static";
    kernel.push_back(*k);
  }
  auto spatial = [&](const std::string& name, int64_t fill) {
    std::optional<std::vector<int64_t>> v = attr_ints(node, name);
    return v && !v->empty() ? *v : std::vector<int64_t>(dims, fill);
  };
  std::vector<int64_t> strides = spatial("strides", 1);
  std::vector<int64_t> dilations = spatial("dilations", 1);
  op::ConvOptions o;
  o.strides = strides;
  o.dilation = dilations;
  o.padding = resolve_pads(ctx, node, x, kernel, strides, dilations);
  o.groups = attr_int(node, "group", 1);
  o.out_dtype = DataType::Int(32);
  if (dims == 2) {
    op::Conv2DOptions o2;
    o2.strides = o.strides;
    o2.dilation = o.dilation;
    o2.padding = o.padding;
    o2.groups = o.groups;
    o2.out_dtype = o.out_dtype;
    return ctx.bb().emit(op::conv2d(x, w, o2));
  }
  return ctx.bb().emit(dims == 1 ? op::conv1d(x, w, o) : op::conv3d(x, w, o));
}

/// A weight's zero point or scale: 1-D is per output channel (axis 0 of the weight).
std::optional<Expr> channel_param(Context& ctx, const Node& node, int i, int rank,
                                  const std::string& what) {
  if (!Context::has_input(node, i)) return std::nullopt;
  return along_axis(ctx, node, ctx.input(node, i), rank, 0, what);
}

std::vector<OnnxValue> convert_conv_integer(Context& ctx, const Node& node) {
  Expr x_in = ctx.input(node, 0);
  Expr w_in = ctx.input(node, 1);
  int rank = ctx.ndim(node, w_in);
  std::optional<Expr> x_zp;
  if (Context::has_input(node, 2)) x_zp = ctx.input(node, 2);
  Expr x = widen(ctx, x_in, x_zp);
  Expr w = widen(ctx, w_in, channel_param(ctx, node, 3, rank, "w_zero_point"));
  return {Context::tensor_value(ctx.emit(int_conv(ctx, node, x, w), node))};
}

std::vector<OnnxValue> convert_qlinear_conv(Context& ctx, const Node& node) {
  BlockBuilder& bb = ctx.bb();
  Expr x_in = ctx.input(node, 0);
  Expr w_in = ctx.input(node, 3);
  int rank = ctx.ndim(node, w_in);
  Expr x = widen(ctx, x_in, std::optional<Expr>(ctx.input(node, 2)));
  Expr w = widen(ctx, w_in, channel_param(ctx, node, 5, rank, "w_zero_point"));
  Expr acc = int_conv(ctx, node, x, w);
  // Output channels are axis 1 of the result: [M] -> [M, 1, ...].
  std::vector<int64_t> trailing;
  for (int i = 1; i < rank - 1; ++i) trailing.push_back(i);
  if (Context::has_input(node, 8)) {
    Expr bias = bb.emit(op::astype(ctx.input(node, 8), DataType::Int(32)));
    acc = bb.emit(op::add(acc, bb.emit(op::expand_dims(bias, trailing))));
  }
  Expr w_scale = ctx.input(node, 4);
  if (ctx.ndim(node, w_scale) == 1) w_scale = bb.emit(op::expand_dims(w_scale, trailing));
  Expr y_scale = ctx.input(node, 6);
  DataType fdt = ctx.tensor(node, y_scale).dtype;
  Expr multiplier =
      bb.emit(op::divide(bb.emit(op::multiply(ctx.input(node, 1), w_scale)), y_scale));
  Expr real = bb.emit(op::multiply(bb.emit(op::astype(acc, fdt)), multiplier));
  Expr y_zp = ctx.input(node, 7);
  DataType out = ctx.tensor(node, y_zp).dtype;
  return {Context::tensor_value(ctx.emit(quantize_scaled(ctx, node, real, y_zp, out), node))};
}

}  // namespace

void register_quant_ops(std::map<std::string, ConverterEntry>& t) {
  t["QuantizeLinear"] = {convert_quantize_linear, 10};
  t["DequantizeLinear"] = {convert_dequantize_linear, 10};
  t["DynamicQuantizeLinear"] = {convert_dynamic_quantize_linear, 11};
  t["MatMulInteger"] = {convert_matmul_integer, 10};
  t["ConvInteger"] = {convert_conv_integer, 10};
  t["QLinearMatMul"] = {convert_qlinear_matmul, 10};
  t["QLinearConv"] = {convert_qlinear_conv, 10};
}

}  // namespace relax::onnx_frontend
