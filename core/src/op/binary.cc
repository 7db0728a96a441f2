// Elementwise binary ops with NumPy broadcasting, and the ternary `where`.
//
// Arithmetic ops keep the (common) operand dtype; comparisons give bool; logical ops take bool;
// bitwise ops and shifts take integers. Integer `divide` and `mod` truncate (C, ONNX);
// `floor_divide` and `floor_mod` floor (Python).
#include "infer_utils.h"
#include "legalize_utils.h"
#include "relax/op/op.h"
#include "relax/support/diagnostic.h"

namespace relax {
namespace op_detail {

namespace {

/// Operand dtypes a binary op accepts, and whether the result is bool.
enum class BinaryKind { kArith, kFloat, kCompare, kLogical, kInteger };

/// The broadcast result shape of tensors `a` and `b` with `dtype`.
StructInfo broadcast_sinfo(const Call& call, const TensorStructInfo& a, const TensorStructInfo& b,
                           DataType dtype, BlockBuilder& ctx) {
  std::string vdevice = a.vdevice.empty() ? b.vdevice : a.vdevice;
  if (a.shape && b.shape) {
    if (auto out = broadcast_shapes(call, *a.shape, *b.shape, ctx.analyzer()))
      return tensor_sinfo(*out, dtype, vdevice);
    return tensor_sinfo(dtype, int(std::max(a.shape->size(), b.shape->size())), vdevice);
  }
  int ndim = (a.ndim < 0 || b.ndim < 0) ? -1 : std::max(a.ndim, b.ndim);
  return tensor_sinfo(dtype, ndim, vdevice);
}

InferStructInfo infer_binary(BinaryKind kind) {
  return [kind](const Call& call, BlockBuilder& ctx) -> StructInfo {
    const TensorStructInfo& a = expect_tensor(call, 0);
    const TensorStructInfo& b = expect_tensor(call, 1);
    DataType dtype = unify_dtype(call, a.dtype, b.dtype);
    if (!dtype.is_void()) {
      switch (kind) {
        case BinaryKind::kArith:
        case BinaryKind::kCompare:
          RX_CHECK(!dtype.is_bool() || kind == BinaryKind::kCompare)
              << op_name(call) << ": needs numeric operands, got bool (use the logical ops)";
          break;
        case BinaryKind::kFloat:
          RX_CHECK(dtype.is_float())
              << op_name(call) << ": needs floating-point operands, got " << dtype.to_string();
          break;
        case BinaryKind::kLogical:
          RX_CHECK(dtype.is_bool())
              << op_name(call) << ": needs bool operands, got " << dtype.to_string();
          break;
        case BinaryKind::kInteger:
          RX_CHECK(dtype.is_int() || dtype.is_uint())
              << op_name(call) << ": needs integer operands, got " << dtype.to_string();
          break;
      }
    }
    if (kind == BinaryKind::kCompare) dtype = DataType::Bool();
    return broadcast_sinfo(call, a, b, dtype, ctx);
  };
}

using ScalarFn2 = std::function<PrimExpr(PrimExpr, PrimExpr)>;

void register_binary(OpRegistry& reg, const std::string& name, const std::string& summary,
                     BinaryKind kind, ScalarFn2 f) {
  OpInfo& op = reg.register_op(name);
  op.summary = summary;
  op.arg_names = {"x1", "x2"};
  op.infer = infer_binary(kind);
  op.pattern = OpPattern::kBroadcast;
  op.legalize = [f = std::move(f)](BlockBuilder& bb, const Call& call) {
    return legalize_broadcast(bb, call, f);
  };
}

PrimExpr divide(PrimExpr a, PrimExpr b) { return tir::truncdiv(std::move(a), std::move(b)); }

PrimExpr floor_divide(PrimExpr a, PrimExpr b) {
  if (a->dtype.is_float()) return tir::floor(tir::truncdiv(a, b));
  return tir::floordiv(a, b);
}

PrimExpr mod(PrimExpr a, PrimExpr b) {
  if (a->dtype.is_float()) return tir::fmod(a, b);
  return tir::truncmod(a, b);
}

PrimExpr floor_mod(PrimExpr a, PrimExpr b) {
  if (a->dtype.is_float()) return a - tir::floor(tir::truncdiv(a, b)) * b;
  return tir::floormod(a, b);
}

PrimExpr logical_xor(PrimExpr a, PrimExpr b) { return tir::ne(a, b); }

StructInfo infer_where(const Call& call, BlockBuilder& ctx) {
  const TensorStructInfo& c = expect_tensor(call, 0);
  const TensorStructInfo& a = expect_tensor(call, 1);
  const TensorStructInfo& b = expect_tensor(call, 2);
  RX_CHECK(c.dtype.is_void() || c.dtype.is_bool())
      << "relax.where: 'condition' must be a bool tensor, got " << c.dtype.to_string();
  DataType dtype = unify_dtype(call, a.dtype, b.dtype);
  StructInfo ab = broadcast_sinfo(call, a, b, dtype, ctx);
  return broadcast_sinfo(call, c, *ab.as<TensorStructInfo>(), dtype, ctx);
}

Expr legalize_where(BlockBuilder& bb, const Call& call) {
  const TensorStructInfo& out = legal_out(call);
  for (size_t i = 0; i < 3; ++i) legal_arg(call, i);
  return te::call_te(
      bb, {call.args[0], call.args[1], call.args[2]},
      [&](const std::vector<te::Tensor>& a) {
        return te::compute(
            *out.shape,
            [&](const std::vector<PrimExpr>& i) {
              return tir::select(broadcast_load(a[0], i), broadcast_load(a[1], i),
                                 broadcast_load(a[2], i));
            },
            "where");
      },
      "where");
}

}  // namespace

void register_binary_ops(OpRegistry& reg) {
  using K = BinaryKind;
  register_binary(reg, "relax.add", "Elementwise sum with broadcasting.", K::kArith,
                  [](PrimExpr a, PrimExpr b) { return a + b; });
  register_binary(reg, "relax.subtract", "Elementwise difference with broadcasting.", K::kArith,
                  [](PrimExpr a, PrimExpr b) { return a - b; });
  register_binary(reg, "relax.multiply", "Elementwise product with broadcasting.", K::kArith,
                  [](PrimExpr a, PrimExpr b) { return a * b; });
  register_binary(reg, "relax.divide",
                  "Elementwise quotient with broadcasting (integers truncate).", K::kArith, divide);
  register_binary(reg, "relax.floor_divide", "Elementwise floor(x1 / x2) with broadcasting.",
                  K::kArith, floor_divide);
  register_binary(reg, "relax.power", "Elementwise x1 ** x2 with broadcasting (floats).", K::kFloat,
                  tir::pow);
  register_binary(reg, "relax.mod",
                  "Elementwise remainder with the sign of x1 (C fmod), with broadcasting.",
                  K::kArith, mod);
  register_binary(reg, "relax.floor_mod",
                  "Elementwise remainder with the sign of x2 (Python %), with broadcasting.",
                  K::kArith, floor_mod);
  register_binary(reg, "relax.maximum", "Elementwise maximum with broadcasting.", K::kArith,
                  [](PrimExpr a, PrimExpr b) { return tir::max(a, b); });
  register_binary(reg, "relax.minimum", "Elementwise minimum with broadcasting.", K::kArith,
                  [](PrimExpr a, PrimExpr b) { return tir::min(a, b); });
  register_binary(reg, "relax.equal", "Elementwise x1 == x2 (bool).", K::kCompare, tir::eq);
  register_binary(reg, "relax.not_equal", "Elementwise x1 != x2 (bool).", K::kCompare, tir::ne);
  register_binary(reg, "relax.less", "Elementwise x1 < x2 (bool).", K::kCompare, tir::lt);
  register_binary(reg, "relax.less_equal", "Elementwise x1 <= x2 (bool).", K::kCompare, tir::le);
  register_binary(reg, "relax.greater", "Elementwise x1 > x2 (bool).", K::kCompare, tir::gt);
  register_binary(reg, "relax.greater_equal", "Elementwise x1 >= x2 (bool).", K::kCompare, tir::ge);
  register_binary(reg, "relax.logical_and", "Elementwise logical and of bool tensors.", K::kLogical,
                  tir::logical_and);
  register_binary(reg, "relax.logical_or", "Elementwise logical or of bool tensors.", K::kLogical,
                  tir::logical_or);
  register_binary(reg, "relax.logical_xor", "Elementwise logical xor of bool tensors.", K::kLogical,
                  logical_xor);
  register_binary(reg, "relax.bitwise_and", "Elementwise bitwise and of integer tensors.",
                  K::kInteger, tir::bitwise_and);
  register_binary(reg, "relax.bitwise_or", "Elementwise bitwise or of integer tensors.",
                  K::kInteger, tir::bitwise_or);
  register_binary(reg, "relax.bitwise_xor", "Elementwise bitwise xor of integer tensors.",
                  K::kInteger, tir::bitwise_xor);
  register_binary(reg, "relax.left_shift", "Elementwise x1 << x2 of integer tensors.", K::kInteger,
                  tir::shift_left);
  register_binary(reg, "relax.right_shift",
                  "Elementwise x1 >> x2 of integer tensors (arithmetic for signed).", K::kInteger,
                  tir::shift_right);
  {
    OpInfo& op = reg.register_op("relax.where");
    op.summary = "Elementwise condition ? x1 : x2, with broadcasting of all three.";
    op.arg_names = {"condition", "x1", "x2"};
    op.infer = infer_where;
    op.pattern = OpPattern::kBroadcast;
    op.legalize = legalize_where;
  }
}

}  // namespace op_detail

namespace op {
#define RELAX_BINARY_BUILDER(name) \
  Expr name(Expr a, Expr b) { return call_op("relax." #name, {std::move(a), std::move(b)}); }
RELAX_BINARY_BUILDER(add)
RELAX_BINARY_BUILDER(subtract)
RELAX_BINARY_BUILDER(multiply)
RELAX_BINARY_BUILDER(divide)
RELAX_BINARY_BUILDER(floor_divide)
RELAX_BINARY_BUILDER(power)
RELAX_BINARY_BUILDER(mod)
RELAX_BINARY_BUILDER(floor_mod)
RELAX_BINARY_BUILDER(maximum)
RELAX_BINARY_BUILDER(minimum)
RELAX_BINARY_BUILDER(equal)
RELAX_BINARY_BUILDER(not_equal)
RELAX_BINARY_BUILDER(less)
RELAX_BINARY_BUILDER(less_equal)
RELAX_BINARY_BUILDER(greater)
RELAX_BINARY_BUILDER(greater_equal)
RELAX_BINARY_BUILDER(logical_and)
RELAX_BINARY_BUILDER(logical_or)
RELAX_BINARY_BUILDER(logical_xor)
RELAX_BINARY_BUILDER(bitwise_and)
RELAX_BINARY_BUILDER(bitwise_or)
RELAX_BINARY_BUILDER(bitwise_xor)
RELAX_BINARY_BUILDER(left_shift)
RELAX_BINARY_BUILDER(right_shift)
#undef RELAX_BINARY_BUILDER
Expr where(Expr cond, Expr a, Expr b) {
  return call_op("relax.where", {std::move(cond), std::move(a), std::move(b)});
}
}  // namespace op
}  // namespace relax
