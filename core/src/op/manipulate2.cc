// More data movement and creation: pad (relax.nn.pad, as in TVM), arange, eye, stack, tile,
// repeat, flip and one_hot. Each legalises to one compute kernel that reads its input at an
// index computed from the output index (a gather), so every op is injective.
//
// pad_width follows TVM Relax / ONNX: 2 * ndim values, all the "before" amounts (axis 0 first)
// then all the "after" amounts. arange's, eye's and one_hot's scalar operands are PrimValues,
// so they may be symbolic (then the kernel takes them as scalar parameters).
#include <algorithm>
#include <cmath>

#include "infer_utils.h"
#include "legalize_utils.h"
#include "relax/op/op.h"
#include "relax/support/diagnostic.h"
#include "tensor_ops.h"

namespace relax {
namespace op_detail {

namespace {

/// A scalar operand given as a PrimValue: its dtype and value (null when not known statically).
struct PrimArg {
  DataType dtype;
  PrimExpr value;
};

PrimArg prim_arg(const Call& call, size_t i) {
  const StructInfo& s = get_struct_info(call.args[i]);
  auto* p = s.as<PrimStructInfo>();
  RX_CHECK(p != nullptr) << op_name(call) << ": argument '" << arg_name(call, i)
                         << "' should be a PrimValue (a scalar), got " << to_string(s);
  if (auto* pv = call.args[i].as<PrimValue>()) return {pv->value->dtype, pv->value};
  return {p->dtype, p->value};
}

/// `x` as an int64 index expression.
PrimExpr as_index(const PrimExpr& x) {
  return x->dtype == DataType::Int(64) ? x : tir::cast(DataType::Int(64), x);
}

/// `e`, or max(e, 0) when `e` cannot be proven non-negative.
PrimExpr clamp_nonneg(const PrimExpr& e, arith::Analyzer& ana) {
  PrimExpr s = ana.simplify(e);
  if (ana.can_prove_greater_equal(s, 0)) return s;
  if (auto* c = tir::as_const_int(s)) return tir::int_imm(std::max<int64_t>(*c, 0));
  return ana.simplify(tir::max(s, tir::int_imm(0)));
}

// ---- pad

StructInfo infer_pad(const Call& call, BlockBuilder& ctx) {
  const TensorStructInfo& x = expect_tensor(call, 0);
  std::vector<int64_t> pw = get_ints(call.attrs, "pad_width", {});
  std::string mode = get_string(call.attrs, "pad_mode", "constant");
  RX_CHECK(mode == "constant" || mode == "reflect" || mode == "edge")
      << "relax.nn.pad: pad_mode '" << mode << "' is not one of constant, reflect, edge";
  for (int64_t p : pw) {
    RX_CHECK(p >= 0) << "relax.nn.pad: pad_width values must be non-negative, got "
                     << to_string(AttrValue(pw));
  }
  if (x.ndim < 0) return tensor_sinfo(x.dtype, -1, x.vdevice);
  RX_CHECK(pw.size() == size_t(2 * x.ndim))
      << "relax.nn.pad: pad_width needs 2 * ndim = " << 2 * x.ndim
      << " values (all befores, then all afters) for a tensor of rank " << x.ndim << ", got "
      << pw.size();
  if (!x.shape) return tensor_sinfo(x.dtype, x.ndim, x.vdevice);
  std::vector<PrimExpr> out;
  size_t nd = size_t(x.ndim);
  for (size_t k = 0; k < nd; ++k) {
    const PrimExpr& d = (*x.shape)[k];
    int64_t b = pw[k], a = pw[k + nd];
    if (auto* c = tir::as_const_int(d)) {
      RX_CHECK(mode != "reflect" || (b < *c && a < *c))
          << "relax.nn.pad: reflect padding of axis " << k << " (size " << *c
          << ") needs pads smaller than the axis, got before " << b << ", after " << a;
      RX_CHECK(mode != "edge" || *c > 0 || (b == 0 && a == 0))
          << "relax.nn.pad: edge padding of the empty axis " << k;
    }
    out.push_back(ctx.analyzer().simplify(d + (b + a)));
  }
  return tensor_sinfo(out, x.dtype, x.vdevice);
}

Expr legalize_pad(BlockBuilder& bb, const Call& call) {
  const TensorStructInfo& out = legal_out(call);
  const TensorStructInfo& xs = legal_arg(call, 0);
  std::vector<int64_t> pw = get_ints(call.attrs, "pad_width", {});
  std::string mode = get_string(call.attrs, "pad_mode", "constant");
  PrimExpr pad_value = const_of(get_float(call.attrs, "pad_value", 0), xs.dtype);
  size_t nd = size_t(xs.ndim);
  return te::call_te(
      bb, {call.args[0]},
      [&](const std::vector<te::Tensor>& a) {
        const te::Tensor& x = a[0];
        return te::compute(
            *out.shape,
            [&](const std::vector<PrimExpr>& i) -> te::Body {
              std::vector<PrimExpr> idx;
              PrimExpr inside = tir::bool_imm(true);
              for (size_t k = 0; k < nd; ++k) {
                const PrimExpr& d = x.shape()[k];
                PrimExpr j = i[k] - pw[k];
                if (mode == "constant") {
                  if (pw[k] != 0 || pw[k + nd] != 0)
                    inside = tir::logical_and(inside, tir::logical_and(tir::ge(j, tir::int_imm(0)),
                                                                       tir::lt(j, d)));
                  idx.push_back(j);
                } else if (mode == "edge") {
                  idx.push_back(tir::min(tir::max(j, tir::int_imm(0)), d - 1));
                } else {
                  // Mirrored, then clamped: a no-op for valid pads (< d) that lets the
                  // lowering prove the load in bounds.
                  PrimExpr m = tir::select(tir::lt(j, tir::int_imm(0)), -j,
                                           tir::select(tir::ge(j, d), (d - 1) * 2 - j, j));
                  idx.push_back(tir::min(tir::max(m, tir::int_imm(0)), d - 1));
                }
              }
              if (mode != "constant") return x(idx);
              return te::if_then_else(inside, x(idx), pad_value);
            },
            "pad");
      },
      "pad");
}

// ---- arange(start, end, step)

StructInfo infer_arange(const Call& call, BlockBuilder& ctx) {
  PrimArg s = prim_arg(call, 0), e = prim_arg(call, 1), st = prim_arg(call, 2);
  DataType dtype = get_dtype(call.attrs, "dtype", DataType::Void());
  bool any_float = s.dtype.is_float() || e.dtype.is_float() || st.dtype.is_float();
  if (dtype.is_void()) dtype = any_float ? DataType::Float(32) : DataType::Int(64);
  RX_CHECK(!dtype.is_bool()) << "relax.arange: dtype bool is not supported";
  if (!s.value.defined() || !e.value.defined() || !st.value.defined())
    return tensor_sinfo(dtype, 1);
  auto num = [](const PrimExpr& v, double* out) {
    if (auto* c = v.as<tir::IntImm>()) return *out = double(c->value), true;
    if (auto* c = v.as<tir::FloatImm>()) return *out = c->value, true;
    return false;
  };
  double sv = 0, ev = 0, stv = 0;
  bool cs = num(s.value, &sv), ce = num(e.value, &ev), cst = num(st.value, &stv);
  RX_CHECK(!cst || stv != 0) << "relax.arange: 'step' must not be zero";
  if (cs && ce && cst) {
    double n = std::ceil((ev - sv) / stv);
    return tensor_sinfo({tir::int_imm(n > 0 ? int64_t(n) : 0)}, dtype);
  }
  RX_CHECK(!any_float) << "relax.arange: symbolic bounds must be integers; got start "
                       << tir::to_string(s.value) << ", end " << tir::to_string(e.value)
                       << ", step " << tir::to_string(st.value);
  RX_CHECK(cst) << "relax.arange: a symbolic range needs a constant step, got "
                << tir::to_string(st.value);
  int64_t step = int64_t(stv);
  PrimExpr len = step > 0 ? tir::floordiv(as_index(e.value) - as_index(s.value) + (step - 1), step)
                          : tir::floordiv(as_index(s.value) - as_index(e.value) + (-step - 1), -step);
  return tensor_sinfo({clamp_nonneg(len, ctx.analyzer())}, dtype);
}

Expr legalize_arange(BlockBuilder& bb, const Call& call) {
  const TensorStructInfo& out = legal_out(call);
  PrimArg s = prim_arg(call, 0), st = prim_arg(call, 2);
  RX_CHECK(s.value.defined() && st.value.defined())
      << "relax.arange: cannot legalise with unknown start or step";
  return te::call_te(
      bb, {},
      [&](const std::vector<te::Tensor>&) {
        return te::compute(
            *out.shape,
            [&](const std::vector<PrimExpr>& i) {
              if (out.dtype.is_float() || s.value->dtype.is_float() || st.value->dtype.is_float()) {
                DataType f64 = DataType::Float(64);
                return tir::cast(out.dtype, tir::cast(f64, s.value) +
                                                tir::cast(f64, i[0]) * tir::cast(f64, st.value));
              }
              return tir::cast(out.dtype, as_index(s.value) + i[0] * as_index(st.value));
            },
            "arange");
      },
      "arange");
}

// ---- eye(n, m, k)

StructInfo infer_eye(const Call& call, BlockBuilder&) {
  PrimArg n = prim_arg(call, 0), m = prim_arg(call, 1);
  DataType dtype = get_dtype(call.attrs, "dtype", DataType::Float(32));
  RX_CHECK(n.dtype.is_integer_like() && m.dtype.is_integer_like())
      << "relax.eye: 'n' and 'm' should be integers, got " << n.dtype.to_string() << " and "
      << m.dtype.to_string();
  if (!n.value.defined() || !m.value.defined()) return tensor_sinfo(dtype, 2);
  for (const PrimExpr& v : {n.value, m.value}) {
    auto* c = tir::as_const_int(v);
    RX_CHECK(!c || *c >= 0) << "relax.eye: dimensions must be non-negative, got " << *c;
  }
  return tensor_sinfo({as_index(n.value), as_index(m.value)}, dtype);
}

Expr legalize_eye(BlockBuilder& bb, const Call& call) {
  const TensorStructInfo& out = legal_out(call);
  int64_t k = get_int(call.attrs, "k", 0);
  return te::call_te(
      bb, {},
      [&](const std::vector<te::Tensor>&) {
        return te::compute(
            *out.shape,
            [&](const std::vector<PrimExpr>& i) {
              return tir::select(tir::eq(i[1] - i[0], tir::int_imm(k)), const_of(1, out.dtype),
                                 const_of(0, out.dtype));
            },
            "eye");
      },
      "eye");
}

// ---- stack(tensors, axis)

StructInfo infer_stack(const Call& call, BlockBuilder& ctx) {
  auto* ts = get_struct_info(call.args[0]).as<TupleStructInfo>();
  RX_CHECK(ts != nullptr) << "relax.stack: 'tensors' should be a tuple of tensors, got "
                          << to_string(get_struct_info(call.args[0]));
  RX_CHECK(!ts->fields.empty()) << "relax.stack: needs at least one tensor";
  int64_t axis = get_int(call.attrs, "axis", 0);
  DataType dtype = DataType::Void();
  int ndim = -1;
  std::optional<std::vector<PrimExpr>> shape;
  bool all_shapes = true;
  for (size_t i = 0; i < ts->fields.size(); ++i) {
    auto* t = ts->fields[i].as<TensorStructInfo>();
    RX_CHECK(t != nullptr) << "relax.stack: element " << i << " should be a tensor, got "
                           << to_string(ts->fields[i]);
    dtype = unify_dtype(call, dtype, t->dtype);
    if (t->ndim >= 0) {
      RX_CHECK(ndim < 0 || ndim == t->ndim) << "relax.stack: element " << i << " has rank "
                                            << t->ndim << " but earlier ones have rank " << ndim;
      ndim = t->ndim;
    }
    if (!t->shape) {
      all_shapes = false;
      continue;
    }
    if (!shape) {
      shape = *t->shape;
      continue;
    }
    for (size_t d = 0; d < shape->size(); ++d) {
      RX_CHECK(!ctx.analyzer().can_prove(tir::ne((*shape)[d], (*t->shape)[d])))
          << "relax.stack: element " << i << " has shape " << to_string(ts->fields[i])
          << "; all tensors must have the same shape (dimension " << d << " differs)";
    }
  }
  if (ndim < 0) return tensor_sinfo(dtype, -1);
  size_t ax = size_t(normalize_axis(call, axis, ndim + 1));
  if (!all_shapes) return tensor_sinfo(dtype, ndim + 1);
  std::vector<PrimExpr> out = *shape;
  out.insert(out.begin() + std::ptrdiff_t(ax), tir::int_imm(int64_t(ts->fields.size())));
  return tensor_sinfo(out, dtype);
}

Expr legalize_stack(BlockBuilder& bb, const Call& call) {
  const TensorStructInfo& out = legal_out(call);
  std::vector<Expr> args = tuple_fields_of(call.args[0]);
  size_t ax = size_t(normalize_axis(call, get_int(call.attrs, "axis", 0), out.ndim));
  return te::call_te(
      bb, args,
      [&](const std::vector<te::Tensor>& a) {
        return te::compute(
            *out.shape,
            [&](const std::vector<PrimExpr>& i) {
              std::vector<PrimExpr> idx = i;
              idx.erase(idx.begin() + std::ptrdiff_t(ax));
              PrimExpr v = a.back()(idx);
              for (size_t k = a.size() - 1; k-- > 0;)
                v = te::if_then_else(tir::eq(i[ax], tir::int_imm(int64_t(k))), a[k](idx), v);
              return v;
            },
            "stack");
      },
      "stack");
}

// ---- tile(x, repeats): NumPy semantics (the shorter of rank and repeats is padded with 1s).

StructInfo infer_tile(const Call& call, BlockBuilder& ctx) {
  const TensorStructInfo& x = expect_tensor(call, 0);
  std::vector<int64_t> reps = get_ints(call.attrs, "repeats", {});
  for (int64_t r : reps) {
    RX_CHECK(r >= 0) << "relax.tile: repeats must be non-negative, got "
                     << to_string(AttrValue(reps));
  }
  if (x.ndim < 0) return tensor_sinfo(x.dtype, -1, x.vdevice);
  size_t nd = std::max(size_t(x.ndim), reps.size());
  if (!x.shape) return tensor_sinfo(x.dtype, int(nd), x.vdevice);
  std::vector<PrimExpr> out;
  for (size_t k = 0; k < nd; ++k) {
    size_t xo = nd - size_t(x.ndim), ro = nd - reps.size();
    PrimExpr d = k >= xo ? (*x.shape)[k - xo] : tir::int_imm(1);
    int64_t r = k >= ro ? reps[k - ro] : 1;
    out.push_back(ctx.analyzer().simplify(d * r));
  }
  return tensor_sinfo(out, x.dtype, x.vdevice);
}

Expr legalize_tile(BlockBuilder& bb, const Call& call) {
  const TensorStructInfo& out = legal_out(call);
  legal_arg(call, 0);
  return te::call_te(
      bb, {call.args[0]},
      [&](const std::vector<te::Tensor>& a) {
        const te::Tensor& x = a[0];
        return te::compute(
            *out.shape,
            [&](const std::vector<PrimExpr>& i) {
              std::vector<PrimExpr> idx;
              size_t off = i.size() - x.ndim();
              for (size_t k = 0; k < x.ndim(); ++k)
                idx.push_back(tir::floormod(i[off + k], x.shape()[k]));
              return x(idx);
            },
            "tile");
      },
      "tile");
}

// ---- repeat(x, repeats, axis): each element repeated along the axis (of the flattened tensor
// when no axis is given).

StructInfo infer_repeat(const Call& call, BlockBuilder& ctx) {
  const TensorStructInfo& x = expect_tensor(call, 0);
  int64_t reps = get_int(call.attrs, "repeats", 1);
  RX_CHECK(reps >= 0) << "relax.repeat: repeats must be non-negative, got " << reps;
  bool has_axis = call.attrs.defined() && call.attrs->find("axis") != nullptr;
  if (!has_axis) {
    if (!x.shape) return tensor_sinfo(x.dtype, 1, x.vdevice);
    return tensor_sinfo({ctx.analyzer().simplify(product(*x.shape, ctx.analyzer()) * reps)},
                        x.dtype, x.vdevice);
  }
  if (x.ndim < 0) return tensor_sinfo(x.dtype, -1, x.vdevice);
  size_t ax = size_t(normalize_axis(call, get_int(call.attrs, "axis", 0), x.ndim));
  if (!x.shape) return tensor_sinfo(x.dtype, x.ndim, x.vdevice);
  std::vector<PrimExpr> out = *x.shape;
  out[ax] = ctx.analyzer().simplify(out[ax] * reps);
  return tensor_sinfo(out, x.dtype, x.vdevice);
}

Expr legalize_repeat(BlockBuilder& bb, const Call& call) {
  const TensorStructInfo& out = legal_out(call);
  const TensorStructInfo& xs = legal_arg(call, 0);
  int64_t reps = get_int(call.attrs, "repeats", 1);
  bool has_axis = call.attrs.defined() && call.attrs->find("axis") != nullptr;
  size_t ax = has_axis ? size_t(normalize_axis(call, get_int(call.attrs, "axis", 0), xs.ndim)) : 0;
  return te::call_te(
      bb, {call.args[0]},
      [&](const std::vector<te::Tensor>& a) {
        const te::Tensor& x = a[0];
        return te::compute(
            *out.shape,
            [&](const std::vector<PrimExpr>& i) {
              if (!has_axis) return x(unflatten_index(tir::floordiv(i[0], reps), x.shape()));
              std::vector<PrimExpr> idx = i;
              idx[ax] = tir::floordiv(i[ax], reps);
              return x(idx);
            },
            "repeat");
      },
      "repeat");
}

// ---- flip(x, axis)

StructInfo infer_flip(const Call& call, BlockBuilder&) {
  const TensorStructInfo& x = expect_tensor(call, 0);
  if (x.ndim >= 0) normalize_axis(call, get_int(call.attrs, "axis", 0), x.ndim);
  return StructInfo(&x);
}

Expr legalize_flip(BlockBuilder& bb, const Call& call) {
  const TensorStructInfo& out = legal_out(call);
  const TensorStructInfo& xs = legal_arg(call, 0);
  size_t ax = size_t(normalize_axis(call, get_int(call.attrs, "axis", 0), xs.ndim));
  return te::call_te(
      bb, {call.args[0]},
      [&](const std::vector<te::Tensor>& a) {
        const te::Tensor& x = a[0];
        return te::compute(
            *out.shape,
            [&](const std::vector<PrimExpr>& i) {
              std::vector<PrimExpr> idx = i;
              idx[ax] = x.shape()[ax] - 1 - i[ax];
              return x(idx);
            },
            "flip");
      },
      "flip");
}

// ---- one_hot(indices, on_value, off_value, depth, axis): negative indices count from the end
// (ONNX); indices outside [-depth, depth) give off_value everywhere.

StructInfo infer_one_hot(const Call& call, BlockBuilder&) {
  const TensorStructInfo& ind = expect_tensor(call, 0);
  RX_CHECK(ind.dtype.is_void() || ind.dtype.is_integer_like())
      << "relax.one_hot: 'indices' should be an integer tensor, got " << ind.dtype.to_string();
  PrimArg on = prim_arg(call, 1), off = prim_arg(call, 2);
  RX_CHECK(on.dtype == off.dtype) << "relax.one_hot: 'on_value' (" << on.dtype.to_string()
                                  << ") and 'off_value' (" << off.dtype.to_string()
                                  << ") should have the same dtype";
  int64_t depth = get_int(call.attrs, "depth", 0);
  RX_CHECK(depth > 0) << "relax.one_hot: depth must be positive, got " << depth;
  int64_t axis = get_int(call.attrs, "axis", -1);
  if (ind.ndim < 0) return tensor_sinfo(on.dtype, -1, ind.vdevice);
  size_t ax = size_t(normalize_axis(call, axis, ind.ndim + 1));
  if (!ind.shape) return tensor_sinfo(on.dtype, ind.ndim + 1, ind.vdevice);
  std::vector<PrimExpr> out = *ind.shape;
  out.insert(out.begin() + std::ptrdiff_t(ax), tir::int_imm(depth));
  return tensor_sinfo(out, on.dtype, ind.vdevice);
}

Expr legalize_one_hot(BlockBuilder& bb, const Call& call) {
  const TensorStructInfo& out = legal_out(call);
  legal_arg(call, 0);
  PrimArg on = prim_arg(call, 1), off = prim_arg(call, 2);
  RX_CHECK(on.value.defined() && off.value.defined())
      << "relax.one_hot: cannot legalise with unknown on_value or off_value";
  int64_t depth = get_int(call.attrs, "depth", 0);
  size_t ax = size_t(normalize_axis(call, get_int(call.attrs, "axis", -1), out.ndim));
  return te::call_te(
      bb, {call.args[0]},
      [&](const std::vector<te::Tensor>& a) {
        return te::compute(
            *out.shape,
            [&](const std::vector<PrimExpr>& i) {
              std::vector<PrimExpr> idx = i;
              idx.erase(idx.begin() + std::ptrdiff_t(ax));
              PrimExpr k = as_index(a[0](idx));
              k = tir::select(tir::lt(k, tir::int_imm(0)), k + depth, k);
              return tir::select(tir::eq(k, i[ax]), tir::cast(out.dtype, on.value),
                                 tir::cast(out.dtype, off.value));
            },
            "one_hot");
      },
      "one_hot");
}

}  // namespace

void register_manipulate2_ops(OpRegistry& reg) {
  {
    OpInfo& op = reg.register_op("relax.nn.pad");
    op.summary = "Pad each axis before and after (constant, reflect or edge).";
    op.arg_names = {"x"};
    op.attrs = {{"pad_width", AttrSpec::Kind::kInts, std::monostate{}, false,
                 "2 * ndim amounts: every axis's before, then every axis's after"},
                {"pad_value", AttrSpec::Kind::kFloat, 0.0, false, "the constant-mode value"},
                {"pad_mode", AttrSpec::Kind::kString, std::string("constant"), false,
                 "constant, reflect (mirror without the edge) or edge (repeat the edge)"}};
    op.infer = infer_pad;
    op.pattern = OpPattern::kInjective;
    op.legalize = legalize_pad;
  }
  {
    OpInfo& op = reg.register_op("relax.arange");
    op.summary = "Evenly spaced values in [start, end) with a step.";
    op.arg_names = {"start", "end", "step"};
    op.attrs = {{"dtype", AttrSpec::Kind::kDType, std::monostate{}, true,
                 "result dtype (float32 when an operand is a float, else int64)"}};
    op.infer = infer_arange;
    op.pattern = OpPattern::kInjective;
    op.legalize = legalize_arange;
  }
  {
    OpInfo& op = reg.register_op("relax.eye");
    op.summary = "An n x m matrix with ones on diagonal k and zeros elsewhere.";
    op.arg_names = {"n", "m"};
    op.attrs = {{"k", AttrSpec::Kind::kInt, int64_t(0), false, "the diagonal offset"},
                {"dtype", AttrSpec::Kind::kDType, DataType::Float(32), false, "result dtype"}};
    op.infer = infer_eye;
    op.pattern = OpPattern::kInjective;
    op.legalize = legalize_eye;
  }
  {
    OpInfo& op = reg.register_op("relax.stack");
    op.summary = "Join a tuple of same-shaped tensors along a new axis.";
    op.arg_names = {"tensors"};
    op.attrs = {{"axis", AttrSpec::Kind::kInt, int64_t(0), false, "the new axis in the result"}};
    op.infer = infer_stack;
    op.pattern = OpPattern::kInjective;
    op.legalize = legalize_stack;
  }
  {
    OpInfo& op = reg.register_op("relax.tile");
    op.summary = "Repeat the whole tensor along each axis (NumPy tile).";
    op.arg_names = {"x"};
    op.attrs = {{"repeats", AttrSpec::Kind::kInts, std::monostate{}, false, "repeats per axis"}};
    op.infer = infer_tile;
    op.pattern = OpPattern::kInjective;
    op.legalize = legalize_tile;
  }
  {
    OpInfo& op = reg.register_op("relax.repeat");
    op.summary = "Repeat each element along an axis (of the flattened tensor when none).";
    op.arg_names = {"x"};
    op.attrs = {{"repeats", AttrSpec::Kind::kInt, std::monostate{}, false, "repeats per element"},
                {"axis", AttrSpec::Kind::kInt, std::monostate{}, true, "the axis"}};
    op.infer = infer_repeat;
    op.pattern = OpPattern::kInjective;
    op.legalize = legalize_repeat;
  }
  {
    OpInfo& op = reg.register_op("relax.flip");
    op.summary = "Reverse the order of elements along an axis.";
    op.arg_names = {"x"};
    op.attrs = {{"axis", AttrSpec::Kind::kInt, std::monostate{}, false, "the reversed axis"}};
    op.infer = infer_flip;
    op.pattern = OpPattern::kInjective;
    op.legalize = legalize_flip;
  }
  {
    OpInfo& op = reg.register_op("relax.one_hot");
    op.summary = "One-hot encoding: on_value where the index matches, off_value elsewhere.";
    op.arg_names = {"indices", "on_value", "off_value"};
    op.attrs = {{"depth", AttrSpec::Kind::kInt, std::monostate{}, false, "size of the new axis"},
                {"axis", AttrSpec::Kind::kInt, int64_t(-1), false,
                 "position of the new axis in the result (-1: last)"}};
    op.infer = infer_one_hot;
    op.pattern = OpPattern::kInjective;
    op.legalize = legalize_one_hot;
  }
}

void register_tensor_ops(OpRegistry& reg) {
  register_manipulate2_ops(reg);
  register_gather_scatter_ops(reg);
  register_scan_sort_ops(reg);
  register_einsum_ops(reg);
  register_layout_transform_ops(reg);
  register_vision_ops(reg);
}

}  // namespace op_detail

namespace op {
Expr pad(Expr x, std::vector<int64_t> pad_width, const std::string& pad_mode, double pad_value) {
  return call_op("relax.nn.pad", {std::move(x)},
                 make_attrs({{"pad_width", std::move(pad_width)},
                             {"pad_value", pad_value},
                             {"pad_mode", pad_mode}}));
}
Expr arange(PrimExpr start, PrimExpr end, PrimExpr step, DataType dtype) {
  Attrs attrs;
  if (!dtype.is_void()) attrs = make_attrs({{"dtype", dtype}});
  return call_op("relax.arange",
                 {make_prim_value(std::move(start)), make_prim_value(std::move(end)),
                  make_prim_value(std::move(step))},
                 attrs);
}
Expr eye(PrimExpr n, PrimExpr m, int64_t k, DataType dtype) {
  return call_op("relax.eye", {make_prim_value(std::move(n)), make_prim_value(std::move(m))},
                 make_attrs({{"k", k}, {"dtype", dtype}}));
}
Expr stack(std::vector<Expr> tensors, int64_t axis) {
  return call_op("relax.stack", {make_tuple(std::move(tensors))}, make_attrs({{"axis", axis}}));
}
Expr tile(Expr x, std::vector<int64_t> repeats) {
  return call_op("relax.tile", {std::move(x)}, make_attrs({{"repeats", std::move(repeats)}}));
}
Expr repeat(Expr x, int64_t repeats, std::optional<int64_t> axis) {
  std::vector<std::pair<std::string, AttrValue>> f = {{"repeats", repeats}};
  if (axis) f.emplace_back("axis", *axis);
  return call_op("relax.repeat", {std::move(x)}, make_attrs(std::move(f)));
}
Expr flip(Expr x, int64_t axis) {
  return call_op("relax.flip", {std::move(x)}, make_attrs({{"axis", axis}}));
}
Expr one_hot(Expr indices, PrimExpr on_value, PrimExpr off_value, int64_t depth, int64_t axis) {
  return call_op("relax.one_hot",
                 {std::move(indices), make_prim_value(std::move(on_value)),
                  make_prim_value(std::move(off_value))},
                 make_attrs({{"depth", depth}, {"axis", axis}}));
}
}  // namespace op
}  // namespace relax
