// ONNX converters: elementwise math, comparisons, MatMul/Gemm, reductions, Softmax.
//
// Integer arithmetic on values known at import time (shape computations) is folded on their
// PrimExprs instead of emitted; everything else maps onto the core's op builders with ONNX's
// NumPy broadcasting. Per-version differences handled here: Softmax/LogSoftmax coerce to 2-D
// around `axis` (default 1) before opset 13 and act on `axis` (default -1) from 13; Clip takes
// min/max as attributes before opset 11 and as inputs from 11; ReduceSum takes axes as an
// input from opset 13. Before opset 7 the binary ops broadcast only with broadcast=1, B lined
// up with A at `axis` (legacy_rhs); Pow with an integer base computes in float64 and rounds
// back; Selu honours alpha/gamma. ReduceL1/L2/LogSum/LogSumExp are composed (LogSumExp
// shifted by the maximum).
#include <cmath>
#include <limits>

#include "importer.h"
#include "relax/arith/analyzer.h"
#include "relax/op/op.h"
#include "relax/support/diagnostic.h"

namespace relax::onnx_frontend {

namespace {

using Node = onnx::NodeProto;
using BinaryBuilder = Expr (*)(Expr, Expr);
using UnaryBuilder = Expr (*)(Expr);
using FoldFn = PrimExpr (*)(const PrimExpr&, const PrimExpr&);

PrimExpr fold_add(const PrimExpr& a, const PrimExpr& b) { return a + b; }
PrimExpr fold_sub(const PrimExpr& a, const PrimExpr& b) { return a - b; }
PrimExpr fold_mul(const PrimExpr& a, const PrimExpr& b) { return a * b; }
PrimExpr fold_div(const PrimExpr& a, const PrimExpr& b) { return tir::truncdiv(a, b); }

/// Folds an integer binary op on two known values (a scalar broadcasts); nullopt when the
/// inputs are not both known or their lengths do not broadcast.
std::optional<OnnxValue> try_fold(Context& ctx, const Node& node, FoldFn fn) {
  if (node.input_size() != 2) return std::nullopt;
  const OnnxValue& a = ctx.value(node.input(0));
  const OnnxValue& b = ctx.value(node.input(1));
  if (!a.known || !b.known || a.known_dtype != b.known_dtype) return std::nullopt;
  size_t na = a.known->size(), nb = b.known->size();
  if (na != nb && na != 1 && nb != 1) return std::nullopt;
  size_t n = std::max(na, nb);
  std::vector<PrimExpr> out;
  for (size_t i = 0; i < n; ++i) {
    const PrimExpr& x = (*a.known)[na == 1 ? 0 : i];
    const PrimExpr& y = (*b.known)[nb == 1 ? 0 : i];
    if (fn == fold_div) {
      const int64_t* c = tir::as_const_int(y);
      if (c && *c == 0) return std::nullopt;  // leave division by zero to run time
    }
    out.push_back(fn(x, y));
  }
  return Context::folded(std::move(out), a.known_scalar && b.known_scalar, a.known_dtype);
}

/// Whether `node` uses the broadcasting of opsets 1-6: with broadcast=1 and an `axis`, B's
/// dims line up with A's from `axis` on rather than from the end.
bool legacy_axis_broadcast(Context& ctx, const Node& node) {
  return ctx.opset() < 7 && attr_int(node, "broadcast", 0) != 0 && find_attr(node, "axis");
}

/// B of a binary node, reshaped for the opset 1-6 `axis` broadcasting (trailing unit dims
/// appended so that NumPy broadcasting lines it up at `axis`). Without broadcast=1 the old
/// versions require equal shapes, which NumPy broadcasting accepts unchanged.
Expr legacy_rhs(Context& ctx, const Node& node, const Expr& a, Expr b) {
  if (!legacy_axis_broadcast(ctx, node)) return b;
  int64_t ra = ctx.ndim(node, a), rb = ctx.ndim(node, b);
  int64_t axis = normalize_axis(attr_int(node, "axis", 0), ra, ctx.where(node));
  RX_CHECK(axis + rb <= ra) << ctx.where(node) << ": B " << to_string(get_struct_info(b))
                            << " does not fit into A " << to_string(get_struct_info(a))
                            << " from axis " << axis;
  std::vector<int64_t> axes;
  for (int64_t i = 0; i < ra - axis - rb; ++i) axes.push_back(rb + i);
  if (axes.empty()) return b;
  return ctx.bb().emit(op::expand_dims(b, axes));
}

/// Broadcasting operands whose dims the op could not prove compatible (two symbolic dims such as
/// an FPN's `h // 32 * 2` and `h // 16`): `b` gets `a`'s dim on those axes through a
/// match_cast, so the op infers its shape and the dims are checked at run time, as ONNX
/// Runtime checks them. Operands the op can already broadcast are returned as they are.
Expr unify_broadcast_operand(Context& ctx, const Expr& a, const Expr& b) {
  const TensorStructInfo* ta = tensor_info(a);
  const TensorStructInfo* tb = tensor_info(b);
  if (!ta || !tb || !ta->shape || !tb->shape) return b;
  const std::vector<PrimExpr>& da = *ta->shape;
  const std::vector<PrimExpr>& db = *tb->shape;
  auto is_one = [](const PrimExpr& d) {
    const int64_t* v = tir::as_const_int(d);
    return v && *v == 1;
  };
  arith::Analyzer ana;
  std::vector<PrimExpr> dims = db;
  bool changed = false;
  for (size_t i = 0; i < db.size() && i < da.size(); ++i) {
    const PrimExpr& x = da[da.size() - 1 - i];
    PrimExpr& y = dims[db.size() - 1 - i];
    if (is_one(x) || is_one(y) || ana.can_prove(tir::eq(x, y))) continue;
    if (tir::as_const_int(x) && tir::as_const_int(y)) continue;  // the op names the mismatch
    y = x;
    changed = true;
  }
  if (!changed) return b;
  return ctx.bb().emit_match_cast(b, tensor_sinfo(dims, tb->dtype), "broadcast");
}

Converter binary(BinaryBuilder build, FoldFn fold = nullptr) {
  return [build, fold](Context& ctx, const Node& node) -> std::vector<OnnxValue> {
    if (fold && !legacy_axis_broadcast(ctx, node)) {
      if (auto v = try_fold(ctx, node, fold)) return {std::move(*v)};
    }
    Expr a = ctx.input(node, 0);
    Expr b = unify_broadcast_operand(ctx, a, legacy_rhs(ctx, node, a, ctx.input(node, 1)));
    return {Context::tensor_value(ctx.emit(build(a, b), node))};
  };
}

/// Folds an integer unary op on a known value (e.g. Neg of a negative axis in a shape
/// computation); nullptr `fold` or an unknown input leaves it to run time.
using UnaryFoldFn = PrimExpr (*)(const PrimExpr&);
PrimExpr fold_neg(const PrimExpr& a) { return -a; }

Converter unary(UnaryBuilder build, UnaryFoldFn fold = nullptr) {
  return [build, fold](Context& ctx, const Node& node) -> std::vector<OnnxValue> {
    const OnnxValue& in = ctx.value(node.input(0));
    if (fold && in.known) {
      std::vector<PrimExpr> out;
      for (const PrimExpr& x : *in.known) out.push_back(fold(x));
      return {Context::folded(std::move(out), in.known_scalar, in.known_dtype)};
    }
    return {Context::tensor_value(ctx.emit(build(ctx.input(node, 0)), node))};
  };
}

/// Sum/Max/Min/Mean: variadic with broadcasting, folded pairwise.
Converter variadic(BinaryBuilder build, bool mean = false) {
  return [build, mean](Context& ctx, const Node& node) -> std::vector<OnnxValue> {
    Expr acc = ctx.input(node, 0);
    for (int i = 1; i < node.input_size(); ++i) acc = ctx.bb().emit(build(acc, ctx.input(node, i)));
    if (mean) {
      DataType dt = ctx.tensor(node, acc).dtype;
      acc = op::divide(acc, scalar_constant(double(node.input_size()), dt));
    }
    return {Context::tensor_value(ctx.emit(acc, node))};
  };
}

DataType dtype_in(Context& ctx, const Node& node, const Expr& e) {
  DataType dt = ctx.tensor(node, e).dtype;
  RX_CHECK(!dt.is_void()) << ctx.where(node) << ": the element type of " << describe(e)
                          << " is unknown";
  return dt;
}

std::vector<OnnxValue> convert_pow(Context& ctx, const Node& node) {
  Expr base = ctx.input(node, 0);
  Expr exponent = legacy_rhs(ctx, node, base, ctx.input(node, 1));
  DataType dt = dtype_in(ctx, node, base);
  // Opset 12+ lets the exponent's type differ; x^2 (LayerNorm exports) becomes a square.
  if (auto c = ctx.const_floats(node, 1); c && c->size() == 1 && (*c)[0] == 2.0) {
    return {Context::tensor_value(ctx.emit(op::multiply(base, base), node))};
  }
  if (!dt.is_float()) {
    // An integer base (the result keeps its type): computed in float64, which is exact for
    // every result float64 represents exactly, then rounded back.
    DataType f64 = DataType::Float(64);
    Expr y = ctx.bb().emit(op::power(ctx.bb().emit(op::astype(base, f64)),
                                     ctx.bb().emit(op::astype(exponent, f64))));
    return {Context::tensor_value(ctx.emit(op::astype(ctx.bb().emit(op::round(y)), dt), node))};
  }
  if (dtype_in(ctx, node, exponent) != dt) exponent = ctx.bb().emit(op::astype(exponent, dt));
  return {Context::tensor_value(ctx.emit(op::power(base, exponent), node))};
}

/// Selu: gamma * elu(x, alpha); the core's relax.nn.selu when both are ONNX's defaults.
std::vector<OnnxValue> convert_selu(Context& ctx, const Node& node) {
  Expr x = ctx.input(node, 0);
  if (!find_attr(node, "alpha") && !find_attr(node, "gamma")) {
    return {Context::tensor_value(ctx.emit(op::selu(x), node))};
  }
  double alpha = attr_float(node, "alpha", 1.67326319217681884765625);
  double gamma = attr_float(node, "gamma", 1.05070102214813232421875);
  Expr elu = ctx.bb().emit(op::elu(x, alpha));
  return {Context::tensor_value(
      ctx.emit(op::multiply(elu, scalar_constant(gamma, dtype_in(ctx, node, x))), node))};
}

std::vector<OnnxValue> convert_reciprocal(Context& ctx, const Node& node) {
  Expr x = ctx.input(node, 0);
  return {Context::tensor_value(
      ctx.emit(op::divide(scalar_constant(1.0, dtype_in(ctx, node, x)), x), node))};
}

std::vector<OnnxValue> convert_leaky_relu(Context& ctx, const Node& node) {
  return {Context::tensor_value(
      ctx.emit(op::leakyrelu(ctx.input(node, 0), attr_float(node, "alpha", 0.01)), node))};
}

std::vector<OnnxValue> convert_elu(Context& ctx, const Node& node) {
  return {Context::tensor_value(
      ctx.emit(op::elu(ctx.input(node, 0), attr_float(node, "alpha", 1.0)), node))};
}

std::vector<OnnxValue> convert_hard_sigmoid(Context& ctx, const Node& node) {
  return {Context::tensor_value(ctx.emit(op::hardsigmoid(ctx.input(node, 0),
                                                         attr_float(node, "alpha", 0.2),
                                                         attr_float(node, "beta", 0.5)),
                                         node))};
}

std::vector<OnnxValue> convert_prelu(Context& ctx, const Node& node) {
  // ONNX PRelu broadcasts slope against x (unidirectionally): x if x > 0 else slope * x.
  Expr x = ctx.input(node, 0);
  Expr slope = ctx.input(node, 1);
  Expr zero = scalar_constant(0.0, dtype_in(ctx, node, x));
  Expr neg = ctx.bb().emit(op::multiply(x, slope));
  return {Context::tensor_value(ctx.emit(op::where(op::greater(x, zero), x, neg), node))};
}

std::vector<OnnxValue> convert_clip(Context& ctx, const Node& node) {
  Expr x = ctx.input(node, 0);
  DataType dt = dtype_in(ctx, node, x);
  double lo = -std::numeric_limits<double>::infinity();
  double hi = std::numeric_limits<double>::infinity();
  if (ctx.opset() < 11) {
    lo = attr_float(node, "min", lo);
    hi = attr_float(node, "max", hi);
  } else {
    // Inputs; a bound computed at run time becomes maximum/minimum.
    for (int i : {1, 2}) {
      if (!Context::has_input(node, i)) continue;
      auto c = ctx.const_floats(node, i);
      if (c && c->size() == 1) {
        (i == 1 ? lo : hi) = (*c)[0];
        continue;
      }
      Expr bound = ctx.input(node, i);
      x = ctx.bb().emit(i == 1 ? op::maximum(x, bound) : op::minimum(x, bound));
    }
  }
  if (std::isinf(lo) && std::isinf(hi)) return {Context::tensor_value(x)};
  if (dt.is_float()) {
    double big = dt.bits == 64 ? std::numeric_limits<double>::max()
                               : double(std::numeric_limits<float>::max());
    lo = std::max(lo, -big);
    hi = std::min(hi, big);
    return {Context::tensor_value(
        ctx.emit(op::clip(x, tir::float_imm(lo, dt), tir::float_imm(hi, dt)), node))};
  }
  double ilo = std::max(lo, -9.2e18), ihi = std::min(hi, 9.2e18);
  return {Context::tensor_value(ctx.emit(
      op::clip(x, tir::int_imm(int64_t(ilo), dt), tir::int_imm(int64_t(ihi), dt)), node))};
}

std::vector<OnnxValue> convert_matmul(Context& ctx, const Node& node) {
  return {Context::tensor_value(ctx.emit(op::matmul(ctx.input(node, 0), ctx.input(node, 1)), node))};
}

/// Y = alpha * A' B' + beta * C, A' and B' transposed by transA / transB.
std::vector<OnnxValue> convert_gemm(Context& ctx, const Node& node) {
  Expr a = ctx.input(node, 0);
  Expr b = ctx.input(node, 1);
  RX_CHECK(ctx.ndim(node, a) == 2 && ctx.ndim(node, b) == 2)
      << ctx.where(node) << ": A and B must be matrices, got " << to_string(get_struct_info(a))
      << " and " << to_string(get_struct_info(b));
  DataType dt = dtype_in(ctx, node, a);
  if (attr_int(node, "transA", 0)) a = ctx.bb().emit(op::permute_dims(a, std::vector<int64_t>{1, 0}));
  if (attr_int(node, "transB", 0)) b = ctx.bb().emit(op::permute_dims(b, std::vector<int64_t>{1, 0}));
  double alpha = attr_float(node, "alpha", 1.0);
  double beta = attr_float(node, "beta", 1.0);
  Expr y = op::matmul(a, b);
  if (alpha != 1.0) y = op::multiply(ctx.bb().emit(y), scalar_constant(alpha, dt));
  if (Context::has_input(node, 2) && beta != 0.0) {
    Expr c = ctx.input(node, 2);
    if (beta != 1.0) c = ctx.bb().emit(op::multiply(c, scalar_constant(beta, dt)));
    y = op::add(ctx.bb().emit(y), c);
  }
  return {Context::tensor_value(ctx.emit(y, node))};
}

/// Softmax / LogSoftmax with the per-version axis semantics.
Converter softmax(bool log) {
  return [log](Context& ctx, const Node& node) -> std::vector<OnnxValue> {
    Expr x = ctx.input(node, 0);
    int64_t rank = ctx.ndim(node, x);
    auto build = [log](Expr e, int64_t axis) { return log ? op::log_softmax(e, axis) : op::softmax(e, axis); };
    if (ctx.opset() >= 13) {
      int64_t axis = normalize_axis(attr_int(node, "axis", -1), rank, ctx.where(node));
      return {Context::tensor_value(ctx.emit(build(x, axis), node))};
    }
    // Before opset 13: the input is coerced to 2-D [prod(:axis), prod(axis:)] and normalised
    // along the second axis.
    int64_t axis = normalize_axis(attr_int(node, "axis", 1), rank, ctx.where(node));
    if (axis == rank - 1) return {Context::tensor_value(ctx.emit(build(x, -1), node))};
    std::vector<PrimExpr> shape = ctx.shape_of(node, x, "Softmax before opset 13");
    PrimExpr outer = tir::int_imm(1), inner = tir::int_imm(1);
    for (int64_t i = 0; i < rank; ++i) (i < axis ? outer : inner) = (i < axis ? outer : inner) * shape[size_t(i)];
    Expr flat = ctx.bb().emit(op::reshape(x, std::vector<PrimExpr>{outer, inner}));
    Expr y = ctx.bb().emit(build(flat, 1));
    return {Context::tensor_value(ctx.emit(op::reshape(y, shape), node))};
  };
}

/// ReduceX: axes as an attribute, or (ReduceSum from opset 13) an optional input.
using ReduceBuilder = Expr (*)(Expr, std::optional<std::vector<int64_t>>, bool);
Converter reduce(ReduceBuilder build, int axes_input_opset) {
  return [build, axes_input_opset](Context& ctx, const Node& node) -> std::vector<OnnxValue> {
    Expr x = ctx.input(node, 0);
    bool keepdims = attr_int(node, "keepdims", 1) != 0;
    std::optional<std::vector<int64_t>> axes;
    if (ctx.opset() >= axes_input_opset) {
      if (Context::has_input(node, 1)) axes = ctx.const_ints(node, 1, "axes");
      if ((!axes || axes->empty()) && attr_int(node, "noop_with_empty_axes", 0)) {
        return {Context::tensor_value(x)};
      }
    } else {
      axes = attr_ints(node, "axes");
    }
    if (axes && axes->empty()) axes.reset();
    if (axes) {
      int64_t rank = ctx.ndim(node, x);
      for (int64_t& a : *axes) a = normalize_axis(a, rank, ctx.where(node));
    }
    return {Context::tensor_value(ctx.emit(build(x, axes, keepdims), node))};
  };
}

Expr reduce_sum_square(Expr x, std::optional<std::vector<int64_t>> axes, bool keepdims) {
  return op::sum(op::multiply(x, x), std::move(axes), keepdims);
}

Expr reduce_l1(Expr x, std::optional<std::vector<int64_t>> axes, bool keepdims) {
  return op::sum(op::abs(x), std::move(axes), keepdims);
}

Expr reduce_l2(Expr x, std::optional<std::vector<int64_t>> axes, bool keepdims) {
  return op::sqrt(op::sum(op::multiply(x, x), std::move(axes), keepdims));
}

Expr reduce_log_sum(Expr x, std::optional<std::vector<int64_t>> axes, bool keepdims) {
  return op::log(op::sum(x, std::move(axes), keepdims));
}

/// log(sum(exp(x))), shifted by the maximum so that large inputs do not overflow.
Expr reduce_log_sum_exp(Expr x, std::optional<std::vector<int64_t>> axes, bool keepdims) {
  Expr shift = op::max(x, axes, /*keepdims=*/true);
  Expr sum = op::sum(op::exp(op::subtract(x, shift)), axes, keepdims);
  return op::add(op::log(sum), op::max(x, std::move(axes), keepdims));
}

std::vector<OnnxValue> convert_argmax_min(Context& ctx, const Node& node, bool is_max) {
  Expr x = ctx.input(node, 0);
  int64_t axis = normalize_axis(attr_int(node, "axis", 0), ctx.ndim(node, x), ctx.where(node));
  bool keepdims = attr_int(node, "keepdims", 1) != 0;
  if (attr_int(node, "select_last_index", 0) != 0) {
    // The last extremum: the first one in the input flipped along `axis`, mapped back.
    std::vector<PrimExpr> shape = ctx.shape_of(node, x, "select_last_index=1");
    const int64_t* len = tir::as_const_int(shape[size_t(axis)]);
    RX_CHECK(len) << ctx.where(node)
                  << ": select_last_index=1 needs a static length along the reduced axis";
    Expr flipped = ctx.bb().emit(op::flip(x, axis));
    Expr idx = ctx.bb().emit(is_max ? op::argmax(flipped, axis, keepdims)
                                    : op::argmin(flipped, axis, keepdims));
    return {Context::tensor_value(ctx.emit(
        op::subtract(scalar_constant(double(*len - 1), DataType::Int(64)), idx), node))};
  }
  return {Context::tensor_value(ctx.emit(
      is_max ? op::argmax(x, axis, keepdims) : op::argmin(x, axis, keepdims), node))};
}

std::vector<OnnxValue> convert_where(Context& ctx, const Node& node) {
  return {Context::tensor_value(
      ctx.emit(op::where(ctx.input(node, 0), ctx.input(node, 1), ctx.input(node, 2)), node))};
}

}  // namespace

void register_math_ops(std::map<std::string, ConverterEntry>& t) {
  t["Add"] = {binary(op::add, fold_add)};
  t["Sub"] = {binary(op::subtract, fold_sub)};
  t["Mul"] = {binary(op::multiply, fold_mul)};
  t["Div"] = {binary(op::divide, fold_div)};
  t["Pow"] = {convert_pow};
  t["Mod"] = {[](Context& ctx, const Node& node) -> std::vector<OnnxValue> {
    Expr a = ctx.input(node, 0), b = ctx.input(node, 1);
    bool fmod = attr_int(node, "fmod", 0) != 0;
    return {Context::tensor_value(ctx.emit(fmod ? op::mod(a, b) : op::floor_mod(a, b), node))};
  }, 10};
  t["Equal"] = {binary(op::equal)};
  t["Less"] = {binary(op::less)};
  t["LessOrEqual"] = {binary(op::less_equal), 12};
  t["Greater"] = {binary(op::greater)};
  t["GreaterOrEqual"] = {binary(op::greater_equal), 12};
  t["And"] = {binary(op::logical_and)};
  t["Or"] = {binary(op::logical_or)};
  t["Xor"] = {binary(op::logical_xor)};
  t["Not"] = {unary(op::logical_not)};
  t["Sum"] = {variadic(op::add)};
  t["Max"] = {variadic(op::maximum)};
  t["Min"] = {variadic(op::minimum)};
  t["Mean"] = {variadic(op::add, /*mean=*/true)};
  t["Where"] = {convert_where, 9};

  t["Relu"] = {unary(op::relu)};
  t["Sigmoid"] = {unary(op::sigmoid)};
  t["Tanh"] = {unary(op::tanh)};
  t["Exp"] = {unary(op::exp)};
  t["Log"] = {unary(op::log)};
  t["Sqrt"] = {unary(op::sqrt)};
  t["Neg"] = {unary(op::negative, fold_neg)};
  t["Abs"] = {unary(op::abs)};
  t["Erf"] = {unary(op::erf), 9};
  t["Floor"] = {unary(op::floor)};
  t["Ceil"] = {unary(op::ceil)};
  t["Round"] = {unary(op::round), 11};
  t["Sign"] = {unary(op::sign), 9};
  t["Sin"] = {unary(op::sin)};
  t["Cos"] = {unary(op::cos)};
  t["Tan"] = {unary(op::tan)};
  t["Softsign"] = {[](Context& ctx, const Node& node) -> std::vector<OnnxValue> {
    Expr x = ctx.input(node, 0);
    Expr one = scalar_constant(1.0, dtype_in(ctx, node, x));
    Expr den = ctx.bb().emit(op::add(op::abs(x), one));
    return {Context::tensor_value(ctx.emit(op::divide(x, den), node))};
  }};
  t["Reciprocal"] = {convert_reciprocal};
  t["LeakyRelu"] = {convert_leaky_relu};
  t["Elu"] = {convert_elu};
  t["Selu"] = {convert_selu};
  t["HardSigmoid"] = {convert_hard_sigmoid};
  t["HardSwish"] = {unary(op::hardswish), 14};
  t["Softplus"] = {unary([](Expr x) { return op::softplus(x); })};
  t["PRelu"] = {convert_prelu};
  t["Clip"] = {convert_clip};

  t["MatMul"] = {convert_matmul};
  t["Gemm"] = {convert_gemm};
  t["Softmax"] = {softmax(false)};
  t["LogSoftmax"] = {softmax(true)};

  t["ReduceMean"] = {reduce(op::mean, 18)};
  t["ReduceSum"] = {reduce(op::sum, 13)};
  t["ReduceMax"] = {reduce(op::max, 18)};
  t["ReduceMin"] = {reduce(op::min, 18)};
  t["ReduceProd"] = {reduce(op::prod, 18)};
  t["ReduceSumSquare"] = {reduce(reduce_sum_square, 18)};
  t["ReduceL1"] = {reduce(reduce_l1, 18)};
  t["ReduceL2"] = {reduce(reduce_l2, 18)};
  t["ReduceLogSum"] = {reduce(reduce_log_sum, 18)};
  t["ReduceLogSumExp"] = {reduce(reduce_log_sum_exp, 18)};
  t["ArgMax"] = {[](Context& ctx, const Node& n) { return convert_argmax_min(ctx, n, true); }};
  t["ArgMin"] = {[](Context& ctx, const Node& n) { return convert_argmax_min(ctx, n, false); }};
}

}  // namespace relax::onnx_frontend
