// Elementwise unary ops (math, rounding, predicates, bit and logic negation), clip and astype.
//
// Each op keeps its operand's shape. Float math needs a float operand; rounding, abs, negative
// and sign also take integers (rounding an integer is the identity); the predicates isnan,
// isinf and isfinite give bool; logical_not takes bool and bitwise_not integers.
#include "infer_utils.h"
#include "legalize_utils.h"
#include "relax/op/op.h"
#include "relax/support/diagnostic.h"

namespace relax {
namespace op_detail {

namespace {

/// What dtypes a unary op accepts.
enum class UnaryKind { kFloat, kNumeric, kPredicate, kBool, kInteger };

const char* expected_of(UnaryKind k) {
  switch (k) {
    case UnaryKind::kFloat:
      return "a floating-point tensor";
    case UnaryKind::kNumeric:
    case UnaryKind::kPredicate:
      return "a numeric tensor";
    case UnaryKind::kBool:
      return "a bool tensor";
    case UnaryKind::kInteger:
      return "an integer tensor";
  }
  return "a tensor";
}

bool accepts(UnaryKind k, DataType t) {
  if (t.is_void()) return true;
  switch (k) {
    case UnaryKind::kFloat:
      return t.is_float();
    case UnaryKind::kNumeric:
    case UnaryKind::kPredicate:
      return t.is_float() || t.is_int() || t.is_uint();
    case UnaryKind::kBool:
      return t.is_bool();
    case UnaryKind::kInteger:
      return t.is_int() || t.is_uint();
  }
  return false;
}

InferStructInfo infer_unary(UnaryKind kind) {
  return [kind](const Call& call, BlockBuilder&) -> StructInfo {
    const TensorStructInfo& x = expect_tensor(call, 0);
    RX_CHECK(accepts(kind, x.dtype))
        << op_name(call) << ": needs " << expected_of(kind) << ", got " << x.dtype.to_string();
    if (kind != UnaryKind::kPredicate) return StructInfo(&x);
    if (x.shape) return tensor_sinfo(*x.shape, DataType::Bool(), x.vdevice);
    return tensor_sinfo(DataType::Bool(), x.ndim, x.vdevice);
  };
}

using ScalarFn = std::function<PrimExpr(PrimExpr)>;

void register_unary(OpRegistry& reg, const std::string& name, const std::string& summary,
                    UnaryKind kind, ScalarFn f) {
  OpInfo& op = reg.register_op(name);
  op.summary = summary;
  op.arg_names = {"x"};
  op.infer = infer_unary(kind);
  op.pattern = OpPattern::kElemWise;
  op.legalize = [f = std::move(f)](BlockBuilder& bb, const Call& call) {
    return legalize_elementwise(bb, call, f);
  };
}

/// For ops whose integer case is the identity (floor, ceil, round, trunc).
ScalarFn float_only(PrimExpr (*f)(PrimExpr)) {
  return [f](PrimExpr x) { return x->dtype.is_float() ? f(x) : x; };
}

PrimExpr sign(PrimExpr x) {
  DataType t = x->dtype;
  PrimExpr zero = const_of(0, t);
  return tir::select(tir::gt(x, zero), const_of(1, t),
                     tir::select(tir::lt(x, zero), const_of(-1, t), zero));
}

StructInfo infer_clip(const Call& call, BlockBuilder&) {
  const TensorStructInfo& x = expect_tensor(call, 0);
  RX_CHECK(accepts(UnaryKind::kNumeric, x.dtype))
      << "relax.clip: needs a numeric tensor, got " << x.dtype.to_string();
  for (size_t i = 1; i < 3; ++i) {
    RX_CHECK(call.args[i].is<PrimValue>())
        << "relax.clip: '" << arg_name(call, i) << "' should be a PrimValue, got "
        << describe(call.args[i]);
  }
  auto* lo = call.args[1].as<PrimValue>();
  auto* hi = call.args[2].as<PrimValue>();
  auto value = [](const PrimExpr& e, double* out) {
    if (auto* c = e.as<tir::IntImm>())
      *out = double(c->value);
    else if (auto* f = e.as<tir::FloatImm>())
      *out = f->value;
    else
      return false;
    return true;
  };
  double a = 0, b = 0;
  if (value(lo->value, &a) && value(hi->value, &b)) {
    RX_CHECK(a <= b) << "relax.clip: min (" << a << ") is greater than max (" << b << ")";
  }
  return StructInfo(&x);
}

Expr legalize_clip(BlockBuilder& bb, const Call& call) {
  double lo = prim_value_arg(call, 1), hi = prim_value_arg(call, 2);
  return legalize_elementwise(bb, call, [&](PrimExpr x) {
    DataType t = x->dtype;
    return tir::min(tir::max(x, const_of(lo, t)), const_of(hi, t));
  });
}

StructInfo infer_astype(const Call& call, BlockBuilder&) {
  const TensorStructInfo& x = expect_tensor(call, 0);
  DataType dtype = get_dtype(call.attrs, "dtype", DataType::Void());
  RX_CHECK(!dtype.is_void() && dtype.is_scalar())
      << "relax.astype: 'dtype' must be a scalar dtype, got " << dtype.to_string();
  if (x.shape) return tensor_sinfo(*x.shape, dtype, x.vdevice);
  return tensor_sinfo(dtype, x.ndim, x.vdevice);
}

Expr legalize_astype(BlockBuilder& bb, const Call& call) {
  DataType dtype = get_dtype(call.attrs, "dtype", DataType::Void());
  return legalize_elementwise(bb, call, [dtype](PrimExpr x) { return tir::cast(dtype, x); });
}

}  // namespace

void register_unary_ops(OpRegistry& reg) {
  using K = UnaryKind;
  register_unary(reg, "relax.exp", "Elementwise e^x.", K::kFloat, tir::exp);
  register_unary(reg, "relax.log", "Elementwise natural logarithm.", K::kFloat, tir::log);
  register_unary(reg, "relax.sqrt", "Elementwise square root.", K::kFloat, tir::sqrt);
  register_unary(reg, "relax.rsqrt", "Elementwise 1 / sqrt(x).", K::kFloat, tir::rsqrt);
  register_unary(reg, "relax.sin", "Elementwise sine.", K::kFloat, tir::sin);
  register_unary(reg, "relax.cos", "Elementwise cosine.", K::kFloat, tir::cos);
  register_unary(reg, "relax.tan", "Elementwise tangent.", K::kFloat, tir::tan);
  register_unary(reg, "relax.asin", "Elementwise arcsine.", K::kFloat, tir::asin);
  register_unary(reg, "relax.acos", "Elementwise arccosine.", K::kFloat, tir::acos);
  register_unary(reg, "relax.atan", "Elementwise arctangent.", K::kFloat, tir::atan);
  register_unary(reg, "relax.sinh", "Elementwise hyperbolic sine.", K::kFloat, tir::sinh);
  register_unary(reg, "relax.cosh", "Elementwise hyperbolic cosine.", K::kFloat, tir::cosh);
  register_unary(reg, "relax.tanh", "Elementwise hyperbolic tangent.", K::kFloat, tir::tanh);
  register_unary(reg, "relax.asinh", "Elementwise inverse hyperbolic sine.", K::kFloat, tir::asinh);
  register_unary(reg, "relax.acosh", "Elementwise inverse hyperbolic cosine.", K::kFloat,
                 tir::acosh);
  register_unary(reg, "relax.atanh", "Elementwise inverse hyperbolic tangent.", K::kFloat,
                 tir::atanh);
  register_unary(reg, "relax.sigmoid", "Elementwise 1 / (1 + e^-x).", K::kFloat, tir::sigmoid);
  register_unary(reg, "relax.erf", "Elementwise error function.", K::kFloat, tir::erf);
  register_unary(reg, "relax.floor", "Elementwise floor (identity on integers).", K::kNumeric,
                 float_only(tir::floor));
  register_unary(reg, "relax.ceil", "Elementwise ceiling (identity on integers).", K::kNumeric,
                 float_only(tir::ceil));
  register_unary(reg, "relax.round", "Elementwise round half to even (identity on integers).",
                 K::kNumeric, float_only(tir::round));
  register_unary(reg, "relax.trunc", "Elementwise round toward zero (identity on integers).",
                 K::kNumeric, float_only(tir::trunc));
  register_unary(reg, "relax.abs", "Elementwise |x|.", K::kNumeric, tir::abs);
  register_unary(reg, "relax.negative", "Elementwise -x.", K::kNumeric,
                 [](PrimExpr x) { return const_of(0, x->dtype) - x; });
  register_unary(reg, "relax.square", "Elementwise x * x.", K::kNumeric,
                 [](PrimExpr x) { return x * x; });
  register_unary(reg, "relax.sign", "Elementwise sign: -1, 0 or 1.", K::kNumeric, sign);
  register_unary(reg, "relax.isnan", "Elementwise x is NaN (bool).", K::kPredicate, [](PrimExpr x) {
    return x->dtype.is_float() ? tir::isnan(x) : tir::bool_imm(false);
  });
  register_unary(
      reg, "relax.isinf", "Elementwise x is infinite (bool).", K::kPredicate,
      [](PrimExpr x) { return x->dtype.is_float() ? tir::isinf(x) : tir::bool_imm(false); });
  register_unary(
      reg, "relax.isfinite", "Elementwise x is finite (bool).", K::kPredicate,
      [](PrimExpr x) { return x->dtype.is_float() ? tir::isfinite(x) : tir::bool_imm(true); });
  register_unary(reg, "relax.logical_not", "Elementwise logical negation of a bool tensor.",
                 K::kBool, tir::logical_not);
  register_unary(reg, "relax.bitwise_not", "Elementwise bit complement of an integer tensor.",
                 K::kInteger, tir::bitwise_not);
  {
    OpInfo& op = reg.register_op("relax.clip");
    op.summary = "Elementwise clamp to [min, max] (PrimValue bounds).";
    op.arg_names = {"x", "min", "max"};
    op.infer = infer_clip;
    op.pattern = OpPattern::kElemWise;
    op.legalize = legalize_clip;
  }
  {
    OpInfo& op = reg.register_op("relax.astype");
    op.summary = "Elementwise conversion to another dtype.";
    op.arg_names = {"x"};
    op.attrs = {{"dtype", AttrSpec::Kind::kDType, std::monostate{}, false, "the target dtype"}};
    op.infer = infer_astype;
    op.pattern = OpPattern::kElemWise;
    op.legalize = legalize_astype;
  }
}

}  // namespace op_detail

namespace op {
#define RELAX_UNARY_BUILDER(name) \
  Expr name(Expr x) { return call_op("relax." #name, {std::move(x)}); }
RELAX_UNARY_BUILDER(exp)
RELAX_UNARY_BUILDER(log)
RELAX_UNARY_BUILDER(sqrt)
RELAX_UNARY_BUILDER(rsqrt)
RELAX_UNARY_BUILDER(sin)
RELAX_UNARY_BUILDER(cos)
RELAX_UNARY_BUILDER(tan)
RELAX_UNARY_BUILDER(asin)
RELAX_UNARY_BUILDER(acos)
RELAX_UNARY_BUILDER(atan)
RELAX_UNARY_BUILDER(sinh)
RELAX_UNARY_BUILDER(cosh)
RELAX_UNARY_BUILDER(tanh)
RELAX_UNARY_BUILDER(asinh)
RELAX_UNARY_BUILDER(acosh)
RELAX_UNARY_BUILDER(atanh)
RELAX_UNARY_BUILDER(sigmoid)
RELAX_UNARY_BUILDER(erf)
RELAX_UNARY_BUILDER(floor)
RELAX_UNARY_BUILDER(ceil)
RELAX_UNARY_BUILDER(round)
RELAX_UNARY_BUILDER(trunc)
RELAX_UNARY_BUILDER(abs)
RELAX_UNARY_BUILDER(negative)
RELAX_UNARY_BUILDER(square)
RELAX_UNARY_BUILDER(sign)
RELAX_UNARY_BUILDER(isnan)
RELAX_UNARY_BUILDER(isinf)
RELAX_UNARY_BUILDER(isfinite)
RELAX_UNARY_BUILDER(logical_not)
RELAX_UNARY_BUILDER(bitwise_not)
#undef RELAX_UNARY_BUILDER

Expr clip(Expr x, PrimExpr min, PrimExpr max) {
  return call_op("relax.clip",
                 {std::move(x), make_prim_value(std::move(min)), make_prim_value(std::move(max))});
}
Expr astype(Expr x, DataType dtype) {
  return call_op("relax.astype", {std::move(x)}, make_attrs({{"dtype", dtype}}));
}
}  // namespace op
}  // namespace relax
