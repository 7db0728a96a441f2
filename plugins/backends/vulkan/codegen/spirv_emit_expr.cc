// The SPIR-V emitter's expressions (spirv_emitter.h): arithmetic, comparisons, logic, loads,
// with the reference interpreter's semantics (kernel/interpreter.h).
#include <limits>

#include "spirv_emitter.h"

namespace relax::vulkan::detail {

using spv::Op;

namespace {

/// The instruction of a binary arithmetic node for floats, signed and unsigned integers.
struct ArithOps {
  Op f, s, u;
};

}  // namespace

Value Emitter::visit_expr_default(const tir::PrimExprNode* o) {
  fail(std::string("the expression kind ") + tir::prim_expr_kind_name(o->kind()) +
       (o->dtype.lanes > 1 ? " (vector code is not supported)" : ""));
}

Value Emitter::visit_(const tir::IntImm* o) { return {cint(o->dtype, o->value), o->dtype}; }

Value Emitter::visit_(const tir::FloatImm* o) { return {cfloat(o->dtype, o->value), o->dtype}; }

Value Emitter::visit_(const tir::Var* o) {
  auto it = vars_.find(o);
  if (it == vars_.end())
    fail("the variable " + o->name + " has no value in the kernel (neither a parameter, a " +
         "loop variable nor a let)");
  return it->second;
}

static Value arith(Emitter& e, const tir::BinaryOp* o, ArithOps ops) {
  Value a = e.visit_expr(o->a), b = e.visit_expr(o->b);
  DataType t = o->dtype;
  if (t.is_bool()) e.fail(std::string("arithmetic ") + tir::prim_expr_kind_name(o->kind()) +
                          " on bool");
  Op op = t.is_float() ? ops.f : t.is_int() ? ops.s : ops.u;
  return {e.op(op, e.ctype(t), {a.id, b.id}), t};
}

Value Emitter::visit_(const tir::Add* o) { return arith(*this, o, {Op::OpFAdd, Op::OpIAdd, Op::OpIAdd}); }
Value Emitter::visit_(const tir::Sub* o) { return arith(*this, o, {Op::OpFSub, Op::OpISub, Op::OpISub}); }
Value Emitter::visit_(const tir::Mul* o) { return arith(*this, o, {Op::OpFMul, Op::OpIMul, Op::OpIMul}); }

/// Integer and float division and remainder, truncating (Div/Mod) or flooring
/// (FloorDiv/FloorMod). Integers: a zero divisor, and INT_MIN / -1, divide by 1 instead (the
/// interpreter fails on the first and wraps on the second, which dividing by 1 reproduces).
static Value divide(Emitter& e, const tir::BinaryOp* o, bool mod, bool floor) {
  Value a = e.visit_expr(o->a), b = e.visit_expr(o->b);
  DataType t = o->dtype;
  uint32_t ty = e.ctype(t), bt = e.ctype(DataType::Bool());
  if (t.is_bool()) e.fail("division of bools");
  if (t.is_float()) {
    if (floor) return {float_floor_div(e, t, a.id, b.id, mod), t};
    return {mod ? float_fmod(e, t, a.id, b.id) : e.op(Op::OpFDiv, ty, {a.id, b.id}), t};
  }
  uint32_t div = b.id;
  const int64_t* cb = tir::as_const_int(o->b);
  if (cb && *cb > 0 && (*cb & (*cb - 1)) == 0 && (floor || !t.is_int())) {
    // A power of two (index arithmetic): floor division is a shift, the floor modulo a mask
    // (two's complement), exactly.
    int shift = 0;
    while ((int64_t(1) << shift) < *cb) ++shift;
    if (mod) return {e.op(Op::OpBitwiseAnd, ty, {a.id, e.cint(t, *cb - 1)}), t};
    Op sh = t.is_int() ? Op::OpShiftRightArithmetic : Op::OpShiftRightLogical;
    return {e.op(sh, ty, {a.id, e.cint(t, shift)}), t};
  }
  bool safe = cb && *cb != 0 && (*cb != -1 || !t.is_int());
  if (!safe) {
    uint32_t bad = e.op(Op::OpIEqual, bt, {b.id, e.cint(t, 0)});
    if (t.is_int()) {
      int bits = e.ibits(t);
      int64_t min = bits == 64 ? std::numeric_limits<int64_t>::min() : -(int64_t(1) << (bits - 1));
      uint32_t ovf = e.op(Op::OpLogicalAnd, bt,
                          {e.op(Op::OpIEqual, bt, {a.id, e.cint(t, min)}),
                           e.op(Op::OpIEqual, bt, {b.id, e.cint(t, -1)})});
      bad = e.op(Op::OpLogicalOr, bt, {bad, ovf});
    }
    div = e.op(Op::OpSelect, ty, {bad, e.cint(t, 1), b.id});
  }
  if (!t.is_int()) return {e.op(mod ? Op::OpUMod : Op::OpUDiv, ty, {a.id, div}), t};
  uint32_t q = e.op(Op::OpSDiv, ty, {a.id, div});
  uint32_t r = e.op(Op::OpSRem, ty, {a.id, div});  // sign of the dividend
  if (!floor) return {mod ? r : q, t};
  // Floor: when the remainder is non-zero and its sign differs from the divisor's, q - 1 and
  // r + divisor.
  uint32_t zero = e.cint(t, 0);
  uint32_t adjust = e.op(Op::OpLogicalAnd, bt,
                         {e.op(Op::OpINotEqual, bt, {r, zero}),
                          e.op(Op::OpLogicalNotEqual, bt,
                               {e.op(Op::OpSLessThan, bt, {r, zero}),
                                e.op(Op::OpSLessThan, bt, {div, zero})})});
  if (mod) return {e.op(Op::OpSelect, ty, {adjust, e.op(Op::OpIAdd, ty, {r, div}), r}), t};
  return {e.op(Op::OpSelect, ty, {adjust, e.op(Op::OpISub, ty, {q, e.cint(t, 1)}), q}), t};
}

Value Emitter::visit_(const tir::Div* o) { return divide(*this, o, false, false); }
Value Emitter::visit_(const tir::Mod* o) { return divide(*this, o, true, false); }
Value Emitter::visit_(const tir::FloorDiv* o) { return divide(*this, o, false, true); }
Value Emitter::visit_(const tir::FloorMod* o) { return divide(*this, o, true, true); }

/// a < b in the interpreter's sense (ordered for floats; false with a NaN).
static uint32_t less(Emitter& e, Value a, Value b) {
  uint32_t bt = e.ctype(DataType::Bool());
  DataType t = a.t;
  if (t.is_bool()) {  // false < true
    return e.op(Op::OpLogicalAnd, bt, {e.op(Op::OpLogicalNot, bt, {a.id}), b.id});
  }
  Op op = t.is_float() ? Op::OpFOrdLessThan : t.is_int() ? Op::OpSLessThan : Op::OpULessThan;
  return e.op(op, bt, {a.id, b.id});
}

Value Emitter::visit_(const tir::Min* o) {
  Value a = visit_expr(o->a), b = visit_expr(o->b);  // b < a ? b : a
  if (o->dtype.is_integer_like() && !o->dtype.is_bool())  // no NaN: the GLSL instruction
    return {ext(o->dtype.is_int() ? GLSLstd450SMin : GLSLstd450UMin, ctype(o->dtype), {a.id, b.id}), o->dtype};
  return {op(Op::OpSelect, ctype(o->dtype), {less(*this, b, a), b.id, a.id}), o->dtype};
}

Value Emitter::visit_(const tir::Max* o) {
  Value a = visit_expr(o->a), b = visit_expr(o->b);  // a < b ? b : a
  if (o->dtype.is_integer_like() && !o->dtype.is_bool())
    return {ext(o->dtype.is_int() ? GLSLstd450SMax : GLSLstd450UMax, ctype(o->dtype), {a.id, b.id}), o->dtype};
  return {op(Op::OpSelect, ctype(o->dtype), {less(*this, a, b), b.id, a.id}), o->dtype};
}

/// Comparison `kind` (0 ==, 1 !=, 2 <, 3 <=, 4 >, 5 >=). Floats: == and the orderings are
/// ordered (false with a NaN), != is unordered (true with a NaN), as in the interpreter.
static Value compare(Emitter& e, const tir::BinaryOp* o, int kind) {
  Value a = e.visit_expr(o->a), b = e.visit_expr(o->b);
  DataType t = a.t, bool_t = DataType::Bool();
  uint32_t bt = e.ctype(bool_t);
  static const Op f_ops[] = {Op::OpFOrdEqual, Op::OpFUnordNotEqual, Op::OpFOrdLessThan,
                             Op::OpFOrdLessThanEqual, Op::OpFOrdGreaterThan,
                             Op::OpFOrdGreaterThanEqual};
  static const Op s_ops[] = {Op::OpIEqual, Op::OpINotEqual, Op::OpSLessThan,
                             Op::OpSLessThanEqual, Op::OpSGreaterThan, Op::OpSGreaterThanEqual};
  static const Op u_ops[] = {Op::OpIEqual, Op::OpINotEqual, Op::OpULessThan,
                             Op::OpULessThanEqual, Op::OpUGreaterThan, Op::OpUGreaterThanEqual};
  if (t.is_bool()) {
    if (kind > 1) {  // orderings on bools: compare as 0/1
      a = e.cast(a, DataType::Int(32));
      b = e.cast(b, DataType::Int(32));
      return {e.op(s_ops[kind], bt, {a.id, b.id}), bool_t};
    }
    return {e.op(kind == 0 ? Op::OpLogicalEqual : Op::OpLogicalNotEqual, bt, {a.id, b.id}),
            bool_t};
  }
  const Op* ops = t.is_float() ? f_ops : t.is_int() ? s_ops : u_ops;
  return {e.op(ops[kind], bt, {a.id, b.id}), bool_t};
}

Value Emitter::visit_(const tir::EQ* o) { return compare(*this, o, 0); }
Value Emitter::visit_(const tir::NE* o) { return compare(*this, o, 1); }
Value Emitter::visit_(const tir::LT* o) { return compare(*this, o, 2); }
Value Emitter::visit_(const tir::LE* o) { return compare(*this, o, 3); }
Value Emitter::visit_(const tir::GT* o) { return compare(*this, o, 4); }
Value Emitter::visit_(const tir::GE* o) { return compare(*this, o, 5); }

/// && and ||: both operands as bools; when the right one reads memory it runs only when the
/// left one does not decide (the interpreter's short circuit), through a branch.
static Value logic(Emitter& e, const tir::BinaryOp* o, bool is_and) {
  DataType bool_t = DataType::Bool();
  uint32_t a = e.truthy(e.visit_expr(o->a));
  Value r;
  if (reads_memory(o->b)) {
    auto rhs = [&] { return Value{e.truthy(e.visit_expr(o->b)), bool_t}; };
    auto lhs = [&] { return Value{e.cint(bool_t, is_and ? 0 : 1), bool_t}; };
    r = is_and ? e.branch_value(a, bool_t, rhs, lhs) : e.branch_value(a, bool_t, lhs, rhs);
  } else {
    uint32_t b = e.truthy(e.visit_expr(o->b));
    r = {e.op(is_and ? Op::OpLogicalAnd : Op::OpLogicalOr, e.ctype(bool_t), {a, b}), bool_t};
  }
  return o->dtype.is_bool() ? r : e.cast(r, o->dtype);
}

Value Emitter::visit_(const tir::And* o) { return logic(*this, o, true); }
Value Emitter::visit_(const tir::Or* o) { return logic(*this, o, false); }

Value Emitter::visit_(const tir::Not* o) {
  Value a = visit_expr(o->a);
  Value r{op(Op::OpLogicalNot, ctype(DataType::Bool()), {truthy(a)}), DataType::Bool()};
  return o->dtype.is_bool() ? r : cast(r, o->dtype);
}

Value Emitter::visit_(const tir::Select* o) {
  // Both arms are evaluated, as in the interpreter (if_then_else is the lazy form).
  uint32_t c = truthy(visit_expr(o->condition));
  Value t = visit_expr(o->true_value), f = visit_expr(o->false_value);
  return {op(Op::OpSelect, ctype(o->dtype), {c, t.id, f.id}), o->dtype};
}

Value Emitter::visit_(const tir::Cast* o) { return cast(visit_expr(o->value), o->dtype); }

Value Emitter::visit_(const tir::Let* o) {
  vars_[o->var.get()] = visit_expr(o->value);
  Value r = visit_expr(o->body);
  vars_.erase(o->var.get());
  return r;
}

Value Emitter::visit_(const tir::BufferLoad* o) {
  const Slot& s = slot_of(*o->buffer, "load from");
  uint32_t ptr = element_ptr(s, flat_index(*o->buffer, o->indices));
  uint32_t raw = op(Op::OpLoad, s.elem_type, {ptr});
  DataType t = s.dtype;
  if (s.kind != Slot::kStorage) return {raw, t};
  uint32_t u32t = ctype(DataType::UInt(32));
  if (t.is_bool()) {
    uint32_t wide = op(Op::OpUConvert, u32t, {raw});
    return {op(Op::OpINotEqual, ctype(t), {wide, u32(0)}), t};
  }
  if (t.code == DataType::kBFloat) {
    uint32_t wide = op(Op::OpUConvert, u32t, {raw});
    uint32_t bits = op(Op::OpShiftLeftLogical, u32t, {wide, u32(16)});
    return {op(Op::OpBitcast, ctype(t), {bits}), t};
  }
  if (f16_emulated(t)) return {op(Op::OpFConvert, ctype(t), {raw}), t};
  return {raw, t};
}

Value Emitter::visit_(const tir::Call* o) { return intrinsic(o); }

}  // namespace relax::vulkan::detail
