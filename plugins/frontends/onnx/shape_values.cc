// Shape values tracked symbolically, and the converters that take them (importer.h).
//
// An integer tensor of rank 0 or 1 whose elements are known at import time as PrimExprs (an
// OnnxValue's `known`: Shape of a tensor with symbolic dims, and what is computed from it)
// stays known through Shape, Gather, Slice, Concat, Cast, Unsqueeze, Squeeze and Add/Sub/Mul/
// Div (ops_tensor.cc, ops_math.cc) and, here, through the comparisons (Equal, Less, Greater,
// LessOrEqual, GreaterOrEqual), Not, And, Or, Where, Mod, Max and Min: each wraps the plain
// converter and folds on the PrimExprs when every input is known (a bool result is known as
// 0/1 of dtype bool), so `Where(Equal(Shape(x)[2], 0), 1, Shape(x)[2])` is a PrimExpr.
//
// Slice bounds and Pad amounts may then be symbolic: Slice with starts/ends known only as
// PrimExprs (or computed at run time, bound to symbolic variables by Context::shape_ints)
// clamps them as ONNX does, on PrimExprs, and takes arange(start, start + len * step, step)
// along the axis; Pad with symbolic amounts concatenates filled blocks (constant) or takes
// indices (edge: the first/last index repeated; reflect: mirrored). Constant bounds keep the
// plain converters (strided_slice, nn.pad).
#include <algorithm>
#include <limits>

#include "importer.h"
#include "relax/arith/analyzer.h"
#include "relax/op/op.h"
#include "relax/support/diagnostic.h"

namespace relax::onnx_frontend {

namespace {

using Node = onnx::NodeProto;
using Table = std::map<std::string, ConverterEntry>;

/// The known values of every input of `node` (broadcast to one length), or nullopt when one is
/// not known or the lengths do not broadcast.
std::optional<std::vector<std::vector<PrimExpr>>> known_inputs(Context& ctx, const Node& node,
                                                                size_t* length, bool* scalar) {
  std::vector<std::vector<PrimExpr>> in;
  size_t n = 1;
  *scalar = true;
  for (int i = 0; i < node.input_size(); ++i) {
    if (!Context::has_input(node, i)) return std::nullopt;
    const OnnxValue& v = ctx.value(node.input(i));
    if (!v.known) return std::nullopt;
    in.push_back(*v.known);
    *scalar = *scalar && v.known_scalar;
    if (v.known->size() != 1) {
      if (n != 1 && n != v.known->size()) return std::nullopt;
      n = v.known->size();
    }
  }
  for (auto& v : in)
    if (v.size() == 1 && n != 1) v.assign(n, v[0]);
  *length = n;
  return in;
}

using Fold = std::function<PrimExpr(const std::vector<PrimExpr>&)>;

/// Wraps t[op]: folds on known inputs with `fold` (result dtype: bool when `boolean`, else the
/// first input's), else the plain converter. `arity` is the op's input count (0: one or
/// more); a node with another count goes to the plain converter, which names the error.
void wrap(Table& t, const std::string& op, Fold fold, bool boolean, size_t arity) {
  auto it = t.find(op);
  RX_ICHECK(it != t.end()) << "shape-value wrapper for unregistered op " << op;
  Converter plain = it->second.convert;
  it->second.convert = [plain, fold, boolean, arity](Context& ctx, const Node& node) {
    size_t n = 0;
    bool scalar = true;
    auto in = known_inputs(ctx, node, &n, &scalar);
    if (in && (in->empty() || (arity > 0 && in->size() != arity))) return plain(ctx, node);
    // Mod with fmod=1 truncates: not a shape computation.
    if (!in || (node.op_type() == "Mod" && attr_int(node, "fmod", 0) != 0)) return plain(ctx, node);
    if (node.op_type() == "Mod") {
      for (const PrimExpr& d : (*in)[1])
        if (tir::is_const_int(d, 0)) return plain(ctx, node);  // left to run time
    }
    int typed = node.op_type() == "Where" ? 1 : 0;  // the input whose dtype the result has
    DataType dt = boolean ? DataType::Bool() : ctx.value(node.input(typed)).known_dtype;
    std::vector<PrimExpr> out;
    for (size_t k = 0; k < n; ++k) {
      std::vector<PrimExpr> args;
      for (const auto& v : *in) args.push_back(v[k]);
      PrimExpr e = fold(args);
      // Bools are known as 0/1 integers, so that they feed Where, Cast and arithmetic.
      if (boolean) e = tir::cast(DataType::Int(64), e);
      out.push_back(e);
    }
    return std::vector<OnnxValue>{Context::folded(std::move(out), scalar, dt)};
  };
}

PrimExpr truth(const PrimExpr& e) { return tir::ne(e, tir::int_imm(0)); }

// ---- Slice with symbolic bounds.

/// `v` counted from the end when negative, then clamped to [lo, hi] (ONNX Slice), on PrimExprs.
/// Its variables are dims, which the builder's analyzer knows to be non-negative.
PrimExpr clamp_bound(arith::Analyzer& ana, const PrimExpr& v, const PrimExpr& n, const PrimExpr& lo,
                     const PrimExpr& hi) {
  if (const int64_t* c = tir::as_const_int(v)) {
    // INT64_MAX / INT64_MIN style "to the end" bounds: no select needed.
    if (*c >= std::numeric_limits<int32_t>::max()) return hi;
    if (*c <= -int64_t(std::numeric_limits<int32_t>::max())) return lo;
    PrimExpr w = *c < 0 ? v + n : v;
    return ana.simplify(tir::min(tir::max(w, lo), hi));
  }
  // A value the analyzer proves non-negative (a dim, or one computed from dims) needs no
  // counting from the end.
  PrimExpr w = ana.can_prove(tir::ge(v, tir::int_imm(0)))
                   ? v
                   : tir::select(tir::lt(v, tir::int_imm(0)), v + n, v);
  return ana.simplify(tir::min(tir::max(w, lo), hi));
}

/// x sliced on `axis` from `b` to `e` by `step`, the bounds PrimExprs computed from dims.
Expr slice_axis(Context& ctx, const Node& node, const Expr& x, int64_t axis, const PrimExpr& b,
                const PrimExpr& e, int64_t step) {
  PrimExpr n = ctx.shape_of(node, x, "Slice with symbolic bounds")[size_t(axis)];
  PrimExpr start, end, len;
  arith::Analyzer& ana = ctx.bb().analyzer();
  if (step > 0) {
    start = clamp_bound(ana, b, n, tir::int_imm(0), n);
    end = clamp_bound(ana, e, n, tir::int_imm(0), n);
    len = tir::max(tir::floordiv(end - start + (step - 1), tir::int_imm(step)), tir::int_imm(0));
  } else {
    start = clamp_bound(ana, b, n, tir::int_imm(0), n - 1);
    end = clamp_bound(ana, e, n, tir::int_imm(-1), n - 1);
    len = tir::max(tir::floordiv(start - end + (-step - 1), tir::int_imm(-step)), tir::int_imm(0));
  }
  len = ana.simplify(len);
  BlockBuilder& bb = ctx.bb();
  DataType i64 = DataType::Int(64);
  Expr idx = bb.emit(op::arange(start, ana.simplify(start + len * tir::int_imm(step)),
                                tir::int_imm(step), i64));
  const TensorStructInfo* it = tensor_info(idx);
  if (!it || !it->shape || !ana.can_prove(tir::eq((*it->shape)[0], len)))
    idx = bb.emit_match_cast(idx, tensor_sinfo({len}, i64), "slice_index");
  return bb.emit(op::take(x, idx, axis));
}

/// x sliced on `axis` with start and end elements `k` of the int64 tensors `starts`, `ends`
/// (values known only at run time, of either sign): ONNX's clamping on tensors, then the
/// clamped start and the length (both >= 0) bound to symbolic variables at run time.
Expr slice_axis_at_run_time(Context& ctx, const Node& node, const Expr& x, int64_t axis,
                            const Expr& starts, const Expr& ends, int64_t k, int64_t step) {
  BlockBuilder& bb = ctx.bb();
  DataType i64 = DataType::Int(64);
  PrimExpr n = ctx.shape_of(node, x, "Slice with bounds computed at run time")[size_t(axis)];
  auto c = [&](int64_t v) { return scalar_constant(double(v), i64); };
  Expr nt = bb.emit(op::arange(n, n + 1, tir::int_imm(1), i64));  // [n]
  auto element = [&](const Expr& t) { return bb.emit(op::strided_slice(t, {0}, {k}, {k + 1})); };
  auto clamp = [&](const Expr& v, const Expr& lo, const Expr& hi) {
    Expr w = bb.emit(op::where(bb.emit(op::less(v, c(0))), bb.emit(op::add(v, nt)), v));
    return bb.emit(op::minimum(bb.emit(op::maximum(w, lo)), hi));
  };
  Expr start, end, len;
  if (step > 0) {
    start = clamp(element(starts), c(0), nt);
    end = clamp(element(ends), c(0), nt);
    len = bb.emit(op::subtract(end, start));
  } else {
    Expr last = bb.emit(op::subtract(nt, c(1)));
    start = clamp(element(starts), c(0), last);
    end = clamp(element(ends), c(-1), last);
    len = bb.emit(op::subtract(start, end));
  }
  int64_t s = step > 0 ? step : -step;
  len = bb.emit(op::maximum(
      bb.emit(op::floor_divide(bb.emit(op::add(len, c(s - 1))), c(s))), c(0)));
  std::vector<PrimExpr> v = ctx.runtime_shape(bb.emit(op::concat({start, len}, 0)),
                                              binding_name(node.output(0)) + "_slice" +
                                                  std::to_string(axis));
  Expr idx = bb.emit(op::arange(v[0], v[0] + v[1] * tir::int_imm(step), tir::int_imm(step), i64));
  const TensorStructInfo* it = tensor_info(idx);
  if (!it || !it->shape || !bb.analyzer().can_prove(tir::eq((*it->shape)[0], v[1])))
    idx = bb.emit_match_cast(idx, tensor_sinfo({v[1]}, i64), "slice_index");
  return bb.emit(op::take(x, idx, axis));
}

/// Whether input `i` is an integer constant (the plain converters take it).
bool constant_ints(Context& ctx, const Node& node, int i) {
  if (!Context::has_input(node, i)) return true;
  const OnnxValue& v = ctx.value(node.input(i));
  if (v.known) {
    return std::all_of(v.known->begin(), v.known->end(),
                       [](const PrimExpr& e) { return tir::as_const_int(e) != nullptr; });
  }
  return v.expr.is<Constant>() || ctx.is_specialized(node.input(i));
}

Converter slice(Converter plain) {
  return [plain](Context& ctx, const Node& node) -> std::vector<OnnxValue> {
    if (ctx.opset() < 10 || (constant_ints(ctx, node, 1) && constant_ints(ctx, node, 2)))
      return plain(ctx, node);
    // Known as PrimExprs (computed from dims at import), or else tensors read at run time.
    bool known = ctx.known_ints(node, 1) && ctx.known_ints(node, 2);
    std::vector<PrimExpr> starts, ends;
    Expr start_t, end_t;
    if (known) {
      starts = ctx.shape_ints(node, 1, "starts");
      ends = ctx.shape_ints(node, 2, "ends");
    } else {
      for (int i : {1, 2}) {
        Expr t = ctx.input(node, i);
        const TensorStructInfo& ti = ctx.tensor(node, t);
        const int64_t* len = ti.ndim == 1 && ti.shape ? tir::as_const_int((*ti.shape)[0]) : nullptr;
        RX_CHECK(len && (ti.dtype.is_int() || ti.dtype.is_uint()))
            << ctx.where(node) << ": " << (i == 1 ? "starts" : "ends") << " (input '"
            << node.input(i) << "') must be a rank-1 integer tensor of static length, got "
            << to_string(get_struct_info(t));
        if (ti.dtype != DataType::Int(64)) t = ctx.bb().emit(op::astype(t, DataType::Int(64)));
        (i == 1 ? start_t : end_t) = t;
        (i == 1 ? starts : ends).assign(size_t(*len), tir::int_imm(0));
      }
    }
    Expr x = ctx.input(node, 0);
    int64_t rank = ctx.ndim(node, x);
    std::vector<int64_t> axes, steps;
    if (Context::has_input(node, 3)) axes = ctx.const_ints(node, 3, "axes");
    if (Context::has_input(node, 4)) steps = ctx.const_ints(node, 4, "steps");
    RX_CHECK(starts.size() == ends.size()) << ctx.where(node) << ": starts has " << starts.size()
                                           << " values but ends " << ends.size();
    if (axes.empty())
      for (size_t i = 0; i < starts.size(); ++i) axes.push_back(int64_t(i));
    if (steps.empty()) steps.assign(starts.size(), 1);
    RX_CHECK(axes.size() == starts.size() && steps.size() == starts.size())
        << ctx.where(node) << ": starts, ends, axes and steps must have the same length";
    Expr y = x;
    for (size_t k = 0; k < axes.size(); ++k) {
      RX_CHECK(steps[k] != 0) << ctx.where(node) << ": a step is 0";
      int64_t axis = normalize_axis(axes[k], rank, ctx.where(node));
      y = known ? slice_axis(ctx, node, y, axis, starts[k], ends[k], steps[k])
                : slice_axis_at_run_time(ctx, node, y, axis, start_t, end_t, int64_t(k), steps[k]);
    }
    // A reshape to its own shape binds the result under the output's name.
    return {Context::tensor_value(ctx.emit(op::reshape(y, ctx.shape_of(node, y, "Slice")), node))};
  };
}

// ---- Pad with symbolic amounts.

/// x padded on `axis` by `before` and `after` (non-negative PrimExprs) in `mode`; `fill` is the
/// scalar constant_value tensor (mode constant).
Expr pad_axis(Context& ctx, const Node& node, const Expr& x, int64_t axis, const PrimExpr& before,
              const PrimExpr& after, const std::string& mode, const Expr& fill) {
  BlockBuilder& bb = ctx.bb();
  std::vector<PrimExpr> shape = ctx.shape_of(node, x, "Pad with symbolic pads");
  PrimExpr n = shape[size_t(axis)];
  DataType i64 = DataType::Int(64);
  if (mode == "constant") {
    std::vector<PrimExpr> lo = shape, hi = shape;
    lo[size_t(axis)] = before;
    hi[size_t(axis)] = after;
    DataType dt = ctx.tensor(node, x).dtype;
    std::vector<Expr> parts;
    if (!tir::is_const_int(before, 0)) parts.push_back(bb.emit(op::full(lo, fill, dt)));
    parts.push_back(x);
    if (!tir::is_const_int(after, 0)) parts.push_back(bb.emit(op::full(hi, fill, dt)));
    return bb.emit(op::concat(parts, axis));
  }
  Expr middle = bb.emit(op::arange(tir::int_imm(0), n, tir::int_imm(1), i64));
  Expr left, right;
  if (mode == "edge") {
    left = bb.emit(op::zeros({before}, i64));
    Expr last = bb.emit(op::strided_slice(middle, {0}, {-1}, {std::numeric_limits<int64_t>::max()}));
    right = bb.emit(op::add(bb.emit(op::zeros({after}, i64)), last));
  } else {  // reflect: b, b-1, ..., 1 | 0 .. n-1 | n-2, ..., n-1-a
    left = bb.emit(op::arange(before, tir::int_imm(0), tir::int_imm(-1), i64));
    right = bb.emit(op::arange(n - 2, arith::simplify(n - 2 - after), tir::int_imm(-1), i64));
  }
  Expr idx = bb.emit(op::concat({left, middle, right}, 0));
  return bb.emit(op::take(x, idx, axis));
}

Converter pad(Converter plain) {
  return [plain](Context& ctx, const Node& node) -> std::vector<OnnxValue> {
    if (ctx.opset() < 11 || constant_ints(ctx, node, 1)) return plain(ctx, node);
    RX_CHECK(!Context::has_input(node, 3))
        << ctx.where(node) << ": the axes input is not supported with pads computed from shapes";
    Expr x = ctx.input(node, 0);
    int64_t rank = ctx.ndim(node, x);
    std::vector<PrimExpr> pads = ctx.shape_ints(node, 1, "pads");
    RX_CHECK(int64_t(pads.size()) == 2 * rank)
        << ctx.where(node) << ": pads has " << pads.size() << " values; the input of rank " << rank
        << " needs " << 2 * rank;
    std::string mode = attr_string(node, "mode", "constant");
    RX_CHECK(mode == "constant" || mode == "reflect" || mode == "edge")
        << ctx.where(node) << ": mode '" << mode << "' is not one of constant, reflect, edge";
    DataType dt = ctx.tensor(node, x).dtype;
    Expr fill = scalar_constant(0.0, dt);
    if (Context::has_input(node, 2)) {
      if (auto v = ctx.const_floats(node, 2)) {
        RX_CHECK(v->size() == 1) << ctx.where(node) << ": constant_value must be a scalar";
        fill = scalar_constant((*v)[0], dt);
      } else {
        fill = ctx.bb().emit(op::reshape(ctx.input(node, 2), std::vector<PrimExpr>{}));
      }
    }
    Expr y = x;
    for (int64_t a = 0; a < rank; ++a) {
      const PrimExpr& b = pads[size_t(a)];
      const PrimExpr& e = pads[size_t(a + rank)];
      if (tir::is_const_int(b, 0) && tir::is_const_int(e, 0)) continue;
      for (const PrimExpr& p : {b, e}) {
        const int64_t* c = tir::as_const_int(p);
        RX_CHECK(!c || *c >= 0) << ctx.where(node) << ": negative pads (cropping) are not "
                                << "supported";
      }
      y = pad_axis(ctx, node, y, a, b, e, mode, fill);
    }
    return {Context::tensor_value(ctx.emit(op::reshape(y, ctx.shape_of(node, y, "Pad")), node))};
  };
}

}  // namespace

void register_shape_value_ops(Table& t) {
  using V = const std::vector<PrimExpr>&;
  wrap(t, "Equal", [](V a) { return tir::eq(a[0], a[1]); }, true, 2);
  wrap(t, "Less", [](V a) { return tir::lt(a[0], a[1]); }, true, 2);
  wrap(t, "Greater", [](V a) { return tir::gt(a[0], a[1]); }, true, 2);
  wrap(t, "LessOrEqual", [](V a) { return tir::le(a[0], a[1]); }, true, 2);
  wrap(t, "GreaterOrEqual", [](V a) { return tir::ge(a[0], a[1]); }, true, 2);
  wrap(t, "Not", [](V a) { return tir::logical_not(truth(a[0])); }, true, 1);
  wrap(t, "And", [](V a) { return tir::logical_and(truth(a[0]), truth(a[1])); }, true, 2);
  wrap(t, "Or", [](V a) { return tir::logical_or(truth(a[0]), truth(a[1])); }, true, 2);
  wrap(t, "Where", [](V a) { return tir::select(truth(a[0]), a[1], a[2]); }, false, 3);
  wrap(t, "Mod", [](V a) { return tir::floormod(a[0], a[1]); }, false, 2);
  wrap(t, "Max", [](V a) {
    PrimExpr m = a[0];
    for (size_t i = 1; i < a.size(); ++i) m = tir::max(m, a[i]);
    return m;
  }, false, 0);
  wrap(t, "Min", [](V a) {
    PrimExpr m = a[0];
    for (size_t i = 1; i < a.size(); ++i) m = tir::min(m, a[i]);
    return m;
  }, false, 0);
  t.at("Slice").convert = slice(t.at("Slice").convert);
  t.at("Pad").convert = pad(t.at("Pad").convert);
}

}  // namespace relax::onnx_frontend
