// The SPIR-V emitter's casts and intrinsic calls (spirv_emitter.h), with the reference
// interpreter's semantics: float -> int through the int64 range (NaN -> 0, beyond int64
// saturated, then wrapped to the target width), round half to even, fmod with the sign of the
// dividend, pow of negative bases with integer exponents, erf expanded (GLSL has none).
#include <cmath>
#include <limits>

#include "relax/tir/intrin.h"
#include "spirv_emitter.h"

namespace relax::vulkan::detail {

using spv::Op;

uint32_t Emitter::bf16_round_bits(uint32_t x) {
  uint32_t ut = ctype(DataType::UInt(32)), bt = ctype(DataType::Bool());
  uint32_t bits = op(Op::OpBitcast, ut, {x});
  uint32_t lsb = op(Op::OpBitwiseAnd, ut, {op(Op::OpShiftRightLogical, ut, {bits, u32(16)}), u32(1)});
  uint32_t rounded = op(Op::OpIAdd, ut, {bits, op(Op::OpIAdd, ut, {lsb, u32(0x7FFF)})});
  rounded = op(Op::OpBitwiseAnd, ut, {rounded, u32(0xFFFF0000u)});
  uint32_t quiet = op(Op::OpBitwiseOr, ut,
                      {op(Op::OpBitwiseAnd, ut, {bits, u32(0x80000000u)}), u32(0x7FC00000u)});
  return op(Op::OpSelect, ut, {op(Op::OpIsNan, bt, {x}), quiet, rounded});
}

uint32_t Emitter::f16_round(uint32_t x) {
  stype(DataType::Float(16));  // the 16-bit float type and its storage capability
  uint32_t h = op(Op::OpFConvert, b_.type_float(16), {x});
  return op(Op::OpFConvert, b_.type_float(32), {h});
}

/// float -> integer as the interpreter converts: trunc, NaN -> 0, saturate to int64, wrap.
static Value float_to_int(Emitter& e, Value v, DataType to) {
  DataType f32 = DataType::Float(32), f64 = DataType::Float(64), bool_t = DataType::Bool();
  DataType wt = e.fbits(v.t) == 64 ? f64 : f32;  // float16 works in float32
  uint32_t ft = e.ctype(wt), bt = e.ctype(bool_t);
  uint32_t x = e.fbits(v.t) == 16 ? e.op(Op::OpFConvert, ft, {v.id}) : v.id;
  uint32_t t = e.ext(GLSLstd450Trunc, ft, {x});
  uint32_t nan = e.op(Op::OpIsNan, bt, {t});
  uint32_t hi = e.op(Op::OpFOrdGreaterThanEqual, bt, {t, e.cfloat(wt, 0x1p63)});
  uint32_t lo = e.op(Op::OpFOrdLessThan, bt, {t, e.cfloat(wt, -0x1p63)});
  auto sel = [&](uint32_t c, uint32_t a, uint32_t b, uint32_t ty) {
    return e.op(Op::OpSelect, ty, {c, a, b});
  };
  uint32_t fzero = e.cfloat(wt, 0);
  if (e.ibits(to) == 64) {
    DataType i64 = DataType::Int(64), u64 = DataType::UInt(64);
    uint32_t it = e.ctype(i64), ut = e.ctype(u64);
    uint32_t out_of = e.op(Op::OpLogicalOr, bt, {e.op(Op::OpLogicalOr, bt, {hi, lo}), nan});
    uint32_t s = e.op(Op::OpConvertFToS, it, {sel(out_of, fzero, t, ft)});
    uint32_t r = sel(hi, e.cint(i64, std::numeric_limits<int64_t>::max()), s, it);
    r = sel(lo, e.cint(i64, std::numeric_limits<int64_t>::min()), r, it);
    if (to.is_uint()) {
      uint32_t hi64 = e.op(Op::OpFOrdGreaterThanEqual, bt, {t, e.cfloat(wt, 0x1p64)});
      uint32_t mid = e.op(Op::OpLogicalAnd, bt, {hi, e.op(Op::OpLogicalNot, bt, {hi64})});
      uint32_t u = e.op(Op::OpConvertFToU, ut, {sel(mid, t, fzero, ft)});
      r = sel(mid, u, e.op(Op::OpBitcast, ut, {r}), ut);
      r = sel(hi64, e.cint(u64, -1), r, ut);
      return {sel(nan, e.cint(u64, 0), r, ut), to};
    }
    return {sel(nan, e.cint(i64, 0), r, it), to};
  }
  // At most 32 bits: the low 32 bits of the int64 value. |t| < 2^31 converts directly; a
  // larger |t| below 2^63 is reduced modulo 2^32 in float (exact: t is a multiple of 2^8 in
  // float32 there) and converted unsigned.
  DataType u32d = DataType::UInt(32);
  uint32_t ut = e.ctype(u32d), it = e.ctype(DataType::Int(32));
  uint32_t small = e.op(Op::OpFOrdLessThan, bt, {e.ext(GLSLstd450FAbs, ft, {t}), e.cfloat(wt, 0x1p31)});
  uint32_t a = e.op(Op::OpBitcast, ut, {e.op(Op::OpConvertFToS, it, {sel(small, t, fzero, ft)})});
  uint32_t q = e.ext(GLSLstd450Floor, ft, {e.op(Op::OpFMul, ft, {t, e.cfloat(wt, 0x1p-32)})});
  uint32_t r = e.op(Op::OpFSub, ft, {t, e.op(Op::OpFMul, ft, {q, e.cfloat(wt, 0x1p32)})});
  uint32_t big = e.op(Op::OpLogicalNot, bt,
                      {e.op(Op::OpLogicalOr, bt,
                            {e.op(Op::OpLogicalOr, bt, {small, nan}),
                             e.op(Op::OpLogicalOr, bt, {hi, lo})})});
  uint32_t b = e.op(Op::OpConvertFToU, ut, {sel(big, r, fzero, ft)});
  uint32_t res = sel(small, a, b, ut);
  res = sel(hi, e.u32(0xFFFFFFFFu), res, ut);
  res = sel(e.op(Op::OpLogicalOr, bt, {lo, nan}), e.u32(0), res, ut);
  return e.cast({res, u32d}, to);
}

Value Emitter::cast(Value v, DataType to) {
  DataType from = v.t;
  if (from == to) return v;
  if (to.lanes != 1 || from.lanes != 1) fail("vector cast to " + to.to_string());
  uint32_t ty = ctype(to);
  if (to.is_bool()) return {truthy(v), to};
  if (from.is_bool()) return {op(Op::OpSelect, ty, {v.id, cint(to, 1), cint(to, 0)}), to};
  if (to.is_float()) {
    uint32_t x;
    if (from.is_float()) {
      x = fbits(from) == fbits(to) ? v.id : op(Op::OpFConvert, ty, {v.id});
    } else {
      x = op(from.is_int() ? Op::OpConvertSToF : Op::OpConvertUToF, ty, {v.id});
    }
    // Computed wider than the dtype: round to its precision, as the interpreter stores it.
    if (f16_emulated(to) && !f16_emulated(from)) x = f16_round(x);
    if (to.code == DataType::kBFloat)
      x = op(Op::OpBitcast, ty, {bf16_round_bits(x)});
    return {x, to};
  }
  if (from.is_float()) return float_to_int(*this, v, to);
  // Integer to integer: change the width with the source's signedness (sign- or
  // zero-extension, or truncation), then reinterpret the signedness.
  uint32_t x = v.id;
  bool src_signed = from.is_int();
  const int fb = ibits(from), tb = ibits(to);  // compute widths (int64 demoted with int64=0)
  if (fb < tb && src_signed) {
    // Sign extension as zero extension | the high bits of a negative value: lavapipe (Mesa
    // 22.3) miscompiles ordered comparisons of OpSConvert results (sext(x) < 0 is false for
    // x = -5), which clamps of widened indices hit.
    uint32_t wide_u = b_.type_int(tb, false);
    uint32_t z = op(Op::OpUConvert, wide_u, {op(Op::OpBitcast, b_.type_int(fb, false), {x})});
    uint64_t high = tb == 64 ? ~uint64_t(0) << fb : ((uint64_t(1) << tb) - 1) & (~uint64_t(0) << fb);
    uint32_t neg = op(Op::OpSLessThan, b_.type_bool(), {x, cint(from, 0)});
    uint32_t fill = op(Op::OpSelect, wide_u,
                       {neg, b_.const_int(wide_u, tb, false, high), b_.const_int(wide_u, tb, false, 0)});
    x = op(Op::OpBitwiseOr, wide_u, {z, fill});
    if (to.is_int()) x = op(Op::OpBitcast, ty, {x});
    return {x, to};
  }
  if (fb != tb)
    x = op(src_signed ? Op::OpSConvert : Op::OpUConvert, b_.type_int(tb, src_signed), {x});
  if (src_signed != to.is_int()) x = op(Op::OpBitcast, ty, {x});
  return {x, to};
}

namespace {

bool is_transcendental(tir::Intrinsic i) {
  using I = tir::Intrinsic;
  switch (i) {
    case I::kExp: case I::kExp2: case I::kLog: case I::kLog2: case I::kLog1p: case I::kSin:
    case I::kCos: case I::kTan: case I::kAsin: case I::kAcos: case I::kAtan: case I::kAtan2:
    case I::kSinh: case I::kCosh: case I::kTanh: case I::kAsinh: case I::kAcosh:
    case I::kAtanh: case I::kPow: case I::kErf: case I::kSigmoid:
      return true;
    default:
      return false;
  }
}

bool glsl_unary(tir::Intrinsic i, GLSLstd450* out) {
  using I = tir::Intrinsic;
  switch (i) {
    case I::kExp: *out = GLSLstd450Exp; return true;
    case I::kExp2: *out = GLSLstd450Exp2; return true;
    case I::kLog: *out = GLSLstd450Log; return true;
    case I::kLog2: *out = GLSLstd450Log2; return true;
    case I::kSqrt: *out = GLSLstd450Sqrt; return true;
    case I::kRsqrt: *out = GLSLstd450InverseSqrt; return true;
    case I::kSin: *out = GLSLstd450Sin; return true;
    case I::kCos: *out = GLSLstd450Cos; return true;
    case I::kTan: *out = GLSLstd450Tan; return true;
    case I::kAsin: *out = GLSLstd450Asin; return true;
    case I::kAcos: *out = GLSLstd450Acos; return true;
    case I::kAtan: *out = GLSLstd450Atan; return true;
    case I::kSinh: *out = GLSLstd450Sinh; return true;
    case I::kCosh: *out = GLSLstd450Cosh; return true;
    case I::kTanh: *out = GLSLstd450Tanh; return true;
    case I::kAsinh: *out = GLSLstd450Asinh; return true;
    case I::kAcosh: *out = GLSLstd450Acosh; return true;
    case I::kAtanh: *out = GLSLstd450Atanh; return true;
    case I::kFloor: *out = GLSLstd450Floor; return true;
    case I::kCeil: *out = GLSLstd450Ceil; return true;
    case I::kTrunc: *out = GLSLstd450Trunc; return true;
    case I::kRound: *out = GLSLstd450RoundEven; return true;  // half to even, not Round
    case I::kFabs: case I::kAbs: *out = GLSLstd450FAbs; return true;
    default: return false;
  }
}

}  // namespace

Value Emitter::intrinsic(const tir::Call* o) {
  using I = tir::Intrinsic;
  const char* name = tir::intrinsic_name(o->op);
  DataType t = o->dtype;
  auto arg = [&](size_t i) {
    if (i >= o->args.size()) fail(std::string(name) + " with too few operands");
    return visit_expr(o->args[i]);
  };
  DataType bool_t = DataType::Bool();
  uint32_t bt = b_.type_bool();
  switch (o->op) {
    case I::kLikely:
      return arg(0);
    case I::kIfThenElse: {
      if (o->args.size() != 3) fail("if_then_else needs 3 operands");
      uint32_t c = truthy(arg(0));
      if (reads_memory(o->args[1]) || reads_memory(o->args[2]))  // never read the untaken side
        return branch_value(c, t, [&] { return arg(1); }, [&] { return arg(2); });
      Value a = arg(1), b = arg(2);
      return {op(Op::OpSelect, ctype(t), {c, a.id, b.id}), t};
    }
    case I::kIsNan: case I::kIsInf: case I::kIsFinite: {
      Value x = arg(0);
      if (!x.t.is_float()) return {b_.const_bool(o->op == I::kIsFinite), bool_t};
      if (o->op == I::kIsNan) return {op(Op::OpIsNan, bt, {x.id}), bool_t};
      if (o->op == I::kIsInf) return {op(Op::OpIsInf, bt, {x.id}), bool_t};
      uint32_t bad = op(Op::OpLogicalOr, bt, {op(Op::OpIsNan, bt, {x.id}), op(Op::OpIsInf, bt, {x.id})});
      return {op(Op::OpLogicalNot, bt, {bad}), bool_t};
    }
    case I::kBitwiseAnd: case I::kBitwiseOr: case I::kBitwiseXor: {
      Value a = arg(0), b = arg(1);
      if (t.is_bool()) {
        Op lo = o->op == I::kBitwiseAnd ? Op::OpLogicalAnd
                : o->op == I::kBitwiseOr ? Op::OpLogicalOr : Op::OpLogicalNotEqual;
        return {op(lo, bt, {a.id, b.id}), t};
      }
      if (!t.is_integer_like()) fail(std::string(name) + " on " + t.to_string());
      Op bo = o->op == I::kBitwiseAnd ? Op::OpBitwiseAnd
              : o->op == I::kBitwiseOr ? Op::OpBitwiseOr : Op::OpBitwiseXor;
      return {op(bo, ctype(t), {a.id, b.id}), t};
    }
    case I::kBitwiseNot: {
      Value a = arg(0);
      if (t.is_bool()) return {op(Op::OpLogicalNot, bt, {a.id}), t};
      if (!t.is_integer_like()) fail(std::string(name) + " on " + t.to_string());
      return {op(Op::OpNot, ctype(t), {a.id}), t};
    }
    case I::kShiftLeft: case I::kShiftRight: {
      Value a = arg(0), b = arg(1);
      if (!t.is_integer_like() || t.is_bool()) fail(std::string(name) + " on " + t.to_string());
      Op so = o->op == I::kShiftLeft ? Op::OpShiftLeftLogical
              : t.is_int() ? Op::OpShiftRightArithmetic : Op::OpShiftRightLogical;
      return {op(so, ctype(t), {a.id, b.id}), t};
    }
    case I::kReinterpret: {
      Value a = arg(0);
      DataType from = a.t;
      if (from.bits != t.bits) fail("reinterpret of " + from.to_string() + " as " + t.to_string());
      DataType u16 = DataType::UInt(16), u32d = DataType::UInt(32);
      if (from.code == DataType::kBFloat) {  // the top 16 bits of the float32 value
        uint32_t bits = op(Op::OpShiftRightLogical, ctype(u32d),
                           {op(Op::OpBitcast, ctype(u32d), {a.id}), u32(16)});
        return cast({bits, u32d}, t);
      }
      if (t.code == DataType::kBFloat) {
        if (!from.is_integer_like()) fail("reinterpret of " + from.to_string() + " as bfloat16");
        Value w = cast(cast(a, u16), u32d);
        uint32_t bits = op(Op::OpShiftLeftLogical, ctype(u32d), {w.id, u32(16)});
        return {op(Op::OpBitcast, ctype(t), {bits}), t};
      }
      if (f16_emulated(from) || f16_emulated(t) || from.is_bool() || t.is_bool())
        fail("reinterpret of " + from.to_string() + " as " + t.to_string() +
             (f16_emulated(from) || f16_emulated(t) ? " without the float16 feature" : ""));
      return {op(Op::OpBitcast, ctype(t), {a.id}), t};
    }
    case I::kExtern:
      fail("the external function call '" + o->name + "'");
    case I::kStorageSync:
      fail("tvm_storage_sync inside an expression (it must be a whole statement)");
    case I::kLaunchKernel:
      fail("launch_kernel inside a kernel");
    default:
      break;
  }
  // Math on floats (rounding functions are the identity on integers, abs wraps).
  Value x = arg(0);
  if (!t.is_float()) {
    switch (o->op) {
      case I::kFloor: case I::kCeil: case I::kRound: case I::kTrunc:
        return x;
      case I::kAbs: {
        if (t.is_uint() || t.is_bool()) return x;
        uint32_t negv = op(Op::OpSNegate, ctype(t), {x.id});
        uint32_t lt = op(Op::OpSLessThan, bt, {x.id, cint(t, 0)});
        return {op(Op::OpSelect, ctype(t), {lt, negv, x.id}), t};
      }
      default:
        fail(std::string(name) + " needs a float operand, got " + t.to_string());
    }
  }
  if (fbits(t) == 64 && is_transcendental(o->op))
    fail(std::string("SPIR-V GLSL.std.450 has no float64 ") + name +
         " (the intrinsic needs float32 or float16 operands)");
  uint32_t ty = ctype(t);
  uint32_t r = 0;
  GLSLstd450 g;
  switch (o->op) {
    case I::kPow: r = pow_std(*this, t, x.id, arg(1).id); break;
    case I::kFmod: r = float_fmod(*this, t, x.id, arg(1).id); break;
    case I::kAtan2: r = on_float32(*this, t, {x.id, arg(1).id}, atan2_f32); break;
    case I::kAtan: r = on_float32(*this, t, {x.id}, atan_f32); break;
    case I::kAsin: r = on_float32(*this, t, {x.id}, asin_f32); break;
    case I::kAcos: r = on_float32(*this, t, {x.id}, acos_f32); break;
    case I::kSigmoid: {
      uint32_t ex = ext(GLSLstd450Exp, ty, {op(Op::OpFNegate, ty, {x.id})});
      r = op(Op::OpFDiv, ty, {cfloat(t, 1), op(Op::OpFAdd, ty, {cfloat(t, 1), ex})});
      break;
    }
    case I::kLog1p: {  // log(u) * x / (u - 1), u = 1 + x: exact where 1 + x rounds
      uint32_t one = cfloat(t, 1);
      uint32_t u = op(Op::OpFAdd, ty, {one, x.id});
      uint32_t d = op(Op::OpFSub, ty, {u, one});
      uint32_t l = op(Op::OpFMul, ty, {ext(GLSLstd450Log, ty, {u}), op(Op::OpFDiv, ty, {x.id, d})});
      uint32_t same = op(Op::OpFOrdEqual, bt, {d, cfloat(t, 0)});
      uint32_t inf = op(Op::OpIsInf, bt, {u});
      r = op(Op::OpSelect, ty, {same, x.id, op(Op::OpSelect, ty, {inf, u, l})});
      break;
    }
    case I::kErf: r = on_float32(*this, t, {x.id}, erf_f32); break;
    default:
      if (!glsl_unary(o->op, &g)) fail(std::string("the intrinsic ") + name);
      if (fbits(t) == 16 && is_transcendental(o->op)) {
        // float16 arithmetic: the transcendentals in float32 (drivers' float16 exp, log, ...
        // are ~1e-3 off: lavapipe's exp), rounded once to float16.
        uint32_t f32t = ctype(DataType::Float(32));
        r = op(Op::OpFConvert, ty, {ext(g, f32t, {op(Op::OpFConvert, f32t, {x.id})})});
      } else {
        r = ext(g, ty, {x.id});
      }
  }
  if (f16_emulated(t) && o->op != I::kFloor && o->op != I::kCeil && o->op != I::kTrunc &&
      o->op != I::kRound && o->op != I::kFabs && o->op != I::kAbs)
    r = f16_round(r);
  return {r, t};
}

}  // namespace relax::vulkan::detail
