// Relay converters for qnn.*: quantize, dequantize, requantize, conv2d and dense, written
// out in float and int32 arithmetic (Relay's QNN semantics):
//   quantize:   q = clip(round(x / scale) + zero_point, range of out_dtype)
//   dequantize: x = (q - zero_point) * scale            (in float32)
//   requantize: quantize(dequantize(q, in_scale, in_zp), out_scale, out_zp)
//   conv2d / dense: the int32 convolution / product of (data - input_zero_point) and
//                   (weight - kernel_zero_point); the scales are not applied (Relay's output
//                   is int32 too, to be requantized).
// Scales and zero points are scalars or one value per channel along `axis`. qnn.add,
// qnn.subtract and qnn.mul dequantize both sides, compute in float and quantize the result.
#include "convert.h"
#include "relax/op/op.h"

namespace relax::relay_frontend {

namespace {

/// Argument `i` (a scalar or one value per channel) shaped to broadcast along `axis` of a
/// tensor of rank `ndim`.
Expr per_axis(OpCall& c, size_t i, int64_t axis, int64_t ndim) {
  Expr v = c.arg(i);
  if (c.ndim(i) == 0 || axis == ndim - 1) return v;
  if (c.ndim(i) != 1) c.fail("argument " + std::to_string(i) + " must be a scalar or one value per channel");
  std::vector<int64_t> extra;
  for (int64_t k = 1; k < ndim - axis; ++k) extra.push_back(k);
  return c.bb().emit(op::expand_dims(v, extra));
}

Expr as(OpCall& c, const Expr& e, DataType dt) {
  const TensorStructInfo* t = tensor_info(e);
  if (t && t->dtype == dt) return e;
  return c.bb().emit(op::astype(e, dt));
}

std::pair<double, double> range_of(OpCall& c, DataType dt) {
  if (dt == DataType::Int(8)) return {-128, 127};
  if (dt == DataType::UInt(8)) return {0, 255};
  if (dt == DataType::Int(16)) return {-32768, 32767};
  if (dt == DataType::UInt(16)) return {0, 65535};
  if (dt == DataType::Int(32)) return {-2147483648.0, 2147483647.0};
  c.fail("out_dtype " + dt.to_string() + " is not supported (int8, uint8, int16, uint16, int32)");
}

/// float32 x -> quantized with scale argument `si` and zero point `zi`.
Expr quantize(OpCall& c, Expr x, size_t si, size_t zi, int64_t axis, int64_t nd, DataType out) {
  Expr s = as(c, per_axis(c, si, axis, nd), DataType::Float(32));
  Expr z = as(c, per_axis(c, zi, axis, nd), DataType::Float(32));
  Expr q = c.bb().emit(op::round(c.bb().emit(op::divide(x, s))));
  q = c.bb().emit(op::add(q, z));
  auto [lo, hi] = range_of(c, out);
  q = c.bb().emit(op::clip(q, tir::float_imm(lo, DataType::Float(32)), tir::float_imm(hi, DataType::Float(32))));
  return op::astype(q, out);
}

/// Quantized x -> float32 with scale argument `si` and zero point `zi`.
Expr dequantize(OpCall& c, Expr x, size_t si, size_t zi, int64_t axis, int64_t nd) {
  Expr z = as(c, per_axis(c, zi, axis, nd), DataType::Int(32));
  Expr d = c.bb().emit(op::subtract(as(c, x, DataType::Int(32)), z));
  Expr s = as(c, per_axis(c, si, axis, nd), DataType::Float(32));
  return op::multiply(as(c, d, DataType::Float(32)), s);
}

/// The int32 value of argument `i` less the zero point argument `zi` (per channel along `axis`).
Expr centred(OpCall& c, size_t i, size_t zi, int64_t axis) {
  int64_t nd = c.ndim(i);
  Expr z = as(c, per_axis(c, zi, axis, nd), DataType::Int(32));
  return c.bb().emit(op::subtract(as(c, c.arg(i), DataType::Int(32)), z));
}

}  // namespace

void register_qnn_ops(OpTable& t) {
  t["qnn.quantize"] = [](OpCall& c) {
    int64_t nd = c.ndim(0);
    return quantize(c, as(c, c.arg(0), DataType::Float(32)), 1, 2, c.axis(c.attr_int("axis", -1), std::max<int64_t>(nd, 1)), nd,
                    c.attr_dtype("out_dtype", DataType::Int(8)));
  };
  t["qnn.dequantize"] = [](OpCall& c) {
    int64_t nd = c.ndim(0);
    return dequantize(c, c.arg(0), 1, 2, c.axis(c.attr_int("axis", -1), std::max<int64_t>(nd, 1)), nd);
  };
  t["qnn.requantize"] = [](OpCall& c) {
    int64_t nd = c.ndim(0);
    int64_t axis = c.axis(c.attr_int("axis", -1), std::max<int64_t>(nd, 1));
    Expr f = c.bb().emit(dequantize(c, c.arg(0), 1, 2, axis, nd));
    return quantize(c, f, 3, 4, axis, nd, c.attr_dtype("out_dtype", DataType::Int(8)));
  };
  t["qnn.conv2d"] = [](OpCall& c) {
    std::string kl = c.attr_str("kernel_layout", "OIHW");
    size_t o_axis = kl.find('O');
    if (o_axis == std::string::npos) c.fail("kernel_layout '" + kl + "' has no O axis");
    Expr data = centred(c, 0, 2, 1);
    Expr weight = centred(c, 1, 3, int64_t(o_axis));
    op::Conv2DOptions o;
    if (auto v = c.attr_ints("strides")) o.strides = *v;
    if (auto v = c.attr_ints("padding")) o.padding = *v;
    if (auto v = c.attr_ints("dilation")) o.dilation = *v;
    o.groups = c.attr_int("groups", 1);
    o.data_layout = c.attr_str("data_layout", "");
    o.kernel_layout = kl;
    o.out_layout = c.attr_str("out_layout", "");
    o.out_dtype = c.attr_dtype("out_dtype", DataType::Int(32));
    if (c.attr_str("data_layout", "NCHW") != "NCHW") c.fail("only data_layout NCHW is supported");
    return op::conv2d(data, weight, o);
  };
  // Element-wise qnn ops: (lhs, rhs, lhs_scale, lhs_zp, rhs_scale, rhs_zp, out_scale, out_zp),
  // computed on the dequantized values and quantized to the lhs dtype.
  const std::pair<const char*, Expr (*)(Expr, Expr)> binary[] = {
      {"qnn.add", op::add}, {"qnn.subtract", op::subtract}, {"qnn.mul", op::multiply}};
  for (const auto& [name, f] : binary) {
    t[name] = [f = f](OpCall& c) {
      Expr a = c.bb().emit(dequantize(c, c.arg(0), 2, 3, 0, 0));
      Expr b = c.bb().emit(dequantize(c, c.arg(1), 4, 5, 0, 0));
      Expr r = c.bb().emit(f(a, b));
      return quantize(c, r, 6, 7, 0, 0, c.dtype(0));
    };
  }
  t["qnn.dense"] = [](OpCall& c) {
    Expr data = centred(c, 0, 2, c.ndim(0) - 1);
    Expr weight = centred(c, 1, 3, 0);
    Expr wt = c.bb().emit(op::permute_dims(weight, std::vector<int64_t>{1, 0}));
    return op::matmul(data, wt, c.attr_dtype("out_dtype", DataType::Int(32)));
  };
}

}  // namespace relax::relay_frontend
